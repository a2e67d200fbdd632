import { type RawBuilder, sql } from "kysely";
import type { DbOrTrx } from "@/db/database.ts";

/**
 * Counts one hit of `key` in the fixed window of `windowMs` containing `now`, in the database so that
 * every instance shares it. Returns the count including this hit and when the window ends.
 */
export async function hitCounter(
  db: DbOrTrx,
  key: string,
  windowMs: number,
  now: Date,
  amount = 1,
): Promise<{ count: number; resetAt: Date }> {
  const hit = counterHit(key, windowMs, now, amount);
  const { rows } = await hit.query.execute(db);
  return { count: Number(rows[0]!.count), resetAt: hit.resetAt };
}

/**
 * The upsert of `hitCounter` as one statement (`INSERT ... RETURNING count`) to run alone or as a CTE
 * of a larger statement, with the end of its window.
 */
export function counterHit(
  key: string,
  windowMs: number,
  now: Date,
  amount = 1,
): { query: RawBuilder<{ count: number | string }>; resetAt: Date } {
  const start = new Date(Math.floor(now.getTime() / windowMs) * windowMs);
  const resetAt = new Date(start.getTime() + windowMs);
  const query = sql<
    { count: number | string }
  >`INSERT INTO rate_counters (key, window_start, count, expires_at)
    VALUES (${key}, ${start}::timestamptz, ${amount}, ${resetAt}::timestamptz)
    ON CONFLICT (key, window_start) DO UPDATE SET count = rate_counters.count + excluded.count
    RETURNING count`;
  return { query, resetAt };
}

/** Reads the count of `key` in the current window without counting a hit. */
export async function readCounter(db: DbOrTrx, key: string, windowMs: number, now: Date): Promise<number> {
  const start = new Date(Math.floor(now.getTime() / windowMs) * windowMs);
  const row = await db.selectFrom("rate_counters").select("count").where("key", "=", key)
    .where("window_start", "=", start).executeTakeFirst();
  return row ? Number(row.count) : 0;
}

export interface CounterHit {
  key: string;
  windowMs: number;
  amount?: number;
}

/** Counts several hits in one statement (one round trip); results in the order of `hits`. */
export async function hitCounters(
  db: DbOrTrx,
  hits: CounterHit[],
  now: Date,
): Promise<{ count: number; resetAt: Date }[]> {
  const rows = hits.map((h) => {
    const start = new Date(Math.floor(now.getTime() / h.windowMs) * h.windowMs);
    return {
      key: h.key,
      window_start: start,
      count: h.amount ?? 1,
      expires_at: new Date(start.getTime() + h.windowMs),
    };
  });
  const result = await db.insertInto("rate_counters").values(rows)
    .onConflict((oc) =>
      oc.columns(["key", "window_start"]).doUpdateSet({ count: sql`rate_counters.count + excluded.count` })
    )
    .returning(["key", "count"]).execute();
  const counts = new Map(result.map((r) => [r.key, Number(r.count)]));
  return rows.map((r) => ({ count: counts.get(r.key) ?? r.count, resetAt: r.expires_at }));
}
