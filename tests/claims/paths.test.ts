import assert from "node:assert/strict";
import { call, env, newProject, pairAgent, test } from "../helpers/mod.ts";
import { canonicalPath, checkPath } from "@/shared/file-path.ts";
import { setup, ticketBody } from "../tickets/_helpers.ts";
import { board, HANDOFF, patch, ticket } from "../workflow/fixtures.ts";
import { ticketRow } from "../helpers/fixtures.ts";

const SPELLINGS = [
  "./src/app.ts",
  "src//app.ts",
  "src/x/../app.ts",
  "/src/app.ts",
  "src/app.ts ",
  " src/app.ts",
  "src\\app.ts",
  "src/./app.ts/",
  "./src/lib/../../src/app.ts",
];
const ESCAPING = ["../../etc/passwd", "a/../../x", "..", "/../x", "src/..\\..\\x"];
const EMPTY = [".", "./", "/", " ", "a/..", "//"];
const CONTROL = ["src/\tapp.ts", "src/app\n.ts", "src/\u0000app.ts", "src/\u007fapp.ts"];

async function claim(token: string, files: string[]) {
  return await call("POST", "/claim", { token, body: { files } });
}

async function liveFiles(projectId: string): Promise<string[]> {
  const { db } = await env();
  const rows = await db.selectFrom("claim_files").select("file").where("project_id", "=", projectId)
    .where("released_at", "is", null).orderBy("file").execute();
  return rows.map((r) => r.file);
}

test("canonicalPath: trimmed, NFC, slashes, dot segments resolved, case kept; escaping, empty and control refused", () => {
  for (const spelling of SPELLINGS) {
    assert.equal(canonicalPath(spelling), "src/app.ts", JSON.stringify(spelling));
  }
  assert.equal(canonicalPath("Src/App.ts"), "Src/App.ts");
  assert.equal(canonicalPath("docs/cafe\u0301.md"), "docs/caf\u00e9.md");
  assert.equal(canonicalPath("a b/c d.txt"), "a b/c d.txt");
  assert.equal(canonicalPath("a/b/../../c"), "c");
  for (const bad of [...ESCAPING, ...EMPTY, ...CONTROL, "src/\ud800.ts"]) {
    const result = checkPath(bad);
    assert.equal(result.ok, false, JSON.stringify(bad));
    assert.throws(() => canonicalPath(bad), RangeError);
  }
});

test("CLAIM-019 CLAIM-023 every spelling of a held file answers 409 CONFLICT for another agent", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const b = await pairAgent(projectId);
  assert.equal((await claim(a.token, ["src/app.ts"])).status, 200);
  for (const spelling of SPELLINGS) {
    const res = await claim(b.token, [spelling]);
    assert.equal(res.status, 409, `${JSON.stringify(spelling)}: ${res.text}`);
    assert.equal(res.body.error.code, "CONFLICT");
    // A trailing `/` names a directory for claims (issue 24): `src/app.ts/**`, which overlaps the file.
    const asked = spelling.trimEnd().endsWith("/") ? "src/app.ts/**" : "src/app.ts";
    assert.equal(res.body.error.details.conflicts[0].file, asked);
    assert.equal(res.body.error.details.conflicts[0].recovery.action, "wait");
  }
  assert.deepEqual(await liveFiles(projectId), ["src/app.ts"]);
  const other = await claim(b.token, ["SRC/app.ts"]);
  assert.equal(other.status, 409, "letter case is ignored (issue 22): SRC/app.ts is the same file");
  assert.equal(other.body.error.details.conflicts[0].file, "SRC/app.ts");
});

test("CLAIM-007 paths above the repository root, empty once canonical or with control characters answer 400", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  for (const bad of [...ESCAPING, ...EMPTY, ...CONTROL]) {
    const res = await claim(a.token, ["src/ok.ts", bad]);
    assert.equal(res.status, 400, `${JSON.stringify(bad)}: ${res.text}`);
    assert.equal(res.body.error.code, "VALIDATION_ERROR");
    assert.ok(
      res.body.error.details.fields.some((f: { path: string }) => f.path === "files.1"),
      JSON.stringify(res.body.error.details.fields),
    );
  }
  assert.deepEqual(await liveFiles(projectId), []);
});

