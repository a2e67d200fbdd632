import { toJson } from "@/db/tables/types.ts";
import { recordEvent } from "@/domain/core/record-event.ts";
import type { ActorCtx } from "@/domain/core/context.ts";
import { loadOwnSession } from "./access.ts";
import { closedConflict } from "./activity.ts";
import { OPEN_SESSION_STATUSES } from "./close.ts";

/** POST /session/:sessionId/report: stores the environment report, replacing any earlier one whole. */
export async function postReport(ctx: ActorCtx, sessionId: string, report: Record<string, unknown>) {
  const { row } = await loadOwnSession(ctx, sessionId, "an environment report");
  const now = ctx.clock.now();
  await ctx.db.transaction().execute(async (trx) => {
    const stored = await trx.updateTable("sessions").set({ report: toJson(report), report_at: now })
      .where("id", "=", row.id).where("status", "in", [...OPEN_SESSION_STATUSES]).returning("id")
      .executeTakeFirst();
    if (!stored) throw closedConflict(row.id, row.status);
    await recordEvent(trx, {
      projectId: row.project_id,
      kind: "session.reported",
      entityType: "session",
      entityId: row.id,
      agentId: ctx.actor.agentId,
      data: { fields: Object.keys(report).sort() },
      now,
    });
  });
  return { ok: true as const, sessionId: row.id };
}
