import type { TicketFields } from "@/domain/core/ticket-serialize.ts";

export interface TicketNextAction {
  action: string;
  message: string;
  endpoint: string | null;
  payloadHint: Record<string, unknown> | null;
}

function next(
  action: string,
  message: string,
  endpoint: string | null = null,
  payloadHint: Record<string, unknown> | null = null,
): TicketNextAction {
  return { action, message, endpoint, payloadHint };
}

/**
 * What should happen to a ticket next, from its state alone (not the caller's), so that every reader of
 * the board sees the same hint:
 * - human-only (not started): WAIT, agents cannot take it;
 * - open and unassigned: ADD_CRITERIA without criteria (begin would be refused), else PICK_TICKET;
 * - assigned, criteria present but unacknowledged: ACKNOWLEDGE_CRITERIA;
 * - assigned, no criteria: ADD_CRITERIA (acknowledge with additionalCriteria);
 * - assigned and ready (backlog, claimed): BEGIN_TICKET;
 * - in progress or changes_requested: RESUME_WORK; blocked: ASSIST; in a review status: WAIT for the
 *   reviewer; done or cancelled: NONE.
 */
export function ticketNextAction(row: TicketFields): TicketNextAction {
  const id = row.id;
  const criteria = row.acceptance_criteria.length;
  switch (row.status) {
    case "done":
      return next("NONE", "Done: nothing left to do");
    case "cancelled":
      return next("NONE", "Cancelled: nothing left to do");
    case "in_progress":
    case "changes_requested":
      return next(
        "RESUME_WORK",
        "Work is under way: log progress and hand off when finished",
        "POST /handoff",
        {
          moduleName: "<module>",
          summary: "<what changed>",
          sessionId: "<sessionId>",
          ticketId: id,
        },
      );
    case "blocked":
      return next("ASSIST", "Blocked: read the BLOCKED ledger entry and help unblock it", "GET /ledger", {
        ticketId: id,
        type: "BLOCKED",
      });
    case "review":
    case "in_review":
    case "qa":
    case "needs_review":
      return next("WAIT", "Waiting for review", null, null);
  }
  if (row.human_only) {
    return next("WAIT", "Human-only ticket: agents cannot take or move it");
  }
  if (!row.assignee_agent_id && criteria === 0) {
    // POST /begin would be refused (guard 3) in every mode but light: add criteria first.
    return next(
      "ADD_CRITERIA",
      "Open and unassigned, no acceptance criteria yet: add some while acknowledging, then begin it",
      `POST /ticket/${id}/acknowledge`,
      { additionalCriteria: [{ title: "<criterion>", requiresEvidence: true }] },
    );
  }
  if (!row.assignee_agent_id) {
    return next(
      "PICK_TICKET",
      "Open and unassigned: begin it (claims its files and starts it)",
      "POST /begin",
      {
        ticketId: id,
        files: row.expected_files.slice(0, 20),
        acknowledgeCriteria: true,
      },
    );
  }
  if (criteria === 0) {
    return next(
      "ADD_CRITERIA",
      "No acceptance criteria yet: add some while acknowledging",
      `POST /ticket/${id}/acknowledge`,
      {
        additionalCriteria: [{ title: "<criterion>", requiresEvidence: true }],
      },
    );
  }
  if (!row.criteria_acknowledged_at) {
    return next(
      "ACKNOWLEDGE_CRITERIA",
      "Acknowledge the acceptance criteria before starting",
      `POST /ticket/${id}/acknowledge`,
      {},
    );
  }
  return next("BEGIN_TICKET", "Assigned and ready: begin it", "POST /begin", {
    ticketId: id,
    files: row.expected_files.slice(0, 20),
  });
}
