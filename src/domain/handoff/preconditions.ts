import type { Selectable } from "kysely";
import type { DbOrTrx } from "@/db/database.ts";
import type { SessionsTable } from "@/db/tables/foundation.ts";
import type { Actor } from "@/domain/core/actor.ts";
import { DomainError, fail, recovery } from "@/domain/core/errors.ts";
import type { TicketRow } from "@/domain/core/ticket-serialize.ts";
import { UNSTARTED_STATUSES } from "@/domain/core/workflow.ts";
import { isReviewStatus } from "@/domain/core/review-mode.ts";

export type SessionRow = Selectable<SessionsTable>;

export const OPEN_SESSION_STATUSES = ["active", "awaiting_input", "error"];

/**
 * The session if it is the caller's: same agent, and either the token's own session or one of the
 * same identity (the agent itself, or the same sub-agent). Null otherwise, including unknown ids.
 */
export async function findOwnSession(
  db: DbOrTrx,
  actor: Actor,
  sessionId: string,
): Promise<SessionRow | null> {
  const row = await db.selectFrom("sessions").selectAll().where("id", "=", sessionId.toLowerCase())
    .where("project_id", "=", actor.projectId).where("agent_id", "=", actor.agentId).executeTakeFirst();
  if (!row) return null;
  if (row.id === actor.sessionId) return row;
  return (row.sub_agent_name ?? null) === (actor.subAgentName ?? null) ? row : null;
}

/** 403 for a handoff by a non-generator: always with recovery MINT_SUBAGENT_SESSION (spec: POST /handoff). */
export function notGenerator(actor: Actor): DomainError {
  return fail.forbidden(`Cannot hand off as "${actor.role}": only generators hand off work`, {
    guidance: actor.role === "orchestrator"
      ? "Orchestrators coordinate and delegate: mint a generator sub-agent session and hand off with it"
      : "Only generator agents hand off; ask an orchestrator for a generator sub-agent session",
    requiredRole: "generator",
    actualRole: actor.role,
    recovery: recovery(
      "MINT_SUBAGENT_SESSION",
      "POST /subagent/session",
      "Hand off with the token of a generator sub-agent",
      { name: "<worker-name>", role: "generator" },
    ),
  });
}

const NEVER_STARTED: readonly string[] = UNSTARTED_STATUSES;

/**
 * Checks a ticket can be handed off by the caller. Order: human-only (403), done or cancelled
 * (409 CONFLICT), assigned to another agent (403, recovery HANDOFF_WITHOUT_TICKET: close your session
 * without the ticket), never started (422 INVALID_TRANSITION, recovery BEGIN_TICKET), unassigned and
 * no open claim of yours on it (403, recovery BEGIN_TICKET: begin it to become its assignee), any
 * other status than in progress or review (422 INVALID_TRANSITION; blocked: unblock first).
 * Returns true when the caller becomes the assignee (unassigned ticket, open claim).
 */
export function checkTicketForHandoff(
  ticket: TicketRow,
  ref: string,
  actor: Actor,
  holdsOpenClaim: boolean,
): { adopt: boolean } {
  const name = ref;
  if (ticket.human_only) {
    throw fail.forbidden(`Cannot hand off "${name}": the ticket is human-only`, {
      recovery: handoffWithoutTicket(),
    });
  }
  if (ticket.status === "done" || ticket.status === "cancelled") {
    throw fail.conflict(`Cannot hand off "${name}": the ticket is already ${ticket.status}`, {
      observedStatus: ticket.status,
      recovery: recovery("REFRESH_TICKET_STATE", "GET /ticket", "Read the ticket's current state", {
        id: ticket.id,
      }),
    });
  }
  if (ticket.assignee_agent_id !== null && ticket.assignee_agent_id !== actor.agentId) {
    throw fail.forbidden(`Cannot hand off "${name}": it is assigned to another agent`, {
      assigneeAgentId: ticket.assignee_agent_id,
      recovery: handoffWithoutTicket(),
    });
  }
  if (NEVER_STARTED.includes(ticket.status)) {
    throw new DomainError(
      "unprocessable",
      "INVALID_TRANSITION",
      `Cannot hand off "${name}": it was never started (status ${ticket.status})`,
      { currentStatus: ticket.status, validTransitions: [], recovery: beginTicket(ticket.id) },
    );
  }
  const adopt = ticket.assignee_agent_id === null;
  if (adopt && !holdsOpenClaim) {
    throw fail.forbidden(`Cannot hand off "${name}": you are not its assignee and hold no claim on it`, {
      recovery: beginTicket(ticket.id),
    });
  }
  if (ticket.status !== "in_progress" && !isReviewStatus(ticket.status)) {
    const blocked = ticket.status === "blocked";
    throw new DomainError(
      "unprocessable",
      "INVALID_TRANSITION",
      `Cannot hand off "${name}": status ${ticket.status} is neither in progress nor in review`,
      {
        currentStatus: ticket.status,
        validTransitions: [],
        recovery: blocked
          ? recovery("USE_VALID_TRANSITION", "PATCH /ticket", "Unblock the ticket first", {
            ticketId: ticket.id,
            action: "unblock",
          })
          : beginTicket(ticket.id),
      },
    );
  }
  return { adopt };
}

function handoffWithoutTicket() {
  return recovery(
    "HANDOFF_WITHOUT_TICKET",
    "POST /handoff",
    "Omit ticketId to close your session without touching this ticket",
    { moduleName: "<module>", summary: "<what you did>", sessionId: "<your session id>" },
  );
}

function beginTicket(ticketId: string) {
  return recovery("BEGIN_TICKET", "POST /begin", "Begin the ticket (claims files, starts it) first", {
    ticketId,
    files: ["<path>"],
  });
}
