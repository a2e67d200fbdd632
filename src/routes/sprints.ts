import type { OpenAPIHono } from "@hono/zod-openapi";
import { errorResponses, json } from "@/contracts/common.ts";
import {
  CurrentSprintQuery,
  CurrentSprintResponse,
  SprintAssignBody,
  SprintAssignResponse,
  SprintCreateBody,
  SprintCreatedResponse,
  SprintDetailResponse,
  SprintIdParams,
  SprintListResponse,
  SprintPatchBody,
  SprintPatchResponse,
  SprintPlanResponse,
} from "@/contracts/sprints.ts";
import { ASSIGN_IDEMPOTENCY_MS, assignTicketToSprint } from "@/domain/sprints/assign.ts";
import { sprintValidationRefusal } from "@/domain/sprints/common.ts";
import { createSprint } from "@/domain/sprints/create.ts";
import { currentSprint, getSprint, listSprints } from "@/domain/sprints/read.ts";
import { patchSprint } from "@/domain/sprints/update.ts";
import { PLAN_CLOSED_STATUSES, sprintPlan } from "@/domain/sprints/plan.ts";
import type { AppEnv } from "@/http/env.ts";
import { ok } from "@/http/envelope.ts";
import { fieldErrors } from "@/http/errors.ts";
import { defineRoute, handle, type ValidationHook } from "@/http/route.ts";

const TAGS = ["Sprints"];
const WRITE = "Needs scope `write:sprint`; sub-agents (svc_sub_ tokens, X-Svc-SubAgent) never have it: 403 " +
  "FORBIDDEN with recovery REPAIR_OR_REFRESH. ";

export const sprintListRoute = defineRoute({
  method: "get",
  path: "/sprint",
  tags: TAGS,
  summary: "List the project's sprints",
  description: "Any valid token. `data` is every sprint of the project, highest number first.",
  responses: { 200: { description: "Sprints", ...json(SprintListResponse) } },
}, { cost: 1 });

const currentRoute = defineRoute({
  method: "get",
  path: "/sprint/current",
  tags: TAGS,
  summary: "The active sprint with its progress",
  description: "Any valid token. `sprint` `{ id, name, number, goal, status, startedAt, completedAt }` " +
    "(`startedAt` is the sprint's startDate: the one it was planned with, or the activation time when it " +
    "had none). `summary`: `total` tickets in the sprint, `byStatus` counts, " +
    "`completionPct` = done / non-cancelled tickets, rounded (0 when empty), `agentProgress[]` one row per " +
    "assignee by name `{ agentId, agentName, inProgress, inReview, done }` where `inReview` counts only " +
    "status `in_review`. `include=tickets` adds `tickets` (sprint rows with `assigneeAgentId`, " +
    "`assigneeAgentName`, by number); an unknown include value answers 400. 404 NO_ACTIVE_SPRINT when no " +
    "sprint is active (recovery LIST_SPRINTS).",
  request: { query: CurrentSprintQuery },
  responses: {
    200: { description: "Current sprint", ...json(CurrentSprintResponse) },
    ...errorResponses(404),
  },
}, { cost: 1 });

const getRoute = defineRoute({
  method: "get",
  path: "/sprint/{sprintId}",
  tags: TAGS,
  summary: "Read one sprint with its release notes",
  description: "Any valid token. The sprint plus `releaseNotes` (stored when it completed; null before). " +
    "Errors: 400 (sprintId not a UUID; recovery LIST_SPRINTS), 404 NOT_FOUND (recovery LIST_SPRINTS).",
  request: { params: SprintIdParams },
  responses: { 200: { description: "The sprint", ...json(SprintDetailResponse) }, ...errorResponses(404) },
}, { cost: 1 });

export const sprintCreateRoute = defineRoute({
  method: "post",
  path: "/sprint",
  tags: TAGS,
  summary: "Create a sprint (status planning)",
  description: WRITE + "Every field optional; `name` defaults to `Sprint N` where N is the new number (the " +
    "project's highest plus one). Dates: ISO 8601 `YYYY-MM-DD` (covering that whole day, UTC) or a " +
    "date-time with an offset; `endDate` must not be earlier than `startDate`. Answers 201 `{ id, number, " +
    "name, status: planning, createdAt }`. Errors: 400 VALIDATION_ERROR with recovery FIX_SPRINT_FIELDS; " +
    "403; 409 CONFLICT when a concurrent create took the number (nothing created; recovery RETRY); 429.",
  request: { body: { required: true, ...json(SprintCreateBody) } },
  responses: { 201: { description: "Created", ...json(SprintCreatedResponse) }, ...errorResponses(409) },
}, { scope: "write:sprint", cost: 2 });

