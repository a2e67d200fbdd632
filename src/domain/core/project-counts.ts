import { type RawBuilder, sql } from "kysely";
import type { DbOrTrx } from "@/db/database.ts";

/**
 * Counts kept by trigger (migration 0028, issue 27.4): `ticket` and `pickable` (unassigned, not
 * human-only) by status, `thread` by status. A count is the folded `project_counts.n` plus the
 * `project_count_deltas` written since, so reading one costs the project's few keys and the writes of
 * the last fold interval, not its history.
 */
export type CountKind = "ticket" | "pickable" | "thread";

/** Deltas a read may meet before it folds them itself (the worker folds them about every second). */
export const FOLD_AFTER_DELTAS = 500;
/** Deltas one fold moves at most. */
const FOLD_BATCH = 20_000;
/** Advisory lock key of the fold: one fold at a time in the database (concurrent ones skip). */
const FOLD_LOCK = 270_428;

function parts(db: DbOrTrx, projectId: string, kind: CountKind) {
  return db.selectFrom("project_counts").select(["key", sql<number>`n`.as("n"), sql<number>`0`.as("deltas")])
    .where("project_id", "=", projectId).where("kind", "=", kind)
    .unionAll(
      db.selectFrom("project_count_deltas").select([
        "key",
        sql<number>`d`.as("n"),
        sql<number>`1`.as("deltas"),
      ])
        .where("project_id", "=", projectId).where("kind", "=", kind),
    );
}

/** `(key, n)` of every non-zero count of one kind in the project (as `count(*) ... GROUP BY key` gives). */
export function countsQuery(db: DbOrTrx, projectId: string, kind: CountKind) {
  return db.selectFrom(parts(db, projectId, kind).as("u"))
    .select(["u.key", sql<number>`sum(u.n)::int`.as("n")])
    .groupBy("u.key").having(sql`sum(u.n)`, "<>", 0);
}

/** The sum of the counts of `keys` (every key when null), as an int expression of a larger statement. */
export function countSum(
  db: DbOrTrx,
  projectId: string,
  kind: CountKind,
  keys: readonly string[] | null,
): RawBuilder<number> {
  const u = parts(db, projectId, kind);
  const only = keys === null ? sql`` : sql`WHERE u.key IN (${sql.join([...keys])})`;
  return sql<number>`(SELECT coalesce(sum(u.n), 0)::int FROM (${u}) AS u ${only})`;
}

/**
 * The counts of one kind by key. A read that meets more than `FOLD_AFTER_DELTAS` deltas folds them
 * first (the worker normally has), so the next reads are cheap again.
 */
export async function readCounts(
  db: DbOrTrx,
  projectId: string,
  kind: CountKind,
): Promise<Map<string, number>> {
  const rows = await db.selectFrom(parts(db, projectId, kind).as("u"))
    .select(["u.key", sql<number>`sum(u.n)::int`.as("n"), sql<number>`sum(u.deltas)::int`.as("deltas")])
    .groupBy("u.key").execute();
  if (rows.reduce((s, r) => s + Number(r.deltas), 0) > FOLD_AFTER_DELTAS) await foldCounts(db);
  return new Map(rows.filter((r) => Number(r.n) !== 0).map((r) => [r.key, Number(r.n)]));
}

/**
 * Folds the oldest deltas into `project_counts`, in one statement (so at once for every reader), under
 * a transaction-scoped advisory lock: a fold that finds another under way does nothing. Deltas of
 * uncommitted writes are not visible, so they stay for a later fold. Returns the deltas moved.
 */
export async function foldCounts(db: DbOrTrx): Promise<number> {
  const result = await sql<
    { moved: number }
  >`WITH lock AS (SELECT pg_try_advisory_xact_lock(${FOLD_LOCK}) AS ok),
    moved AS (DELETE FROM project_count_deltas WHERE (SELECT ok FROM lock)
        AND id IN (SELECT id FROM project_count_deltas ORDER BY id LIMIT ${FOLD_BATCH})
      RETURNING project_id, kind, key, d),
    folded AS (INSERT INTO project_counts (project_id, kind, key, n)
      SELECT m.project_id, m.kind, m.key, sum(m.d) FROM moved m
      WHERE EXISTS (SELECT 1 FROM projects p WHERE p.id = m.project_id)
      GROUP BY m.project_id, m.kind, m.key ORDER BY m.project_id, m.kind, m.key
      ON CONFLICT (project_id, kind, key) DO UPDATE SET n = project_counts.n + excluded.n
      RETURNING 1)
    SELECT (SELECT count(*)::int FROM moved) AS moved, (SELECT count(*) FROM folded) AS folded`.execute(db);
  return Number(result.rows[0]?.moved ?? 0);
}
