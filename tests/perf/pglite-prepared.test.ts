import assert from "node:assert/strict";
import { PGlite } from "@electric-sql/pglite";
import { Kysely, PGliteDialect, sql } from "kysely";
import { withPreparedStatements } from "@/db/pglite-prepared.ts";
import { test } from "../helpers/mod.ts";

/**
 * Issue 27 (PGlite's share of the CPU): on the embedded engine every statement runs as a named prepared
 * statement, parsed once. Results, errors, transactions and DDL must behave exactly as PGlite's `query()`.
 */

// deno-lint-ignore no-explicit-any
type Any = any;

async function open(max?: number) {
  const raw = new PGlite();
  const pglite = withPreparedStatements(raw, max);
  const db = new Kysely<Any>({ dialect: new PGliteDialect({ pglite }) });
  await sql`CREATE TABLE t (id int PRIMARY KEY, name text, ok boolean, at timestamptz, doc jsonb)`.execute(
    db,
  );
  return { raw, pglite, db };
}

const prepared = async (raw: PGlite) =>
  (await raw.query<{ statement: string }>("SELECT statement FROM pg_prepared_statements")).rows.map((r) =>
    r.statement
  );

test("PERF2-3 PGlite prepared statements: the same rows, types and counts as query(), parsed once per text", async () => {
  const { raw, pglite, db } = await open();
  const at = new Date("2026-03-01T10:00:00Z");
  for (let i = 1; i <= 3; i++) {
    await db.insertInto("t").values({ id: i, name: `n${i}`, ok: i % 2 === 0, at, doc: JSON.stringify({ i }) })
      .execute();
  }
  await db.insertInto("t").values({ id: 4, name: null, ok: null, at: null, doc: null }).execute();
  const text = "SELECT id, name, ok, at, doc FROM t WHERE id >= $1 ORDER BY id";
  const viaPrepared = await pglite.query(text, [2]);
  const viaQuery = await raw.query(text, [2]);
  assert.deepEqual(viaPrepared.rows, viaQuery.rows);
  assert.deepEqual(viaPrepared.rows[0], { id: 2, name: "n2", ok: true, at, doc: { i: 2 } });
  const updated = await db.updateTable("t").set({ name: "x" }).where("id", "<", 3).executeTakeFirst();
  assert.equal(updated.numUpdatedRows, 2n);
  const texts = await prepared(raw);
  assert.equal(texts.filter((s) => s === text).length, 1, "one named statement for the text");
  await pglite.query(text, [1]);
  assert.equal((await prepared(raw)).filter((s) => s === text).length, 1, "reused, not parsed again");
});

test("PERF2-3 PGlite prepared statements: an error is the database's, and the instance stays usable in and out of transactions", async () => {
  const { db } = await open();
  await db.insertInto("t").values({ id: 1, name: "a" }).execute();
  await assert.rejects(db.insertInto("t").values({ id: 1, name: "again" }).execute(), { code: "23505" });
  assert.equal((await db.selectFrom("t").select("name").execute()).length, 1, "usable after an error");
  await assert.rejects(
    db.transaction().execute(async (trx) => {
      await trx.insertInto("t").values({ id: 2, name: "rolled back" }).execute();
      await trx.insertInto("t").values({ id: 1, name: "duplicate" }).execute();
    }),
    { code: "23505" },
  );
  const rows = await db.selectFrom("t").select("id").orderBy("id").execute();
  assert.deepEqual(rows, [{ id: 1 }], "the transaction's first insert was rolled back");
  await db.transaction().execute(async (trx) => {
    await trx.insertInto("t").values({ id: 3, name: "kept" }).execute();
  });
  assert.equal((await db.selectFrom("t").select("id").where("id", "=", 3).execute()).length, 1);
  await assert.rejects(db.selectFrom("nope" as Any).selectAll().execute(), { code: "42P01" });
  assert.equal((await db.selectFrom("t").select("id").execute()).length, 2, "usable after a parse error");
});

test("PERF2-3 PGlite prepared statements: a table changed by DDL is read again, and the cache stays within its bound", async () => {
  const { raw, pglite, db } = await open(3);
  await db.insertInto("t").values({ id: 1, name: "a" }).execute();
  const before = await pglite.query<Record<string, unknown>>("SELECT * FROM t");
  assert.equal("extra" in before.rows[0]!, false);
  await sql`ALTER TABLE t ADD COLUMN extra int DEFAULT 7`.execute(db);
  const after = await pglite.query<Record<string, unknown>>("SELECT * FROM t");
  assert.equal(after.rows[0]!.extra, 7, "the stale plan was prepared again");
  for (let i = 0; i < 10; i++) await pglite.query(`SELECT ${i} AS n, id FROM t WHERE id = $1`, [1]);
  assert.ok((await prepared(raw)).length <= 3, "least recently used statements are closed");
});
