import assert from "node:assert/strict";
import { sql } from "kysely";
import { openDatabase } from "@/db/dialect.ts";
import { migrateTo, migrateToLatest } from "@/db/migrate.ts";
import { checkPath } from "@/shared/file-path.ts";
import { admin, call, env, newProject, pairAgent, test } from "../helpers/mod.ts";

// Paths that differ only in letter case are one file for claims (issue 22, point 3); paths with an
// invisible format character (Unicode category Cf) are refused like other invalid paths.

async function claim(token: string, files: string[]) {
  return await call("POST", "/claim", { token, body: { files } });
}

async function liveFiles(projectId: string): Promise<string[]> {
  const { db } = await env();
  const rows = await db.selectFrom("claim_files").select("file").where("project_id", "=", projectId)
    .where("released_at", "is", null).execute();
  return rows.map((r) => r.file).sort();
}

const INVISIBLE = [
  "src/a\u200b.ts",
  "\ufeffsrc/a.ts",
  "src/\u202egnp.ts",
  "src/a\u00ad.ts",
  "src/\u2060a.ts",
];

test("CLAIM-019 a file held as SRC/A.ts answers 409 CONFLICT with its holder to src/a.ts; the claim keeps its spelling", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const b = await pairAgent(projectId);
  const first = await claim(a.token, ["SRC/A.ts"]);
  assert.equal(first.status, 200, first.text);
  assert.deepEqual(first.body.data.claims.map((c: { file: string }) => c.file), ["SRC/A.ts"]);
  const res = await claim(b.token, ["src/b.ts", "src/a.ts"]);
  assert.equal(res.status, 409, res.text);
  assert.equal(res.body.error.code, "CONFLICT");
  const [conflict, ...rest] = res.body.error.details.conflicts;
  assert.equal(rest.length, 0);
  assert.equal(conflict.file, "src/a.ts");
  assert.equal(conflict.claimantName, a.name);
  assert.equal(conflict.recovery.action, "wait");
  assert.match(conflict.warning, /SRC\/A\.ts/);
  assert.deepEqual(await liveFiles(projectId), ["SRC/A.ts"], "all or nothing: src/b.ts was not claimed");
});

test("CLAIM-027 GET /claim/check of src/A.ts reports the claim on SRC/A.ts (under the spelling asked)", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const b = await pairAgent(projectId);
  assert.equal((await claim(a.token, ["SRC/A.ts"])).status, 200);
  const res = await call("GET", "/claim/check?files=src/A.ts,src/other.ts", { token: b.token });
  assert.equal(res.status, 200, res.text);
  const [held, free] = res.body.data.files;
  assert.equal(held.file, "src/A.ts");
  assert.equal(held.available, false);
  assert.equal(held.claimant, a.name);
  assert.equal(held.isSelf, false);
  assert.deepEqual(free, { file: "src/other.ts", available: true });
});

test("CLAIM-015 re-claiming under another letter case renews the claim; spellings of one file in a request count once", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  assert.equal((await claim(a.token, ["SRC/A.ts"])).status, 200);
  const again = await claim(a.token, ["src/a.ts"]);
  assert.equal(again.status, 200, again.text);
  assert.equal(again.body.data.idempotent, true);
  assert.equal(again.body.data.renewed, true);
  assert.deepEqual(again.body.data.claims.map((c: { file: string }) => c.file), ["SRC/A.ts"]);
  const both = await claim(a.token, ["lib/X.ts", "lib/x.ts", "LIB/X.TS"]);
  assert.equal(both.status, 200, both.text);
  assert.deepEqual(both.body.data.claims.map((c: { file: string }) => c.file), ["lib/X.ts"]);
  assert.deepEqual(await liveFiles(projectId), ["SRC/A.ts", "lib/X.ts"]);
});

test("CLAIM-031 POST /release by the holder matches its claims without regard to letter case", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const b = await pairAgent(projectId);
  assert.equal((await claim(a.token, ["SRC/A.ts", "src/b.ts"])).status, 200);
  const other = await call("POST", "/release", { token: b.token, body: { files: ["src/a.ts"] } });
  assert.deepEqual(other.body.data.released, [], "only the caller's own claims");
  const res = await call("POST", "/release", { token: a.token, body: { files: ["src/a.TS"] } });
  assert.equal(res.status, 200, res.text);
  assert.deepEqual(res.body.data.released, ["SRC/A.ts", "src/b.ts"]);
  assert.deepEqual(await liveFiles(projectId), []);
});

