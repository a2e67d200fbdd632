import type { UpdateObject } from "kysely";
import type { PatchTicketInput } from "@/contracts/workflow.ts";
import type { Database } from "@/db/database.ts";
import type { ProjectSettings } from "@/db/tables/foundation.ts";
import type { Actor } from "@/domain/core/actor.ts";
import { fail } from "@/domain/core/errors.ts";
import { notYours, relationOf } from "./permissions.ts";
import type { TicketRow } from "@/domain/core/ticket-serialize.ts";
import { reviewEntry } from "./ticket-context.ts";
import {
  actionTarget,
  checkStatusWrite,
  planAction,
  type ReviewHandoff,
  type TicketAction,
} from "@/domain/core/transitions.ts";
import {
  appendReviewHistory,
  boardColumns,
  isReviewerStatus,
  isReviewStatus,
  REVIEWER_TARGETS,
  unknownStatusError,
} from "@/domain/core/workflow.ts";

export const TITLE_FIELDS = ["title", "description"];
export const MOVE_FIELDS = ["action", "status"];

/** Body fields that count as "a field" (ticketId and expectedStatus do not; false flags are no-ops). */
export function changedFields(input: PatchTicketInput): string[] {
  const out: string[] = [];
  for (const [key, value] of Object.entries(input)) {
    if (key === "ticketId" || key === "expectedStatus" || value === undefined) continue;
    if ((key === "assignToSelf" || key === "unassign" || key === "acceptSuggestions") && value !== true) {
      continue;
    }
    out.push(key);
  }
  return out;
}

/** What a PATCH /ticket does to the ticket's status and assignment. */
export interface PatchMove {
  action: TicketAction | undefined;
  /** The status the ticket moves to; null when it stays. */
  to: string | null;
  claiming: boolean;
  unassigning: boolean;
}

/**
 * The status move and assignment change of a PATCH, checked in the verb's order: unknown status (guard 1),
 * permissions, the move itself (guard 1), guard 7. The orchestrator-claim and held-by-another checks come
 * before, in the verb (the latter needs the holder's name).
 */
export function decideMove(
  actor: Actor,
  ticket: TicketRow,
  settings: ProjectSettings,
  input: PatchTicketInput,
  fields: string[],
): PatchMove {
  const claiming = input.action === "claim" || input.assignToSelf === true;
  const actsAsAssignee = relationOf(actor, ticket).assignee || claiming;
  const unassigning = input.unassign === true || input.action === "release";
  const action: TicketAction | undefined = input.action;
  if (!action && input.status !== undefined && !boardColumns(settings).includes(input.status)) {
    throw unknownStatusError(settings, input.status);
  }
  // Permission first (on the move's target), then the state-dependent checks of guard 1.
  const target = action ? actionTarget(settings, action) : input.status ?? null;
  assertMayChange(actor, ticket, { fields, to: target, actsAsAssignee, unassigning });
  let to: string | null = null;
  // release of an assigned backlog ticket, or claim of an unassigned claimed one, only (un)assigns.
  const assignOnly =
    (action === "release" && ticket.status === "backlog" && ticket.assignee_agent_id !== null) ||
    (action === "claim" && ticket.status === "claimed" && ticket.assignee_agent_id === null);
  if (action && !assignOnly) to = planAction(settings, action, ticket.status, ticket.id).to;
  else if (input.status !== undefined) {
    checkStatusWrite(settings, ticket.id, ticket.status, input.status);
    to = input.status;
  }
  if (ticket.status === "done" && (input.title !== undefined || input.description !== undefined)) {
    throw fail.unprocessable("A done ticket's title and description cannot be edited (guard 7)", {
      status: "done",
      fields: TITLE_FIELDS.filter((f) => f in input && input[f as keyof PatchTicketInput] !== undefined),
    });
  }
  return { action, to, claiming, unassigning };
}

/**
 * Permission rules of PATCH /ticket: orchestrators change anything; the assignee (or an agent claiming an
 * unassigned ticket) changes their ticket; the designated reviewer moves it out of review (to done,
 * changes_requested or in_progress); the creator may edit title and description; nobody else anything.
 */
