import type { Selectable } from "kysely";
import type { SprintsTable } from "@/db/tables/work.ts";
import type { Actor } from "@/domain/core/actor.ts";
import { type DomainError, fail, recovery } from "@/domain/core/errors.ts";
import { resolveRefRecovery } from "@/domain/core/ticket-refs.ts";
import type { FieldError } from "@/shared/field-errors.ts";

export type SprintRow = Selectable<SprintsTable>;

/** The sprint resource (spec: Sprint), plus `startedAt` (activation time) and `updatedAt`. */
export function toSprint(row: SprintRow) {
  return {
    id: row.id,
    number: row.number,
    name: row.name,
    goal: row.goal,
    status: row.status,
    startDate: row.start_date,
    endDate: row.end_date,
    capacityPoints: row.capacity_points,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    startedAt: row.started_at?.toISOString() ?? null,
    completedAt: row.completed_at?.toISOString() ?? null,
  };
}

export const listSprintsRecovery = (hint = "List the project's sprints and use a sprint's id (UUID)") =>
  recovery("LIST_SPRINTS", "GET /sprint", hint, null);

export function sprintNotFound(sprintId: string) {
  return fail.notFound(`No sprint "${sprintId}" in this project`, {
    sprintId,
    recovery: listSprintsRecovery(),
  });
}

/** Recovery of every refused sprint field (SPRINT-027 to SPRINT-029). */
export const fixSprintFieldsRecovery = recovery(
  "FIX_SPRINT_FIELDS",
  "POST /sprint",
  "Dates are ISO 8601 (YYYY-MM-DD or date-time with offset), endDate not before startDate, " +
    "capacityPoints 0 to 9999, name 1 to 200, goal up to 2000",
  { name: "<name>", startDate: "<YYYY-MM-DD>", endDate: "<YYYY-MM-DD>", capacityPoints: "<0-9999>" },
);

/** 400 for a sprint field the rules refuse (recovery FIX_SPRINT_FIELDS). */
export function fixSprintFields(message: string, fields: { path: string; message: string; code: string }[]) {
  return fail.validation(message, { fields, recovery: fixSprintFieldsRecovery });
}

/**
 * Sub-agents never write sprints (spec: Authentication, sub-agent tokens). `svc_sub_` tokens lack
 * `write:sprint` and are refused by the route; this also refuses a session acting through X-Svc-SubAgent.
 */
export function assertSprintWriter(actor: Actor): void {
  if (actor.kind === "subagent" || actor.subAgentName !== null) {
    throw fail.forbidden("Sub-agents cannot write sprints", {
      requiredScope: "write:sprint",
      recovery: recovery(
        "REPAIR_OR_REFRESH",
        "POST /pair/connect",
        "Sprint writes need the parent agent's own session (without X-Svc-SubAgent)",
        { code: "<pairing code>" },
      ),
    });
  }
}

/**
 * The 400 VALIDATION_ERROR of a sprint route, with the spec's recovery chosen from the fields that
 * failed: LIST_SPRINTS for a sprint id, RESOLVE_TICKET_REF for a ticket id, else FIX_SPRINT_FIELDS.
 */
export function sprintValidationRefusal(fields: FieldError[], target: string): DomainError {
  const paths = fields.map((f) => f.path);
  const first = fields[0];
  const recovery = paths.some((p) => p.startsWith("sprintId"))
    ? listSprintsRecovery()
    : paths.some((p) => p.startsWith("ticketId"))
    ? resolveRefRecovery("<ticketId>")
    : target === "param"
    ? listSprintsRecovery()
    : fixSprintFieldsRecovery;
  return fail.validation(first ? `Invalid ${first.path}: ${first.message}` : "Validation failed", {
    target,
    fields,
    recovery,
  });
}
