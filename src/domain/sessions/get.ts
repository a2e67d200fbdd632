import { sql } from "kysely";
import type { ActorCtx } from "@/domain/core/context.ts";
import { paginationOf } from "@/domain/core/pagination.ts";
import { loadReadableSession } from "./access.ts";
import { toActivity, toSession } from "./serialize.ts";

export interface ActivityPage {
  limit: number;
  offset: number;
}

/**
 * GET /session/:sessionId: the session and its activities, oldest first, offset-paginated.
 * Own sessions; orchestrators any session of the project; anything else 404.
 */
export async function getSession(ctx: ActorCtx, sessionId: string, page: ActivityPage) {
  const { row, agentName } = await loadReadableSession(ctx, sessionId);
  const activities = await ctx.db.selectFrom("session_activities").selectAll()
    .where("session_id", "=", row.id).orderBy("seq", "asc")
    .limit(page.limit).offset(page.offset).execute();
  const { total } = await ctx.db.selectFrom("session_activities").select(
    sql<number>`count(*)::int`.as("total"),
  )
    .where("session_id", "=", row.id).executeTakeFirstOrThrow();
  return {
    session: toSession(row, agentName),
    activities: activities.map(toActivity),
    pagination: paginationOf(page, activities.length, total),
  };
}