export function assertMayChange(
  actor: Actor,
  ticket: TicketRow,
  p: { fields: string[]; to: string | null; actsAsAssignee: boolean; unassigning: boolean },
): void {
  const rel = relationOf(actor, ticket);
  if (rel.orchestrator) return;
  if (p.unassigning && !rel.assignee) throw notYours(ticket, actor, "unassign or release this ticket");
  if (p.actsAsAssignee) return;
  for (const field of p.fields) {
    if (MOVE_FIELDS.includes(field)) {
      const reviewerMove = rel.reviewer && isReviewerStatus(ticket.status) && p.to !== null &&
        (REVIEWER_TARGETS as readonly string[]).includes(p.to);
      if (!reviewerMove) {
        throw notYours(
          ticket,
          actor,
          rel.reviewer ? "move this ticket (a reviewer moves it only out of review)" : "move this ticket",
        );
      }
    } else if (TITLE_FIELDS.includes(field)) {
      if (!rel.creator) {
        throw fail.forbidden(
          "Only the assignee, the creator or an orchestrator may edit title or description",
          {
            field,
            assigneeAgentId: ticket.assignee_agent_id,
            createdByAgentId: ticket.created_by_agent_id,
          },
        );
      }
    } else if (field === "reviewerAgentId") {
      throw fail.forbidden("Only the assignee or an orchestrator may set reviewerAgentId", {
        field,
        assigneeAgentId: ticket.assignee_agent_id,
      });
    } else if (field !== "reviewHandoff" || !rel.reviewer) {
      throw notYours(ticket, actor, `change ${field}`);
    }
  }
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** The review handoff after the PATCH: the stored one, with the fields the body sends laid over it. */
export function mergedHandoff(
  ticket: Pick<TicketRow, "review_handoff">,
  input: PatchTicketInput,
): ReviewHandoff | null {
  const stored = (ticket.review_handoff ?? null) as ReviewHandoff | null;
  return input.reviewHandoff ? { ...(stored ?? {}), ...definedOnly(input.reviewHandoff) } : stored;
}

export function reviewEvent(from: string, to: string): "submitted" | "changes_requested" | "approved" | null {
  if (isReviewStatus(to) && !isReviewStatus(from)) return "submitted";
  if (isReviewStatus(from) && to === "done") return "approved";
  if (isReviewStatus(from) && (to === "changes_requested" || to === "in_progress")) {
    return "changes_requested";
  }
  return null;
}

/**
 * The review columns a move writes: leaving review (not to done) without a new handoff clears the stored
 * one; a review event appends to the history (the submission carries the handoff).
 */
export function reviewColumns(
  actor: Actor,
  from: string,
  to: string,
  input: PatchTicketInput,
  handoff: ReviewHandoff | null,
  now: Date,
): UpdateObject<Database, "tickets"> {
  const set: UpdateObject<Database, "tickets"> = {};
  if (isReviewStatus(from) && !isReviewStatus(to) && to !== "done" && !input.reviewHandoff) {
    set.review_handoff = null;
  }
  const event = reviewEvent(from, to);
  if (event) {
    set.review_history = appendReviewHistory(
      reviewEntry(actor, event, from, to, now, event === "submitted" ? { handoff } : {}),
    );
  }
  return set;
}

/**
 * acceptSuggestions (design: TKT-158): fills the agent-first fields the ticket lacks, never overwriting
 * a stored value or a field sent in the same body.
 */
export function suggestions(ticket: TicketRow, input: PatchTicketInput): UpdateObject<Database, "tickets"> {
  const out: UpdateObject<Database, "tickets"> = {};
  if (!ticket.done_definition && input.doneDefinition === undefined) {
    const criteria = ticket.acceptance_criteria.map((c) => String(c.title ?? c.text ?? "")).filter(Boolean);
    const text = criteria.length > 0
      ? `"${ticket.title}" is done when: ${criteria.join("; ")}`
      : `"${ticket.title}" works as described and its checks pass`;
    out.done_definition = text.slice(0, 500);
  }
  if (!ticket.verification_command && input.verificationCommand === undefined) {
    out.verification_command = "n/a";
  }
  if (!ticket.risk_class && input.riskClass === undefined) out.risk_class = "local";
  return out;
}
