import assert from "node:assert/strict";
import { call, env, newProject, pairAgent, test } from "../helpers/mod.ts";
import { board, liveFiles, ticket } from "../workflow/fixtures.ts";
import { create, setup } from "../tickets/_helpers.ts";
import { insertClaim } from "../helpers/fixtures.ts";

// Issue 24 point 5 over HTTP: directory and symbol entries wherever a claimable file is accepted.

async function claim(token: string, files: string[]) {
  return await call("POST", "/claim", { token, body: { files } });
}

async function check(token: string, files: string[]) {
  const res = await call("GET", `/claim/check?files=${encodeURIComponent(files.join(","))}`, { token });
  assert.equal(res.status, 200, res.text);
  return res.body.data.files as Array<Record<string, unknown> & { file: string; available: boolean }>;
}

async function projectLive(projectId: string): Promise<string[]> {
  const { db } = await env();
  const rows = await db.selectFrom("claim_files").select("file").where("project_id", "=", projectId)
    .where("released_at", "is", null).execute();
  return rows.map((r) => r.file).sort();
}

test("CLAIMQ-5 a directory claimed by A: B's file under it, B's directory above it and B's file of its path answer 409 naming A", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const b = await pairAgent(projectId);
  const taken = await claim(a.token, ["src/auth/"]);
  assert.equal(taken.status, 200, taken.text);
  assert.deepEqual(taken.body.data.claims.map((c: { file: string }) => c.file), ["src/auth/**"]);
  for (const asked of ["src/auth/token.ts", "SRC/Auth/deep/x.ts#parse", "src/", "src/auth", "src/auth/**"]) {
    const res = await claim(b.token, ["src/free.ts", asked]);
    assert.equal(res.status, 409, `${asked}: ${res.text}`);
    assert.equal(res.body.error.code, "CONFLICT");
    const conflicts = res.body.error.details.conflicts as Array<{ file: string; claimantName: string }>;
    assert.equal(conflicts.length, 1, res.text);
    assert.equal(conflicts[0]!.claimantName, a.name);
    assert.match(res.body.error.details.conflicts[0].warning, /src\/auth\/\*\*/);
  }
  for (const free of ["src/authz/x.ts", "src/auth.ts", "lib/auth/x.ts"]) {
    assert.equal((await claim(b.token, [free])).status, 200, free);
  }
  assert.deepEqual(await projectLive(projectId), [
    "lib/auth/x.ts",
    "src/auth.ts",
    "src/auth/**",
    "src/authz/x.ts",
  ]);
});

test("CLAIMQ-5 a file claimed by A: B's directory above it answers 409; two symbols of one file are both granted, the same symbol and the whole file are not", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const b = await pairAgent(projectId);
  const c = await pairAgent(projectId);
  assert.equal((await claim(a.token, ["src/lib/util.ts"])).status, 200);
  const above = await claim(b.token, ["src/lib/"]);
  assert.equal(above.status, 409, above.text);
  assert.equal(above.body.error.details.conflicts[0].file, "src/lib/**");
  assert.equal(above.body.error.details.conflicts[0].claimantName, a.name);
  assert.equal((await claim(b.token, ["src/lib/util.ts#format"])).status, 409, "a symbol of a held file");

  assert.equal((await claim(a.token, ["src/token.ts#parseToken"])).status, 200);
  const second = await claim(b.token, ["src/token.ts#formatToken"]);
  assert.equal(second.status, 200, second.text);
  assert.equal((await claim(c.token, ["src/token.ts#ParseToken"])).status, 200, "symbols are case-sensitive");
  const same = await claim(c.token, ["SRC/token.ts#parseToken"]);
  assert.equal(same.status, 409, same.text);
  assert.equal(same.body.error.details.conflicts[0].claimantName, a.name);
  const whole = await claim(c.token, ["src/token.ts"]);
  assert.equal(whole.status, 409, whole.text);
  assert.equal(whole.body.error.details.conflicts[0].claimantName, a.name, "the earliest holder is named");

  const [file] = await check(c.token, ["src/token.ts"]);
  assert.equal(file!.available, false);
  assert.equal(file!.claimant, a.name);
  assert.deepEqual(file!.holders, [
    { file: "src/token.ts#parseToken", claimant: a.name },
    { file: "src/token.ts#formatToken", claimant: b.name },
    { file: "src/token.ts#ParseToken", claimant: c.name },
  ]);
});

test("CLAIMQ-5 GET /claim/check answers directories and symbols with every overlapping holder", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const b = await pairAgent(projectId);
  assert.equal((await claim(a.token, ["src/a/x.ts", "src/a/y.ts#f"])).status, 200);
  assert.equal((await claim(b.token, ["src/a/z/"])).status, 200);
  const files = await check(b.token, ["src/a/", "src/a/y.ts#g", "src/a/y.ts", "src/a/z/q.ts#h", "src/b/"]);
  assert.deepEqual(files.map((f) => [f.file, f.available]), [
    ["src/a/**", false],
    ["src/a/y.ts#g", true],
    ["src/a/y.ts", false],
    ["src/a/z/q.ts#h", false],
    ["src/b/**", true],
  ]);
  assert.deepEqual(
    (files[0]!.holders as Array<{ file: string }>).map((h) => h.file).sort(),
    ["src/a/x.ts", "src/a/y.ts#f", "src/a/z/**"],
  );
  assert.deepEqual(files[2]!.holders, [{ file: "src/a/y.ts#f", claimant: a.name }]);
  assert.equal(files[3]!.isSelf, true);
  assert.equal(files[1]!.holders, undefined);
  for (const bad of ["src/a.ts#", "src/*.ts", "src/a.ts#x-y"]) {
    const res = await call("GET", `/claim/check?files=${encodeURIComponent(bad)}`, { token: b.token });
    assert.equal(res.status, 400, `${bad}: ${res.text}`);
    assert.equal(res.body.error.code, "VALIDATION_ERROR");
  }
});

