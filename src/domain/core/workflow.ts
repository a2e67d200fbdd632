import { sql } from "kysely";
import type { Database, DbOrTrx } from "@/db/database.ts";
import type { ProjectSettings } from "@/db/tables/foundation.ts";
import { toJson } from "@/db/tables/types.ts";
import { writeWithEvent } from "@/domain/core/record-event.ts";
import { DomainError, recovery } from "@/domain/core/errors.ts";
import type { TicketRow } from "./ticket-serialize.ts";
import type { UpdateObject } from "kysely";

/**
 * The default board's columns, in order (spec: States and transitions), plus `changes_requested`,
 * the reviewer's outcome (design: TKT-069). `in_review`, `qa` and `sprint_backlog` are column names a
 * custom board may declare; the default board does not have them (they are unknown statuses there).
 */
export const DEFAULT_COLUMNS = [
  "backlog",
  "claimed",
  "in_progress",
  "blocked",
  "needs_review",
  "review",
  "changes_requested",
  "done",
  "cancelled",
] as const;

/** Statuses that count as "in review" wherever the spec says so (handoff keeps a ticket there). */
export const REVIEW_STATUSES = ["review", "in_review", "qa", "needs_review"] as const;
/** Statuses the ticket's reviewer may move a ticket out of (spec: Reviewer row). */
export const REVIEWER_STATUSES = ["review", "in_review", "qa"] as const;
/** Where the reviewer may move it: done (through approval outside light), changes_requested, in_progress. */
export const REVIEWER_TARGETS = ["done", "changes_requested", "in_progress"] as const;
/** Guard 5: entering these outside `light` needs a TESTED or VERIFIED ledger entry on the ticket. */
export const TESTED_GATE_STATUSES = ["review", "in_review", "qa", "done"] as const;
export const TERMINAL_STATUSES = ["done", "cancelled"] as const;
/** Not started yet: a claim may start from here; submit_for_review may not. */
export const UNSTARTED_STATUSES = ["backlog", "sprint_backlog", "claimed"] as const;
import type { ReviewMode } from "@/shared/vocabulary.ts";

export type { ReviewMode };

/** The default board's transitions (spec table, plus the reviewer's `changes_requested`). */
const DEFAULT_TRANSITIONS: Record<string, readonly string[]> = {
  backlog: ["claimed", "in_progress", "cancelled"],
  claimed: ["in_progress", "backlog", "cancelled"],
  in_progress: ["review", "needs_review", "blocked", "backlog", "cancelled"],
  blocked: ["in_progress", "backlog", "cancelled"],
  needs_review: ["review", "in_progress", "backlog", "cancelled"],
  review: ["done", "in_progress", "cancelled", "changes_requested"],
  changes_requested: ["in_progress", "backlog", "cancelled"],
  done: [],
  cancelled: [],
};

export function isCustomBoard(settings: ProjectSettings): boolean {
  return Array.isArray(settings.columns) && settings.columns.length > 0;
}

/**
 * The project's valid statuses, in board order: the default board, or the custom columns with
 * `backlog` first and `cancelled` last added when the columns lack them (a custom board can always
 * move a ticket to either, so both are always statuses of it).
 */
export function boardColumns(settings: ProjectSettings): string[] {
  if (!isCustomBoard(settings)) return [...DEFAULT_COLUMNS];
  const columns = [...new Set(settings.columns as string[])];
  if (!columns.includes("backlog")) columns.unshift("backlog");
  if (!columns.includes("cancelled")) columns.push("cancelled");
  return columns;
}

export function isTerminal(status: string): boolean {
  return (TERMINAL_STATUSES as readonly string[]).includes(status);
}

export function isReviewStatus(status: string): boolean {
  return (REVIEW_STATUSES as readonly string[]).includes(status);
}

export function isReviewerStatus(status: string): boolean {
  return (REVIEWER_STATUSES as readonly string[]).includes(status);
}

/**
 * Statuses a ticket in `from` may move to with a status write. Default board: the spec's table.
 * Custom board: the previous and next column, `backlog`, `blocked` (when a column) and `cancelled`;
 * from `review`, `in_review` or `qa` also the reviewer's targets that are columns. `done` and
 * `cancelled` are terminal on every board. A status the board does not know (columns changed since)
 * may still leave for `backlog` or `cancelled`.
 */
export function validTransitions(settings: ProjectSettings, from: string): string[] {
  if (isTerminal(from)) return [];
  const columns = boardColumns(settings);
  if (!columns.includes(from)) return ["backlog", "cancelled"].filter((s) => s !== from);
  if (!isCustomBoard(settings)) return [...(DEFAULT_TRANSITIONS[from] ?? [])];
  const index = columns.indexOf(from);
  const targets = new Set<string>();
  const prev = columns[index - 1];
  const next = columns[index + 1];
  if (prev) targets.add(prev);
  if (next) targets.add(next);
  targets.add("backlog");
  if (columns.includes("blocked")) targets.add("blocked");
  targets.add("cancelled");
  if (isReviewerStatus(from)) {
    for (const s of REVIEWER_TARGETS) if (columns.includes(s)) targets.add(s);
  }
  targets.delete(from);
  return columns.filter((c) => targets.has(c));
}

/** The status `submit_for_review` (and a handoff needing review) enters: `in_review`, else `review`. */
export function reviewColumn(settings: ProjectSettings): string | null {
  const columns = boardColumns(settings);
  if (columns.includes("in_review")) return "in_review";
  if (columns.includes("review")) return "review";
  return null;
}

