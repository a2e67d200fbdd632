import { sql } from "kysely";
import type { Clock } from "@/clock.ts";
import type { Db } from "@/db/database.ts";

/**
 * The test clock (`SVC_TEST_CLOCK=1`) keeps its offset in the database (`service_clock`), so that
 * `POST /admin/clock` on one instance moves the clock of every instance on the same database. Each
 * instance reads the offset at the start of every request and before each background run; `now()`
 * stays synchronous.
 */
export async function syncTestClock(db: Db, clock: Clock): Promise<void> {
  const row = await db.selectFrom("service_clock").select("offset_ms").executeTakeFirst();
  if (row) clock.catchUp(Number(row.offset_ms));
}

/** Moves the shared test clock forward by `ms` (one atomic update) and returns the new time. */
export async function advanceTestClock(db: Db, clock: Clock, ms: number): Promise<Date> {
  const row = await db.insertInto("service_clock").values({ id: true, offset_ms: String(ms) })
    .onConflict((oc) => oc.column("id").doUpdateSet({ offset_ms: sql`service_clock.offset_ms + ${ms}` }))
    .returning("offset_ms").executeTakeFirstOrThrow();
  clock.catchUp(Number(row.offset_ms));
  return clock.now();
}
