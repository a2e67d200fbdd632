import type { DbOrTrx } from "@/db/database.ts";
import type { ProjectSettings } from "@/db/tables/foundation.ts";
import { DomainError, recovery } from "@/domain/core/errors.ts";
import { TICKET_ACTIONS, type TicketAction } from "@/shared/vocabulary.ts";
import type { TicketRow } from "./ticket-serialize.ts";
import {
  boardColumns,
  invalidTransitionError,
  isCustomBoard,
  isReviewerStatus,
  isReviewStatus,
  isTerminal,
  reviewColumn,
  type ReviewMode,
  statusConflictError,
  TESTED_GATE_STATUSES,
  unknownStatusError,
  UNSTARTED_STATUSES,
  validTransitions,
} from "./workflow.ts";

export { TICKET_ACTIONS, type TicketAction } from "@/shared/vocabulary.ts";

/** Where an action takes the ticket; `to: null` changes no status (claim on a board without `claimed`). */
export interface ActionMove {
  action: TicketAction;
  to: string | null;
}

function refuseAction(
  settings: ProjectSettings,
  action: TicketAction,
  from: string,
  to: string,
  advise: boolean,
) {
  return invalidTransitionError(settings, from, to, {
    action,
    ...(advise ? { validActions: validActions(settings, from) } : {}),
  });
}

/** The actions whose from-state accepts a ticket in `from` (advice in INVALID_TRANSITION details). */
export function validActions(settings: ProjectSettings, from: string): TicketAction[] {
  return TICKET_ACTIONS.filter((action) => {
    try {
      planAction(settings, action, from, "", false);
      return true;
    } catch {
      return false;
    }
  });
}

/**
 * The move of a PATCH action (design, documented on PATCH /ticket). Actions are verbs with their own
 * from-states, not status writes, so they are not limited to the board's transition table:
 * - `claim`: from a not-started status (backlog, sprint_backlog) to `claimed`; on a board without
 *   `claimed` it only assigns.
 * - `release`: from any non-terminal status to `backlog` (and unassigns).
 * - `submit_for_review`: from a started status that is not a review status (in_progress, needs_review,
 *   changes_requested, or a custom work column; never blocked) to `in_review`, else `review`.
 * - `approve`: from a review status to `done`.
 * - `request_changes`: from a review status to `in_progress`.
 * - `block`: from any non-terminal status to `blocked`; `unblock`: from `blocked` to `in_progress`.
 * The ticket already being where the action leads answers 409 CONFLICT (the move happened already).
 */
export function planAction(
  settings: ProjectSettings,
  action: TicketAction,
  from: string,
  ticketId = "",
  advise = true,
): ActionMove {
  const columns = boardColumns(settings);
  const target = actionTarget(settings, action);
  if (target !== null && from === target) throw alreadyThere(ticketId, from);
  if (isTerminal(from)) throw refuseAction(settings, action, from, target ?? from, advise);
  const need = (ok: boolean, to: string) => {
    if (!ok || !columns.includes(to)) throw refuseAction(settings, action, from, to, advise);
    return { action, to };
  };
  switch (action) {
    case "claim":
      if (target === null) return { action, to: null };
      return need((UNSTARTED_STATUSES as readonly string[]).includes(from) && from !== "claimed", target);
    case "release":
      return need(true, "backlog");
    case "submit_for_review": {
      if (target === null) {
        throw new DomainError(
          "unprocessable",
          "INVALID_TRANSITION",
          "This board has no review column to submit to",
          {
            from,
            action,
            validTransitions: validTransitions(settings, from),
            recovery: recovery(
              "USE_VALID_TRANSITION",
              "PATCH /ticket",
              "Move the ticket with a status the board knows; it has neither in_review nor review",
              null,
            ),
          },
        );
      }
      const started = !(UNSTARTED_STATUSES as readonly string[]).includes(from) && from !== "blocked";
      return need(started && !isReviewerStatus(from), target);
    }
    case "approve":
      return need(isReviewStatus(from), "done");
    case "request_changes":
      return need(isReviewStatus(from), "in_progress");
    case "block":
      return need(true, "blocked");
    case "unblock":
      return need(from === "blocked", "in_progress");
  }
}

/** Where an action leads on this board (null: claim on a board without `claimed`). */
export function actionTarget(settings: ProjectSettings, action: TicketAction): string | null {
  switch (action) {
    case "claim":
      return boardColumns(settings).includes("claimed") ? "claimed" : null;
    case "release":
      return "backlog";
    case "submit_for_review":
      return reviewColumn(settings);
    case "approve":
      return "done";
    case "request_changes":
    case "unblock":
      return "in_progress";
    case "block":
      return "blocked";
  }
}

