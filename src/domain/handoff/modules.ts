import { sql } from "kysely";
import type { DbOrTrx } from "@/db/database.ts";

/**
 * `modulesDone`: the distinct module names handed off in the project (DONE entries written by a
 * handoff carry `payload.moduleName`; a module handed off twice counts once).
 */
export async function countModulesDone(db: DbOrTrx, projectId: string): Promise<number> {
  const row = await db.selectFrom("ledger_entries")
    .select(sql<number>`count(distinct payload->>'moduleName')::int`.as("n"))
    .where("project_id", "=", projectId).where("type", "=", "DONE")
    .where(sql<boolean>`payload->>'kind' = 'handoff'`).executeTakeFirst();
  return Number(row?.n ?? 0);
}