const patchRoute = defineRoute({
  method: "patch",
  path: "/sprint/{sprintId}",
  tags: TAGS,
  summary: "Edit a sprint or move it through its statuses",
  description: WRITE + 'At least one field (400 otherwise). `goal: ""` clears the goal; `startDate`, ' +
    "`endDate`, `capacityPoints` accept null to clear. Transitions: planning→active (start date set to now " +
    "when absent; at most one active sprint per project, enforced by the database: another active sprint " +
    "answers 422 VALIDATION_ERROR), active→complete, complete→archived, planning or active→cancelled. Any " +
    "other status, including the current one, answers 422 VALIDATION_ERROR with `details.validTransitions`. " +
    "Completing or cancelling moves every non-done ticket out of the sprint (`sprintId` null; their ids in " +
    "`removedTicketIds`). Response `{ id, status, name, updatedFields }` (`updatedFields`: the fields sent).\n\n" +
    "On completion the response adds `releaseNotes` (title, sprint, completedAt, summary { done, " +
    "carriedOver, storyPointsDone }, items: the done tickets by number with assignee, carriedOver, and the " +
    "same as `markdown`; also stored on the sprint) and `releasePublish`: when at least one ticket is done, " +
    "release `sprint-<number>` is published to the project's own channels — a system STATUS ledger entry " +
    "with the notes and a `sprint.released` event — and `releasePublish` is `{ published: true, channel: " +
    "ledger, ledgerEntryId, eventKind: sprint.released, version }`; otherwise `{ published: false, reason: " +
    "no_done_tickets }` with the other fields null. Errors: 400 (recovery FIX_SPRINT_FIELDS; malformed " +
    "sprintId: LIST_SPRINTS), 403, 404 NOT_FOUND (recovery LIST_SPRINTS), 422 VALIDATION_ERROR.",
  request: { params: SprintIdParams, body: { required: true, ...json(SprintPatchBody) } },
  responses: { 200: { description: "Updated", ...json(SprintPatchResponse) }, ...errorResponses(404, 422) },
}, { scope: "write:sprint", cost: 2 });

export const sprintAssignRoute = defineRoute({
  method: "post",
  path: "/sprint/assign",
  tags: TAGS,
  summary: "Put a ticket in a sprint, or take it out",
  description: WRITE +
    "`ticketId`: UUID or `<PREFIX>-<number>`; `sprintId`: sprint UUID (never its number) " +
    "or null to unassign. Response `{ ticketId, sprintId, action }` (`assigned` or `unassigned`, ticketId " +
    "resolved to the UUID). A ticket already in the requested state answers success with `idempotent: true, " +
    "noop: true` and changes nothing. `idempotencyKey` (1 to 120, scoped to your agent): repeating it within " +
    `${
      ASSIGN_IDEMPOTENCY_MS / 1000
    } seconds returns the first result unchanged (header \`Idempotent-Replayed: true\`) and writes nothing. ` +
    "Errors: 400 (malformed sprintId: recovery LIST_SPRINTS; malformed ticket reference: recovery " +
    "RESOLVE_TICKET_REF), 403, 404 TICKET_NOT_FOUND (RESOLVE_TICKET_REF), 404 NOT_FOUND (unknown sprint, " +
    "LIST_SPRINTS), 422 VALIDATION_ERROR (the sprint is complete, archived or cancelled).",
  request: { body: { required: true, ...json(SprintAssignBody) } },
  responses: {
    200: { description: "Assigned or unassigned", ...json(SprintAssignResponse) },
    ...errorResponses(404, 422),
  },
}, { scope: "write:sprint", cost: 2 });

export const sprintPlanRoute = defineRoute({
  method: "get",
  path: "/sprint/{sprintId}/plan",
  tags: TAGS,
  summary: "Which of the sprint's open tickets can run at the same time",
  description: "Extension of the spec (issue 24): a parallel plan. Any valid token. The sprint's tickets " +
    `that are not ${PLAN_CLOSED_STATUSES.join(" or ")}, in priority order (critical, high, normal, low) ` +
    "then by number, each put into the first wave where no ticket's `expectedFiles` overlap its own (paths " +
    "compare as claims do, letter case ignored); a ticket without expected files overlaps nothing. " +
    "`waves[] { tickets[] { key, title, priority, expectedFiles } }` in order, and `blockedByClaims[] { key, " +
    "files, holders }`: tickets whose expected files are held now by an agent other than the ticket's " +
    "assignee (for an unassigned ticket: other than you); they also appear in their wave. The same data " +
    "always gives the same plan. Errors: 400 (sprintId not a UUID; recovery LIST_SPRINTS), 404 NOT_FOUND " +
    "(recovery LIST_SPRINTS).",
  request: { params: SprintIdParams },
  responses: { 200: { description: "The plan", ...json(SprintPlanResponse) }, ...errorResponses(404) },
}, { cost: 1 });

/** The usual 400 VALIDATION_ERROR, plus the spec's recovery (FIX_SPRINT_FIELDS, LIST_SPRINTS, RESOLVE_TICKET_REF). */
const sprintHook: ValidationHook = (result) => {
  if (result.success) return undefined;
  throw sprintValidationRefusal(fieldErrors(result.error), result.target ?? "json");
};

export function registerSprints(api: OpenAPIHono<AppEnv>): void {
  handle(api, sprintListRoute, async ({ c, ctx }) => ok(c, await listSprints(ctx)));
  // Registered before /sprint/{sprintId} so that `current` is never read as an id.
  handle(api, currentRoute, async ({ c, query, ctx }) => ok(c, await currentSprint(ctx, query.include)));
  handle(
    api,
    getRoute,
    async ({ c, params, ctx }) => ok(c, await getSprint(ctx, params.sprintId)),
    sprintHook,
  );
  handle(
    api,
    sprintPlanRoute,
    async ({ c, params, ctx }) => ok(c, await sprintPlan(ctx, params.sprintId)),
    sprintHook,
  );
  handle(api, sprintAssignRoute, async ({ c, body, ctx }) => {
    const { result, replayed } = await assignTicketToSprint(ctx, body);
    if (replayed) c.header("Idempotent-Replayed", "true");
    return ok(c, result);
  }, sprintHook);
  handle(
    api,
    sprintCreateRoute,
    async ({ c, body, ctx }) => ok(c, await createSprint(ctx, body), 201),
    sprintHook,
  );
  handle(
    api,
    patchRoute,
    async ({ c, params, body, ctx }) => ok(c, await patchSprint(ctx, params.sprintId, body)),
    sprintHook,
  );
}
