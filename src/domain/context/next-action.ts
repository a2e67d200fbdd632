import { REVIEW_STATUSES } from "@/domain/core/workflow.ts";

const ACTIVE = ["in_progress", "blocked", "changes_requested"];

/**
 * Context `nextAction`, with the vocabulary and order of the handoff's next action (first match wins):
 * RESUME_WORK, PICK_TICKET, REQUEST_BRIEF, CREATE_TICKETS, PROJECT_COMPLETE, WAIT, ASSIST, ALL_DONE.
 * Computed from counts context already has, so it costs no extra scan of the board.
 */
export function nextActionFor(input: {
  active: { ticketRef: string; status: string; title: string } | null;
  pickable: number;
  briefVersion: number;
  byStatus: Record<string, number>;
}) {
  const count = (statuses: readonly string[]) =>
    statuses.reduce((sum, s) => sum + (input.byStatus[s] ?? 0), 0);
  const total = Object.values(input.byStatus).reduce((sum, n) => sum + n, 0);
  if (input.active) {
    return {
      action: "RESUME_WORK" as const,
      message: `Resume ${input.active.ticketRef} (${input.active.status}): ${input.active.title}`,
    };
  }
  if (input.pickable > 0) {
    return {
      action: "PICK_TICKET" as const,
      message:
        `${input.pickable} unassigned ticket(s) are ready: pick one from the workqueue and POST /begin`,
    };
  }
  if (input.briefVersion === 0) {
    return {
      action: "REQUEST_BRIEF" as const,
      message: "The project brief is blank: ask for one or write it (PATCH /brief)",
    };
  }
  if (total === 0) {
    return {
      action: "CREATE_TICKETS" as const,
      message: "The board is empty: create tickets from the brief (POST /ticket)",
    };
  }
  if (total - count(["done", "cancelled"]) === 0) {
    return { action: "PROJECT_COMPLETE" as const, message: "Every ticket is done or cancelled" };
  }
  if (count(REVIEW_STATUSES) > 0) {
    return {
      action: "WAIT" as const,
      message: "Tickets are waiting for review: check GET /context again later",
    };
  }
  if (count(ACTIVE) > 0) {
    return {
      action: "ASSIST" as const,
      message: "Other agents have work in progress: offer help in a thread",
    };
  }
  return {
    action: "ALL_DONE" as const,
    message: "Nothing left for you: the remaining tickets are human-only or assigned",
  };
}