function alreadyThere(ticketId: string, status: string): DomainError {
  const error = statusConflictError(
    ticketId,
    status,
    status,
    `The ticket is already in "${status}": the move has happened (by you or someone else); nothing was written`,
  );
  error.details!.reason = "ALREADY_IN_STATUS";
  return error;
}

/**
 * Guard 1 for a status write: the status exists on the board (400 USE_VALID_STATUS), the ticket is
 * not terminal (422), and it is not already there (409 CONFLICT: a concurrent writer got there first).
 */
export function checkStatusWrite(
  settings: ProjectSettings,
  ticketId: string,
  from: string,
  to: string,
): void {
  if (!boardColumns(settings).includes(to)) throw unknownStatusError(settings, to);
  if (isTerminal(from)) throw invalidTransitionError(settings, from, to);
  if (from === to) throw alreadyThere(ticketId, from);
}

/** Guard 1 (second half): the board allows the move. */
export function checkTransition(settings: ProjectSettings, from: string, to: string): void {
  if (!validTransitions(settings, from).includes(to)) throw invalidTransitionError(settings, from, to);
}

/**
 * Guard 4: outside `light`, no direct move to `done`; approval goes through POST /ticket/{id}/approve
 * once the ticket is in review, and a ticket not in review must be submitted first.
 */
export function checkDirectDone(mode: ReviewMode, ticket: TicketRow, to: string): void {
  if (to !== "done" || mode === "light") return;
  const inReview = isReviewStatus(ticket.status);
  throw new DomainError(
    "forbidden",
    "FORBIDDEN",
    inReview
      ? `Review mode "${mode}": a reviewed ticket is approved through the approve endpoint, not moved to done`
      : `Review mode "${mode}": a ticket reaches done only through review; submit it for review first`,
    {
      reviewMode: mode,
      status: ticket.status,
      recovery: inReview
        ? recovery(
          "APPROVE_VIA_ENDPOINT",
          `POST /ticket/${ticket.id}/approve`,
          "The ticket's reviewer (or an orchestrator) approves it; the assignee cannot approve their own work",
          { comment: "<optional review note>" },
        )
        : recovery(
          "REQUEST_REVIEW",
          "PATCH /ticket",
          "Submit the ticket for review with a review handoff (or hand off with POST /handoff)",
          {
            ticketId: ticket.id,
            action: "submit_for_review",
            reviewHandoff: { summary: "<what changed>", changedFiles: ["<path>"], branch: "<branch>" },
          },
        ),
    },
  );
}

/** Guard 3 applies in these modes. */
const CRITERIA_MODES: readonly ReviewMode[] = ["medium", "strict", "auto"];

/** Whether the mode asks for acknowledged acceptance criteria before work starts (guard 3). */
export function criteriaAckRequired(mode: ReviewMode): boolean {
  return CRITERIA_MODES.includes(mode);
}

/**
 * Guard 3: in medium, strict and auto, entering `in_progress` needs acknowledged acceptance criteria.
 * `extra` adds details (POST /begin adds `acceptanceCriteria` and `nextStep`).
 */
export function checkCriteria(
  mode: ReviewMode,
  ticket: Pick<TicketRow, "id" | "acceptance_criteria" | "criteria_acknowledged_at">,
  to: string,
  extra: { none?: Record<string, unknown>; unacknowledged?: Record<string, unknown> } = {},
): void {
  if (to !== "in_progress" || !criteriaAckRequired(mode)) return;
  const criteria = ticket.acceptance_criteria;
  if (criteria.length === 0) {
    throw new DomainError(
      "invalid",
      "VALIDATION_ERROR",
      `Review mode "${mode}": the ticket has no acceptance criteria; add some before starting it`,
      {
        reviewMode: mode,
        ...(extra.none ?? {}),
        recovery: recovery(
          "ADD_CRITERIA",
          `POST /ticket/${ticket.id}/acknowledge`,
          "Acknowledge the ticket with additionalCriteria (1 to 20), then start it",
          { additionalCriteria: [{ title: "<checkable criterion>", requiresEvidence: false }] },
        ),
      },
    );
  }
  if (ticket.criteria_acknowledged_at === null) {
    throw new DomainError(
      "invalid",
      "VALIDATION_ERROR",
      `Review mode "${mode}": acknowledge the ticket's ${criteria.length} acceptance criteria before starting it`,
      {
        reviewMode: mode,
        criteriaCount: criteria.length,
        ...(extra.unacknowledged ?? {}),
        recovery: recovery(
          "ACKNOWLEDGE_CRITERIA",
          `POST /ticket/${ticket.id}/acknowledge`,
          "Read the acceptance criteria and acknowledge them, then start the ticket",
          {},
        ),
      },
    );
  }
}

