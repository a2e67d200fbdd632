import type { z } from "zod";
import type { SessionPatch } from "@/contracts/sessions.ts";
import { sql } from "kysely";
import { toJson } from "@/db/tables/types.ts";
import { recordEvent } from "@/domain/core/record-event.ts";
import type { ActorCtx } from "@/domain/core/context.ts";
import { fail, recovery } from "@/domain/core/errors.ts";
import { loadSession } from "./access.ts";
import { closedConflict } from "./activity.ts";
import { closeSessions, OPEN_SESSION_STATUSES } from "./close.ts";
import { toSession } from "./serialize.ts";

/** PATCH /session/{sessionId}'s body, as the route has parsed it. */
export type PatchInput = z.output<typeof SessionPatch>;

function closeoutPath(message: string) {
  return fail.forbidden(message, {
    guidance: "Close your own session through closeout (POST /session/complete) or cancel it; only an " +
      "orchestrator force-completes another agent's session",
    recovery: recovery(
      "use_closeout_path",
      "POST /session/complete",
      "Complete your own session with POST /session/complete once closeout is satisfied",
      { sessionId: "<your session id>" },
    ),
  });
}

function staleVersion(current: number) {
  return fail.conflict(`Plan version is ${current}; reload the session and retry`, {
    currentPlanVersion: current,
  });
}

/**
 * PATCH /session/:sessionId. Replaces the plan (version +1, optimistic lock on expectedPlanVersion),
 * cancels the session (token revoked), or, for an orchestrator on another agent's session,
 * force-completes it. Plan and status in one body apply together or not at all.
 */
export async function patchSession(ctx: ActorCtx, sessionId: string, input: PatchInput) {
  const { actor } = ctx;
  const { row, own, agentName } = await loadSession(ctx, sessionId);
  const orchestrator = actor.role === "orchestrator";
  if (!own && !orchestrator) throw closeoutPath("Cannot change another agent's session");
  if (input.status === "complete" && own) {
    throw closeoutPath("A session cannot force-complete itself; use POST /session/complete");
  }
  if (!(OPEN_SESSION_STATUSES as readonly string[]).includes(row.status)) {
    throw closedConflict(row.id, row.status);
  }
  if (input.expectedPlanVersion !== undefined && input.expectedPlanVersion !== row.plan_version) {
    throw staleVersion(row.plan_version);
  }
  const now = ctx.clock.now();
  await ctx.db.transaction().execute(async (trx) => {
    if (input.plan !== undefined || input.expectedPlanVersion !== undefined) {
      // The conditional update is the lock: a concurrent writer makes this one match nothing.
      let update = trx.updateTable("sessions").where("id", "=", row.id)
        .where("status", "in", [...OPEN_SESSION_STATUSES]);
      if (input.expectedPlanVersion !== undefined) {
        update = update.where("plan_version", "=", input.expectedPlanVersion);
      }
      const changed = await update
        .set(
          input.plan !== undefined
            ? { plan: toJson(input.plan), plan_version: sql`plan_version + 1` }
            : { plan_version: sql`plan_version` },
        )
        .returning(["plan_version"]).executeTakeFirst();
      if (!changed) {
        const current = await trx.selectFrom("sessions").select(["plan_version", "status"])
          .where("id", "=", row.id).executeTakeFirstOrThrow();
        if (!(OPEN_SESSION_STATUSES as readonly string[]).includes(current.status)) {
          throw closedConflict(row.id, current.status);
        }
        throw staleVersion(current.plan_version);
      }
      if (input.plan !== undefined) {
        await recordEvent(trx, {
          projectId: row.project_id,
          kind: "session.updated",
          entityType: "session",
          entityId: row.id,
          agentId: actor.agentId,
          data: { planVersion: changed.plan_version, planItems: input.plan.length },
          now,
        });
      }
    }
    if (input.status !== undefined) {
      const closed = await closeSessions(trx, {
        projectId: row.project_id,
        sessionIds: [row.id],
        status: input.status,
        byAgentId: actor.agentId,
        reason: input.status === "complete" ? "force_completed_by_orchestrator" : "canceled",
        now,
      });
      if (closed.length === 0) throw closedConflict(row.id, "closed");
    }
  });
  const after = await ctx.db.selectFrom("sessions").selectAll().where("id", "=", row.id)
    .executeTakeFirstOrThrow();
  return toSession(after, agentName);
}
