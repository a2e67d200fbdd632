import assert from "node:assert/strict";
import { sql } from "kysely";
import { openDatabase } from "@/db/dialect.ts";
import { migrateTo, migrateToLatest } from "@/db/migrate.ts";
import { env, test } from "../helpers/mod.ts";

/** A fresh database on the engine under test (PGlite in memory, or a new PostgreSQL database). */
async function freshDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const e = await env();
  if (e.engine !== "postgres") return { url: "memory://", drop: () => Promise.resolve() };
  const name = `proof_fences_${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;
  await sql.raw(`CREATE DATABASE ${name}`).execute(e.db);
  const base = new URL(Deno.env.get("TEST_DATABASE_URL")!);
  base.pathname = `/${name}`;
  return { url: base.href, drop: async () => void await sql.raw(`DROP DATABASE ${name}`).execute(e.db) };
}

test("PROOF-1 migration 0027: existing claimed files get fences in claim order; the next grant's is greater", async () => {
  const fresh = await freshDatabase();
  const opened = await openDatabase(fresh.url, "");
  try {
    const db = opened.db;
    await migrateTo(db, "0021_claim_paths");
    await sql`SET session_replication_role = replica`.execute(db); // no parents needed for this check
    const projectId = crypto.randomUUID();
    const at = (m: number) => new Date(Date.now() + m * 60_000);
    const older = crypto.randomUUID();
    const newer = crypto.randomUUID();
    const row = (id: string, claimedAt: Date) => ({
      id,
      project_id: projectId,
      agent_id: crypto.randomUUID(),
      claimed_at: claimedAt,
      expires_at: at(30),
    });
    await db.insertInto("claims").values([row(newer, at(-5)), row(older, at(-20))]).execute();
    await sql`INSERT INTO claim_files (claim_id, project_id, file) VALUES
      (${newer}::uuid, ${projectId}::uuid, 'src/n.ts'),
      (${older}::uuid, ${projectId}::uuid, 'src/o2.ts'),
      (${older}::uuid, ${projectId}::uuid, 'src/o1.ts')`.execute(db);
    await sql`SET session_replication_role = origin`.execute(db);
    await migrateToLatest(db);
    const rows = await db.selectFrom("claim_files").select(["file", "fence"]).orderBy("fence").execute();
    assert.deepEqual(rows.map((r) => [r.file, Number(r.fence)]), [["src/o1.ts", 1], ["src/o2.ts", 2], [
      "src/n.ts",
      3,
    ]]);
    await sql`SET session_replication_role = replica`.execute(db);
    const next = await sql<{ fence: string }>`INSERT INTO claim_files (claim_id, project_id, file)
      VALUES (${newer}::uuid, ${projectId}::uuid, 'src/next.ts') RETURNING fence`.execute(db);
    assert.equal(Number(next.rows[0]!.fence), 4);
  } finally {
    await opened.close();
    await fresh.drop();
  }
});
