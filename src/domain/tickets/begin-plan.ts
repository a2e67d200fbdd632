import type { z } from "zod";
import type { BeginBody } from "@/contracts/workflow.ts";
import type { Actor } from "@/domain/core/actor.ts";
import { DomainError, recovery } from "@/domain/core/errors.ts";
import type { TicketRow } from "@/domain/core/ticket-serialize.ts";
import type { ProjectBoard } from "./ticket-context.ts";
import { checkCriteria } from "@/domain/core/transitions.ts";
import { boardColumns, invalidTransitionError, isReviewStatus, isTerminal } from "@/domain/core/workflow.ts";

/** POST /begin's body, as the route has parsed it. */
export type BeginInput = z.output<typeof BeginBody>;

/** What a begin will write, decided before any write. */
export interface BeginPlan {
  ref: string;
  /** False when the ticket is already in progress: claims and session only, no status write. */
  moving: boolean;
  /** The criteria get acknowledged by this call (TKT-185). */
  acknowledging: boolean;
  /** The ticket columns set with the move (or the re-begin update). */
  set: {
    assignee_agent_id: string;
    sub_agent_name: string | null;
    criteria_acknowledged_at?: Date;
    review_handoff?: null;
  };
}

/**
 * Decides a begin on a ticket the caller may start (not human-only, not held by another identity):
 * refuses a terminal ticket, a board without an `in_progress` column, then the criteria guard of the
 * review mode as it will stand after the acknowledgement (MCP-056, MCP-057).
 */
export function planBegin(
  actor: Pick<Actor, "agentId" | "subAgentName">,
  ticket: TicketRow,
  project: ProjectBoard,
  input: BeginInput,
  now: Date,
): BeginPlan {
  if (isTerminal(ticket.status)) {
    throw invalidTransitionError(project.settings, ticket.status, "in_progress");
  }
  if (!boardColumns(project.settings).includes("in_progress")) throw noInProgressColumn(ticket.status);
  const moving = ticket.status !== "in_progress";
  const acknowledging = input.acknowledgeCriteria === true && ticket.acceptance_criteria.length > 0 &&
    ticket.criteria_acknowledged_at === null;
  if (moving) {
    checkCriteria(
      project.mode,
      { ...ticket, criteria_acknowledged_at: acknowledging ? now : ticket.criteria_acknowledged_at },
      "in_progress",
      criteriaNextSteps(ticket, input),
    );
  }
  return {
    ref: `${project.prefix}-${ticket.number}`,
    moving,
    acknowledging,
    set: {
      assignee_agent_id: actor.agentId,
      sub_agent_name: actor.subAgentName,
      ...(acknowledging ? { criteria_acknowledged_at: now } : {}),
      // Back to work from review: the submitted handoff is stale (reviewHistory keeps it).
      ...(isReviewStatus(ticket.status) ? { review_handoff: null } : {}),
    },
  };
}

function noInProgressColumn(from: string): DomainError {
  return new DomainError(
    "unprocessable",
    "INVALID_TRANSITION",
    "This board has no in_progress column to begin into",
    {
      from,
      to: "in_progress",
      validTransitions: [],
      recovery: recovery("USE_VALID_TRANSITION", "PATCH /ticket", "Move the ticket with PATCH /ticket", null),
    },
  );
}

/** The `nextStep` a refused begin carries: add criteria, or retry acknowledging them. */
function criteriaNextSteps(ticket: TicketRow, input: BeginInput) {
  return {
    none: {
      nextStep: {
        action: "ADD_CRITERIA",
        endpoint: `POST /ticket/${ticket.id}/acknowledge`,
        tool: "svc_ticket_acknowledge",
        message:
          "The ticket has no acceptance criteria: acknowledge it with additionalCriteria, then begin again",
        payload: {
          ticketId: ticket.id,
          additionalCriteria: [{ title: "<checkable criterion>", requiresEvidence: false }],
        },
      },
    },
    unacknowledged: {
      acceptanceCriteria: ticket.acceptance_criteria,
      nextStep: {
        action: "ACKNOWLEDGE_CRITERIA",
        endpoint: "POST /begin",
        tool: "svc_ticket_begin",
        message: "Read the acceptance criteria above and begin again with acknowledgeCriteria: true",
        payload: { ticketId: input.ticketId, files: input.files, acknowledgeCriteria: true },
      },
    },
  };
}

/** TKT-186: the begin result. */
export function beginResponse<C>(
  ticket: Pick<TicketRow, "id" | "criteria_acknowledged_at" | "verification_command">,
  plan: BeginPlan,
  sessionId: string | null,
  claims: C,
) {
  const verify = ticket.verification_command ? ` (run: ${ticket.verification_command})` : "";
  return {
    ticket: { id: ticket.id, status: "in_progress" },
    sessionId,
    claims,
    criteriaAcknowledged: plan.acknowledging || ticket.criteria_acknowledged_at !== null,
    nextAction: {
      action: "LOG_PROGRESS",
      endpoint: "POST /ledger",
      message:
        `Work on ${plan.ref}: log PROGRESS entries as you go, a TESTED entry once verified${verify}, ` +
        "then POST /handoff",
    },
  };
}