test("CLAIM-014 CLAIM-015 the response shows the canonical form and spellings of one file count once", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const res = await claim(a.token, [" ./src//lib/../app.ts", "src\\b.ts", "src/app.ts", "/src/b.ts"]);
  assert.equal(res.status, 200, res.text);
  assert.deepEqual(res.body.data.claims.map((c: { file: string }) => c.file), ["src/app.ts", "src/b.ts"]);
  assert.deepEqual(await liveFiles(projectId), ["src/app.ts", "src/b.ts"]);
  const again = await claim(a.token, ["./src/app.ts", "src//b.ts"]);
  assert.equal(again.status, 200, again.text);
  assert.equal(again.body.data.idempotent, true);
});

test("CLAIM-026 CLAIM-027 GET /claim/check accepts any spelling and answers with the canonical form", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const b = await pairAgent(projectId);
  await claim(a.token, ["src/app.ts"]);
  const files = encodeURIComponent("./src/app.ts,src//app.ts, /src/free.ts");
  const res = await call("GET", `/claim/check?files=${files}`, { token: b.token });
  assert.equal(res.status, 200, res.text);
  assert.deepEqual(
    res.body.data.files.map((f: { file: string; available: boolean }) => [f.file, f.available]),
    [["src/app.ts", false], ["src/free.ts", true]],
  );
  for (const bad of ["../../etc/passwd", "src/a.ts,a/../../x", "src/a.ts,,src/b.ts"]) {
    const refused = await call("GET", `/claim/check?files=${encodeURIComponent(bad)}`, { token: b.token });
    assert.equal(refused.status, 400, bad);
    assert.equal(refused.body.error.code, "VALIDATION_ERROR");
    assert.match(refused.body.error.details.fields[0].path, /^files\.\d+$/);
  }
});

test("CLAIM-031 POST /release accepts any spelling of a held file and answers the canonical form", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  await claim(a.token, ["src/app.ts"]);
  const res = await call("POST", "/release", { token: a.token, body: { files: ["./src\\x\\..\\app.ts "] } });
  assert.equal(res.status, 200, res.text);
  assert.deepEqual(res.body.data.released, ["src/app.ts"]);
  assert.deepEqual(await liveFiles(projectId), []);
  const bad = await call("POST", "/release", { token: a.token, body: { files: ["../../etc/passwd"] } });
  assert.equal(bad.status, 400);
  assert.equal(bad.body.error.code, "VALIDATION_ERROR");
});

test("TKT-012 expectedFiles are stored canonical on create and batch; escaping paths answer 400", async () => {
  const s = await setup();
  const created = await call("POST", "/ticket", {
    token: s.agent.token,
    body: ticketBody({ expectedFiles: [" ./src/a.ts", "src\\b.ts", "src/a.ts"] }),
  });
  assert.equal(created.status, 201, created.text);
  assert.deepEqual(created.body.data.expectedFiles, ["src/a.ts", "src/b.ts"]);
  assert.deepEqual((await ticketRow(created.body.data.id)).expected_files, ["src/a.ts", "src/b.ts"]);

  const refused = await call("POST", "/ticket", {
    token: s.agent.token,
    body: ticketBody({ expectedFiles: ["src/a.ts", "a/../../x"] }),
  });
  assert.equal(refused.status, 400);
  assert.equal(refused.body.error.code, "VALIDATION_ERROR");
  assert.equal(refused.body.error.details.fields[0].path, "expectedFiles.1");

  const batch = await call("POST", "/ticket/batch", {
    token: s.agent.token,
    body: { tickets: [ticketBody({ expectedFiles: ["lib//c.ts"] })] },
  });
  assert.ok(batch.status < 300, batch.text);
  const batchId = batch.body.data.created?.[0]?.id ?? batch.body.data.tickets?.[0]?.id ??
    batch.body.data.results?.[0]?.id;
  assert.ok(batchId, batch.text);
  assert.deepEqual((await ticketRow(batchId)).expected_files, ["lib/c.ts"]);
});