// ---- Refusals of guards 1 and 6 (shared with handoff and ledger) ----

export function unknownStatusError(settings: ProjectSettings, status: string): DomainError {
  const validStatuses = boardColumns(settings);
  return new DomainError(
    "invalid",
    "VALIDATION_ERROR",
    `Unknown status "${status}" on this project's board`,
    {
      status,
      validStatuses,
      recovery: recovery(
        "USE_VALID_STATUS",
        "PATCH /ticket",
        `Use one of the board's statuses: ${validStatuses.join(", ")}`,
        { ticketId: "<ticket id or key>", status: `<one of ${validStatuses.join("|")}>` },
      ),
    },
  );
}

export function invalidTransitionError(
  settings: ProjectSettings,
  from: string,
  to: string,
  extra: Record<string, unknown> = {},
): DomainError {
  const validTransitions_ = validTransitions(settings, from);
  const hint = validTransitions_.length === 0
    ? `"${from}" is terminal: the ticket cannot move any more`
    : `From "${from}" the ticket may move to: ${validTransitions_.join(", ")}`;
  return new DomainError(
    "unprocessable",
    "INVALID_TRANSITION",
    `Cannot move a ticket from "${from}" to "${to}"`,
    {
      from,
      to,
      validTransitions: validTransitions_,
      ...extra,
      recovery: recovery(
        "USE_VALID_TRANSITION",
        "PATCH /ticket",
        hint,
        validTransitions_.length === 0
          ? null
          : { ticketId: "<ticket id or key>", status: `<one of ${validTransitions_.join("|")}>` },
      ),
    },
  );
}

/** Guard 6: the ticket is no longer in the status the write was decided on. */
export function statusConflictError(
  ticketId: string,
  expectedStatus: string,
  observedStatus: string | null,
  message?: string,
): DomainError {
  return new DomainError(
    "conflict",
    "CONFLICT",
    message ??
      (observedStatus === null
        ? "The ticket was deleted during the call; nothing was written"
        : `The ticket's status changed during the call (expected "${expectedStatus}", now "${observedStatus}"); ` +
          "nothing was written"),
    {
      ticketId,
      expectedStatus,
      observedStatus,
      recovery: recovery(
        "REFRESH_TICKET_STATE",
        "GET /ticket",
        "Read the ticket again and decide the move from its current status",
        { id: ticketId },
      ),
    },
  );
}

// ---- Guard 6: compare-and-swap status write ----

export interface MoveStatusInput {
  projectId: string;
  ticketId: string;
  /** The ticket's number, for the event. */
  number: number;
  /** The status the caller observed and decided on; the write applies only while it still holds. */
  from: string;
  to: string;
  now: Date;
  /** The acting agent, for the event. */
  agentId: string | null;
  /** Other columns to write in the same conditional UPDATE (assignee, review history...). */
  set?: UpdateObject<Database, "tickets">;
  /** When given, the write also requires this assignee (null: unassigned) still in place. */
  expectAssignee?: string | null;
  /** Free-form data added to the `ticket.moved` event (action, trigger...). */
  eventData?: Record<string, unknown>;
}

/**
 * Moves a ticket with one conditional UPDATE ... WHERE status = from (guard 6), in the caller's
 * transaction or alone, with its `ticket.moved` event in the same statement. When no row matches, the
 * status (or assignee) changed since it was read: throws 409 CONFLICT with `details.observedStatus` and recovery REFRESH_TICKET_STATE,
 * having written nothing. Returns the updated row.
 */
export async function moveStatus(db: DbOrTrx, input: MoveStatusInput): Promise<TicketRow> {
  let query = db.updateTable("tickets")
    .set({
      ...(input.set ?? {}),
      status: input.to,
      status_changed_at: input.now,
      updated_at: input.now,
    })
    .where("id", "=", input.ticketId)
    .where("project_id", "=", input.projectId)
    .where("status", "=", input.from);
  if (input.expectAssignee !== undefined) {
    query = query.where("assignee_agent_id", "is not distinct from", input.expectAssignee);
  }
  // The write and its event in one statement (no transaction needed when it is the call's only write).
  const row = await writeWithEvent<TicketRow>(db, query.returningAll(), {
    projectId: input.projectId,
    kind: "ticket.moved",
    entityType: "ticket",
    entityId: input.ticketId,
    agentId: input.agentId,
    data: { number: input.number, from: input.from, to: input.to, ...(input.eventData ?? {}) },
    now: input.now,
  });
  if (!row) throw await observedConflict(db, input.ticketId, input.from, input.expectAssignee);
  return row;
}

/** The 409 for a conditional write that matched no row: reports what the ticket looks like now. */
export async function observedConflict(
  trx: DbOrTrx,
  ticketId: string,
  expectedStatus: string,
  expectAssignee?: string | null,
): Promise<DomainError> {
  const now = await trx.selectFrom("tickets").select(["status", "assignee_agent_id"])
    .where("id", "=", ticketId).executeTakeFirst();
  if (now && now.status === expectedStatus && expectAssignee !== undefined) {
    const error = statusConflictError(
      ticketId,
      expectedStatus,
      now.status,
      "The ticket's assignee changed during the call; nothing was written",
    );
    error.details!.observedAssigneeAgentId = now.assignee_agent_id;
    return error;
  }
  return statusConflictError(ticketId, expectedStatus, now?.status ?? null);
}

/** A review history item appended in SQL (jsonb concatenation), so concurrent appends never lose one. */
export function appendReviewHistory(item: Record<string, unknown>) {
  return sql<string>`review_history || ${toJson([item])}::jsonb`;
}