test("CLAIMQ-5 invalid entries answer 400 VALIDATION_ERROR on POST /claim, POST /release and in expectedFiles", async () => {
  const s = await setup();
  for (const bad of ["src/a.ts#", "src/a.ts#a b", "src/#x/a.ts", "src/*.ts", "src/**/a.ts", "src/auth/#f"]) {
    const res = await claim(s.agent.token, ["src/ok.ts", bad]);
    assert.equal(res.status, 400, `${bad}: ${res.text}`);
    assert.equal(res.body.error.code, "VALIDATION_ERROR");
    const rel = await call("POST", "/release", { token: s.agent.token, body: { files: [bad] } });
    assert.equal(rel.status, 400, `${bad}: ${rel.text}`);
    const t = await call("POST", "/ticket", {
      token: s.agent.token,
      body: {
        title: "Bad entry",
        expectedFiles: [bad],
        doneDefinition: "x",
        verificationCommand: "deno test",
        riskClass: "local",
      },
    });
    assert.equal(t.status, 400, `${bad}: ${t.text}`);
  }
  const made = await create(s.agent.token, {
    expectedFiles: ["./src/auth/", "src/auth/**", "src//token.ts#parseToken", "app/[id]/page.tsx"],
  });
  assert.deepEqual(made.expectedFiles, ["src/auth/**", "src/token.ts#parseToken", "app/[id]/page.tsx"]);
});

test("CLAIMQ-5 same agent: a directory then a file inside it is allowed (its own entry); releasing the directory keeps the file", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const b = await pairAgent(projectId);
  assert.equal((await claim(a.token, ["src/auth/"])).status, 200);
  const inside = await claim(a.token, ["src/auth/token.ts", "src/auth/token.ts#parse"]);
  assert.equal(inside.status, 200, inside.text);
  assert.equal(inside.body.data.idempotent, undefined);
  const again = await claim(a.token, ["src/auth/**"]);
  assert.equal(again.status, 200, again.text);
  assert.equal(again.body.data.idempotent, true, "the same directory is a renewal");
  assert.deepEqual(await projectLive(projectId), [
    "src/auth/**",
    "src/auth/token.ts",
    "src/auth/token.ts#parse",
  ]);
  const released = await call("POST", "/release", { token: a.token, body: { files: ["SRC/auth/"] } });
  assert.equal(released.status, 200, released.text);
  assert.deepEqual(released.body.data.released, ["src/auth/**"]);
  assert.deepEqual(await projectLive(projectId), ["src/auth/token.ts", "src/auth/token.ts#parse"]);
  assert.equal((await claim(b.token, ["src/auth/other.ts"])).status, 200);
  assert.equal(
    (await claim(b.token, ["src/auth/token.ts#format"])).status,
    409,
    "the whole file is still A's",
  );
});

test("CLAIMQ-5 POST /begin claims a directory and refuses one that overlaps another agent's file", async () => {
  const b = await board();
  const t = await ticket(b, { status: "backlog" });
  assert.equal((await claim(b.other.token, ["src/held/x.ts"])).status, 200);
  const refused = await call("POST", "/begin", {
    token: b.dev.token,
    body: { ticketId: t.ref, files: ["src/held/"] },
  });
  assert.equal(refused.status, 409, refused.text);
  assert.equal(refused.body.error.code, "CONFLICT");
  assert.equal(refused.body.error.details.conflicts[0].file, "src/held/**");
  const res = await call("POST", "/begin", {
    token: b.dev.token,
    body: { ticketId: t.ref, files: ["src/mine/", "src/held/x.ts#other"] },
  });
  assert.equal(res.status, 409, "a symbol of a file held whole");
  const ok = await call("POST", "/begin", {
    token: b.dev.token,
    body: { ticketId: t.ref, files: ["src/mine/"] },
  });
  assert.equal(ok.status, 200, ok.text);
  assert.deepEqual(await liveFiles(b, b.dev.agentId), ["src/mine/**"]);
  assert.equal((await claim(b.other.token, ["src/mine/a.ts"])).status, 409);
});

test("CLAIMQ-5 the board's collisionWarnings count directory and symbol overlaps with expectedFiles", async () => {
  const s = await setup();
  const other = await pairAgent(s.projectId);
  await create(other.token, { assignToSelf: true, expectedFiles: ["src/auth/token.ts", "lib/x.ts#f"] });
  await create(other.token, { assignToSelf: true, expectedFiles: ["docs/"] });
  await insertClaim(s.projectId, {
    agentId: s.agent.agentId,
    files: ["SRC/auth/**", "lib/x.ts#g", "docs/a.md"],
  });
  const res = await call("GET", "/board", { token: s.agent.token });
  assert.equal(res.status, 200, res.text);
  const warnings = res.body.data.collisionWarnings;
  assert.equal(warnings.length, 1, JSON.stringify(warnings));
  assert.deepEqual(warnings[0].conflictingFiles, ["docs/**", "src/auth/token.ts"]);
  assert.equal(warnings[0].tickets.length, 2);
});