test("TKT-072 reviewHandoff changedFiles are stored canonical", async () => {
  const b = await board();
  const t = await ticket(b, { status: "in_progress", assignee: b.dev.agentId, tested: true });
  const res = await patch(b.dev.token, {
    ticketId: t.id,
    action: "submit_for_review",
    reviewHandoff: { ...HANDOFF, changedFiles: ["./src/a.ts", "src\\a.ts", "src/b.ts/"] },
  });
  assert.equal(res.status, 200, res.text);
  assert.deepEqual((await ticketRow(t.id)).review_handoff.changedFiles, ["src/a.ts", "src/b.ts"]);
});

test("LEDGER-021 fileRef and blockedByFile are stored canonical, single and batch; escaping paths answer 400", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const { db } = await env();
  const one = await call("POST", "/ledger", {
    token: a.token,
    body: { type: "FOUND", content: "cache key", fileRef: "./src//cache.ts", lineRef: 3 },
  });
  assert.equal(one.status, 201, one.text);
  const row = await db.selectFrom("ledger_entries").select("file_ref").where("id", "=", one.body.data.id)
    .executeTakeFirstOrThrow();
  assert.equal(row.file_ref, "src/cache.ts");

  const bad = await call("POST", "/ledger", {
    token: a.token,
    body: { type: "FOUND", content: "x", fileRef: "../../etc/passwd" },
  });
  assert.equal(bad.status, 400);
  assert.equal(bad.body.error.code, "VALIDATION_ERROR");
  assert.equal(bad.body.error.details.fields[0].path, "fileRef");

  const batch = await call("POST", "/ledger/batch", {
    token: a.token,
    body: {
      entries: [
        { type: "FOUND", content: "batched", fileRef: "src\\batch.ts" },
        { type: "FOUND", content: "escapes", fileRef: "a/../../x" },
      ],
    },
  });
  assert.ok(batch.status < 300, batch.text);
  const [first, second] = batch.body.data.results;
  assert.equal(first.ok, true);
  assert.equal(second.ok, false);
  assert.equal(second.error.code, "VALIDATION_ERROR");
  const batched = await db.selectFrom("ledger_entries").select("file_ref").where("id", "=", first.id)
    .executeTakeFirstOrThrow();
  assert.equal(batched.file_ref, "src/batch.ts");

  const blocked = await call("POST", "/ledger", {
    token: a.token,
    body: { type: "BLOCKED", content: "waiting on the schema", blockedByFile: "./db//schema.sql" },
  });
  assert.equal(blocked.status, 201, blocked.text);
  const blockedRow = await db.selectFrom("ledger_entries").selectAll().where("id", "=", blocked.body.data.id)
    .executeTakeFirstOrThrow();
  assert.ok(JSON.stringify(blockedRow).includes("db/schema.sql"), JSON.stringify(blockedRow));
  assert.ok(!JSON.stringify(blockedRow).includes("./db//schema.sql"));
});

test("THREAD-017 thread expectedFiles are stored and answered canonical", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const res = await call("POST", "/thread", {
    token: a.token,
    body: { intent: "Who owns the router", expectedFiles: ["./src/router.ts", "src//router.ts", "x\\y.ts"] },
  });
  assert.equal(res.status, 201, res.text);
  const { db } = await env();
  const row = await db.selectFrom("threads").select("expected_files").where("project_id", "=", projectId)
    .executeTakeFirstOrThrow();
  assert.deepEqual(row.expected_files, ["src/router.ts", "x/y.ts"]);
  const bad = await call("POST", "/thread", {
    token: a.token,
    body: { intent: "escape", expectedFiles: ["../../etc/passwd"] },
  });
  assert.equal(bad.status, 400);
  assert.equal(bad.body.error.code, "VALIDATION_ERROR");
});