test("CLAIM-023 concurrent claims of SRC/A.ts, src/a.ts and Src/A.TS by three agents: exactly one wins (the one-holder index folds case)", async () => {
  const { projectId } = await newProject();
  const keys = await Promise.all(
    ["upper", "lower", "mixed"].map((name) =>
      admin("POST", `/projects/${projectId}/api-keys`, { agentName: name })
    ),
  );
  const spellings = ["SRC/A.ts", "src/a.ts", "Src/A.TS"];
  const results = await Promise.all(keys.map((k, i) => claim(k.key, [spellings[i]!, `own/${i}.ts`])));
  const statuses = results.map((r) => r.status);
  assert.deepEqual([...statuses].sort(), [200, 409, 409], results.map((r) => r.text).join("\n"));
  const winner = statuses.indexOf(200);
  assert.deepEqual(await liveFiles(projectId), [spellings[winner]!, `own/${winner}.ts`].sort());
  const { db } = await env();
  const dup = await sql`INSERT INTO claim_files (claim_id, project_id, file)
    SELECT claim_id, project_id, upper(file) FROM claim_files
    WHERE project_id = ${projectId}::uuid AND released_at IS NULL AND file = ${spellings[winner]!}`.execute(
    db,
  )
    .then(() => null, (e: Error) => e);
  assert.match(String(dup?.message), /claim_files_one_holder|duplicate key/);
});

test("CLAIM-007 a path with an invisible format character (Unicode Cf) answers 400 VALIDATION_ERROR, as other invalid paths", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  for (const bad of INVISIBLE) {
    assert.equal(checkPath(bad).ok, false, JSON.stringify(bad));
    const res = await claim(a.token, ["src/ok.ts", bad]);
    assert.equal(res.status, 400, `${JSON.stringify(bad)}: ${res.text}`);
    assert.equal(res.body.error.code, "VALIDATION_ERROR");
    const field = res.body.error.details.fields.find((f: { path: string }) => f.path === "files.1");
    assert.match(field?.message ?? "", /invisible format characters/, JSON.stringify(res.body.error));
    const check = await call("GET", `/claim/check?files=${encodeURIComponent(bad)}`, { token: a.token });
    assert.equal(check.status, 400, check.text);
    assert.equal(check.body.error.code, "VALIDATION_ERROR");
    const release = await call("POST", "/release", { token: a.token, body: { files: [bad] } });
    assert.equal(release.status, 400, release.text);
  }
  assert.deepEqual(await liveFiles(projectId), []);
});

/** A fresh database on the engine under test (PGlite in memory, or a new PostgreSQL database). */
async function freshDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const e = await env();
  if (e.engine !== "postgres") return { url: "memory://", drop: () => Promise.resolve() };
  const name = `claims_case_${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;
  await sql.raw(`CREATE DATABASE ${name}`).execute(e.db);
  const base = new URL(Deno.env.get("TEST_DATABASE_URL")!);
  base.pathname = `/${name}`;
  return { url: base.href, drop: async () => void await sql.raw(`DROP DATABASE ${name}`).execute(e.db) };
}

test("migration 0021: live claims that collide once case-folded keep the live, oldest holder; the others are released", async () => {
  const fresh = await freshDatabase();
  const opened = await openDatabase(fresh.url, "");
  try {
    const db = opened.db;
    await migrateTo(db, "0020_context_bounded");
    await sql`SET session_replication_role = replica`.execute(db); // no parents needed for this check
    const projectId = crypto.randomUUID();
    const at = (m: number) => new Date(Date.now() + m * 60_000);
    const claims = { oldest: crypto.randomUUID(), newer: crypto.randomUUID(), expired: crypto.randomUUID() };
    const row = (id: string, claimedAt: Date, expiresAt: Date) => ({
      id,
      project_id: projectId,
      agent_id: crypto.randomUUID(),
      claimed_at: claimedAt,
      expires_at: expiresAt,
    });
    await db.insertInto("claims").values([
      row(claims.expired, at(-120), at(-60)),
      row(claims.oldest, at(-30), at(30)),
      row(claims.newer, at(-10), at(30)),
    ]).execute();
    const file = (claimId: string, f: string) => ({ claim_id: claimId, project_id: projectId, file: f });
    await db.insertInto("claim_files").values([
      file(claims.expired, "SRC/A.ts"),
      file(claims.oldest, "src/a.ts"),
      file(claims.newer, "Src/A.ts"),
      file(claims.newer, "src/b.ts"),
      file(claims.expired, "docs/x.md"),
    ]).execute();
    await sql`SET session_replication_role = origin`.execute(db);
    await migrateToLatest(db);
    const live = await db.selectFrom("claim_files").select(["claim_id", "file"])
      .where("released_at", "is", null).orderBy("file").execute();
    assert.deepEqual(live.map((r) => [r.file, r.claim_id]), [
      ["docs/x.md", claims.expired],
      ["src/a.ts", claims.oldest],
      ["src/b.ts", claims.newer],
    ]);
    const dup = await sql`INSERT INTO claim_files (claim_id, project_id, file)
      VALUES (${claims.newer}::uuid, ${projectId}::uuid, 'SRC/a.TS')`.execute(db).then(
      () => null,
      (e: Error) => e,
    );
    assert.match(String(dup?.message), /claim_files_one_holder|duplicate key/);
  } finally {
    await opened.close();
    await fresh.drop();
  }
});