/** Guard 5: outside `light`, entering review, in_review, qa or done needs a TESTED or VERIFIED entry. */
export async function checkTested(
  trx: DbOrTrx,
  mode: ReviewMode,
  ticket: Pick<TicketRow, "id" | "project_id">,
  to: string,
): Promise<void> {
  if (!needsTestedEntry(mode, to)) return;
  const entry = await trx.selectFrom("ledger_entries").select("id")
    .where("project_id", "=", ticket.project_id).where("ticket_id", "=", ticket.id)
    .where("type", "in", ["TESTED", "VERIFIED"]).limit(1).executeTakeFirst();
  assertTested(mode, ticket, to, entry !== undefined);
}

/** Whether guard 5 applies to a move to `to`. */
export function needsTestedEntry(mode: ReviewMode, to: string): boolean {
  return mode !== "light" && (TESTED_GATE_STATUSES as readonly string[]).includes(to);
}

/** Guard 5 on what was read: `tested` tells whether the ticket has a TESTED or VERIFIED entry. */
export function assertTested(
  mode: ReviewMode,
  ticket: Pick<TicketRow, "id">,
  to: string,
  tested: boolean,
): void {
  if (tested || !needsTestedEntry(mode, to)) return;
  throw new DomainError(
    "invalid",
    "VALIDATION_ERROR",
    `Review mode "${mode}": moving the ticket to "${to}" needs a TESTED or VERIFIED ledger entry on it`,
    {
      reviewMode: mode,
      to,
      recovery: recovery(
        "LOG_TESTED_ENTRY",
        "POST /ledger",
        "Run the ticket's verification command and log the result as a TESTED entry on the ticket",
        { type: "TESTED", content: "<command run and its result>", ticketId: ticket.id },
      ),
    },
  );
}

export interface ReviewHandoff {
  summary?: string | undefined;
  changedFiles?: string[] | undefined;
  branch?: string | undefined;
  prUrl?: string | undefined;
}

const HANDOFF_FIELDS = ["summary", "changedFiles", "branch"] as const;

/** The fields a review handoff still lacks (prUrl is optional). */
export function missingHandoffFields(handoff: ReviewHandoff | null): string[] {
  return HANDOFF_FIELDS.filter((f) => {
    const value = handoff?.[f];
    return value === undefined || value === null || (Array.isArray(value) && value.length === 0) ||
      value === "";
  });
}

/** Entering a review status from outside review needs a complete review handoff. */
export function checkReviewHandoff(ticket: TicketRow, to: string, handoff: ReviewHandoff | null): void {
  if (!isReviewStatus(to) || isReviewStatus(ticket.status)) return;
  const fields = missingHandoffFields(handoff);
  if (fields.length === 0) return;
  throw new DomainError(
    "invalid",
    "REVIEW_HANDOFF_MISSING",
    `Moving the ticket to "${to}" needs a review handoff; missing: ${fields.join(", ")}`,
    {
      fields,
      recovery: recovery(
        "ATTACH_REVIEW_HANDOFF",
        "PATCH /ticket",
        "Send reviewHandoff { summary, changedFiles (1 to 200 paths), branch, prUrl? } with the move",
        {
          ticketId: ticket.id,
          status: to,
          reviewHandoff: {
            summary: "<what changed and why>",
            changedFiles: ["<path>"],
            branch: "<branch>",
            prUrl: "<optional PR URL>",
          },
        },
      ),
    },
  );
}

/**
 * GET /workflow (design): the caller's board as data, so an agent can plan moves without trial and
 * error: statuses in order, every status's valid transitions, the action table and the review mode.
 */
export function describeWorkflow(settings: ProjectSettings, mode: ReviewMode) {
  const statuses = boardColumns(settings);
  const transitions: Record<string, string[]> = {};
  const actions: Record<string, TicketAction[]> = {};
  for (const s of statuses) {
    transitions[s] = validTransitions(settings, s);
    actions[s] = validActions(settings, s);
  }
  return {
    board: isCustomBoard(settings) ? "custom" as const : "default" as const,
    reviewMode: mode,
    statuses,
    reviewStatus: reviewColumn(settings),
    terminal: statuses.filter(isTerminal),
    transitions,
    actions,
    guards: {
      criteriaRequiredForInProgress: mode === "medium" || mode === "strict" || mode === "auto",
      testedEntryRequiredFor: mode === "light" ? [] : [...TESTED_GATE_STATUSES],
      directDoneAllowed: mode === "light",
    },
  };
}
