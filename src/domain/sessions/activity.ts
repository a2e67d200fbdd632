import type { z } from "zod";
import { sql } from "kysely";
import type { ActivityInput as ActivityBody } from "@/contracts/sessions.ts";
import { recordEvent } from "@/domain/core/record-event.ts";
import type { ActorCtx } from "@/domain/core/context.ts";
import { hitCounter } from "@/domain/core/counters.ts";
import { DomainError, fail } from "@/domain/core/errors.ts";
import type { SessionStatus } from "@/db/tables/foundation.ts";
import { loadOwnSession } from "./access.ts";
import { OPEN_SESSION_STATUSES } from "./close.ts";

/** Per-session activity cap (SESS-071, documented design): 100 activities per 5-minute window. */
export const ACTIVITY_CAP = 100;
export const ACTIVITY_WINDOW_MS = 5 * 60_000;

/** POST /session/{sessionId}/activity's body, as the route has parsed it. */
export type ActivityInput = z.output<typeof ActivityBody>;

/** Status a session takes after an activity of this type (spec: Session statuses). */
export function statusAfter(type: ActivityInput["type"]): SessionStatus {
  if (type === "elicitation") return "awaiting_input";
  if (type === "error") return "error";
  return "active";
}

export function closedConflict(sessionId: string, status: string) {
  return fail.conflict(`Session ${sessionId} is ${status}; it takes no more changes`, { status });
}

/**
 * POST /session/:sessionId/activity. Sets the session status from the type, replaces any earlier
 * ephemeral activity, and refuses beyond the per-session cap with 429 BACKPRESSURE.
 */
export async function postActivity(ctx: ActorCtx, sessionId: string, input: ActivityInput) {
  const { row } = await loadOwnSession(ctx, sessionId, "an activity");
  if (!(OPEN_SESSION_STATUSES as readonly string[]).includes(row.status)) {
    throw closedConflict(row.id, row.status);
  }
  const now = ctx.clock.now();
  const hits = await hitCounter(ctx.db, `activity:session:${row.id}`, ACTIVITY_WINDOW_MS, now);
  if (hits.count > ACTIVITY_CAP) {
    const retryAfter = Math.max(1, Math.ceil((hits.resetAt.getTime() - now.getTime()) / 1000));
    throw new DomainError(
      "limited",
      "BACKPRESSURE",
      `More than ${ACTIVITY_CAP} activities in 5 minutes on this session; slow down`,
      { limit: ACTIVITY_CAP, windowSeconds: ACTIVITY_WINDOW_MS / 1000, retryAfterSeconds: retryAfter },
      { retryAfterSeconds: retryAfter },
    );
  }
  const status = statusAfter(input.type);
  return await ctx.db.transaction().execute(async (trx) => {
    const updated = await trx.updateTable("sessions")
      .set({ status, activity_count: sql`activity_count + 1` })
      .where("id", "=", row.id).where("status", "in", [...OPEN_SESSION_STATUSES])
      .returning(["activity_count", "status"]).executeTakeFirst();
    if (!updated) throw closedConflict(row.id, "closed");
    // An ephemeral activity only lives until the next one (like a progress line).
    await trx.deleteFrom("session_activities").where("session_id", "=", row.id).where("ephemeral", "=", true)
      .execute();
    const activityId = crypto.randomUUID();
    await trx.insertInto("session_activities").values({
      id: activityId,
      session_id: row.id,
      seq: updated.activity_count,
      type: input.type,
      body: input.body ?? null,
      action: input.action ?? null,
      parameter: input.parameter ?? null,
      result: input.result ?? null,
      ephemeral: input.ephemeral,
      created_at: now,
    }).execute();
    await recordEvent(trx, {
      projectId: row.project_id,
      kind: "activity.posted",
      entityType: "session",
      entityId: row.id,
      agentId: ctx.actor.agentId,
      data: { activityId, type: input.type, ephemeral: input.ephemeral, status, previousStatus: row.status },
      now,
    });
    return { activityId, sessionId: row.id, status: updated.status };
  });
}
