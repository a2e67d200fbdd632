import type { Trx } from "@/db/database.ts";
import type { EventInput } from "@/domain/core/record-event.ts";
import type { Actor } from "@/domain/core/actor.ts";
import { boardColumns, isCustomBoard, TERMINAL_STATUSES } from "@/domain/core/workflow.ts";

export interface BlockOutcome {
  ticket?: { id: string; status: string };
  warning?: string;
  /** `ticket.moved`, for the caller to record once its row locks are taken. */
  event?: EventInput;
}

/**
 * BLOCKED through POST /ledger moves its ticket to `blocked`, with a conditional update (compare and
 * swap on the status). Default board: from `in_progress` only. Custom board with a `blocked` column:
 * from any non-terminal status. Without `ticketId`, the caller's own single in-progress ticket.
 * A ticket that cannot move leaves the entry written and adds a warning.
 */
export async function blockTicket(
  trx: Trx,
  actor: Actor,
  ticketId: string | null,
  now: Date,
): Promise<BlockOutcome> {
  let id = ticketId;
  if (!id) {
    const mine = await trx.selectFrom("tickets").select("id").where("project_id", "=", actor.projectId)
      .where("assignee_agent_id", "=", actor.agentId).where("status", "=", "in_progress").limit(2).execute();
    if (mine.length !== 1) return {};
    id = mine[0]!.id;
  }
  const project = await trx.selectFrom("projects").select("settings").where("id", "=", actor.projectId)
    .executeTakeFirstOrThrow();
  const settings = project.settings ?? {};
  const custom = isCustomBoard(settings);
  if (custom && !boardColumns(settings).includes("blocked")) {
    return { warning: "This board has no `blocked` column: the ticket was not moved" };
  }
  const fromStatuses = custom ? null : ["in_progress"];
  let update = trx.updateTable("tickets")
    .set({ status: "blocked", status_changed_at: now, updated_at: now })
    .where("id", "=", id).where("project_id", "=", actor.projectId);
  update = fromStatuses
    ? update.where("status", "in", fromStatuses)
    : update.where("status", "not in", [...TERMINAL_STATUSES, "blocked"]);
  const before = await trx.selectFrom("tickets").select("status").where("id", "=", id).executeTakeFirst();
  const moved = await update.returning(["id"]).executeTakeFirst();
  if (!moved) {
    return {
      warning: `The ticket is ${before?.status ?? "unknown"}: only ${
        custom ? "non-terminal" : "in_progress"
      } tickets move to blocked, so it was not moved`,
    };
  }
  return {
    ticket: { id: moved.id, status: "blocked" },
    event: {
      projectId: actor.projectId,
      kind: "ticket.moved",
      entityType: "ticket",
      entityId: moved.id,
      agentId: actor.agentId,
      data: { from: before?.status ?? null, to: "blocked", via: "ledger.BLOCKED" },
      now,
    },
  };
}
