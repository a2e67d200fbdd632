import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { ZodError } from "zod";
import { errorResponses } from "@/contracts/common.ts";
import {
  AcknowledgeBody,
  AcknowledgeResponse,
  BatchBody,
  BatchResponse,
  BoardQuery,
  BoardResponse,
  CreateTicketBody,
  CreateTicketResponse,
  DeleteResponse,
  DeleteTicketBody,
  GetTicketQuery,
  GetTicketResponse,
  IdempotentTicketResponse,
  LegacyCreateHeaders,
  LegacyCreateTicketBody,
  MAX_BATCH_TICKETS,
  missingAgentFirst,
  SearchQuery,
  SearchResponse,
  TicketIdParam,
} from "@/contracts/tickets.ts";
import {
  createRefusal,
  LEGACY_CREATE_DEPRECATED_AT,
  LEGACY_CREATE_SUNSET,
  legacyCreateAccepted,
  legacyCreateDeprecation,
} from "@/domain/tickets/agent-first.ts";
import { acknowledgeCriteria, MAX_CRITERIA } from "@/domain/tickets/acknowledge.ts";
import { type BatchRow, createBatch } from "@/domain/tickets/batch.ts";
import { readBoard } from "@/domain/tickets/board.ts";
import { deleteTicket } from "@/domain/tickets/delete.ts";
import { DUPLICATE_THRESHOLD, MAX_DUPLICATES } from "@/domain/tickets/duplicates.ts";
import { readTicket } from "@/domain/tickets/read.ts";
import { searchTickets } from "@/domain/tickets/search.ts";
import { createTicket, type CreateTicketFields, createTicketResponse } from "@/domain/tickets/create.ts";
import type { ActorCtx } from "@/domain/core/context.ts";
import { fail } from "@/domain/core/errors.ts";
import { actorCtx, type AppEnv } from "@/http/env.ts";
import { ok } from "@/http/envelope.ts";
import { errorObject, fieldErrors, statusOf } from "@/http/errors.ts";
import { defineRoute, handle } from "@/http/route.ts";
import { validationHook } from "@/http/validation.ts";

const TAG = "Tickets";

export const createTicketRoute = defineRoute({
  method: "post",
  path: "/ticket",
  tags: [TAG],
  summary: "Create a ticket",
  description: "Scope write:ticket; costs 3 units. Creates the ticket in `backlog` (a custom board without " +
    "backlog: its first column) with the next per-project number. Answers 201 with the ticket, " +
    "`possibleDuplicates`, `nextAction` and `url`.\n\n" +
    "**Agent-first fields** `expectedFiles`, `doneDefinition`, `verificationCommand`, `riskClass` are required: " +
    "without them 400 VALIDATION_ERROR with `details.missing`, `details.suggestions` (hint and example per " +
    "field) and recovery ADD_REQUIRED_FIELDS. Older clients identify themselves with the header " +
    "`X-Svc-Legacy-Create: 1`: until the sunset (2027-07-01T00:00:00Z, service clock) their create is accepted " +
    "without those fields, with headers `Deprecation` (RFC 9745) and `Sunset` (RFC 8594) and a `deprecation` " +
    "object `{ missing, deprecatedSince, sunset, message }` in data; after it the header is ignored.\n\n" +
    "**Idempotency**: `idempotencyKey` is unique per project for as long as the ticket exists (deleting the " +
    "ticket frees it). A repeat, also when both requests arrive at once, creates nothing and answers 200 " +
    "`{ id, number, ticketRef, status, createdAt, idempotent: true, url, nextAction }`.\n\n" +
    `**possibleDuplicates**: up to ${MAX_DUPLICATES} open tickets (not done or cancelled) whose title overlaps ` +
    `the new title by at least ${
      Math.round(DUPLICATE_THRESHOLD * 100)
    } percent, most similar first. Overlap = distinct shared title words / word count ` +
    "of the longer title; words are lower-cased runs of letters and digits, without one-letter words and " +
    "common English stopwords.\n\n" +
    "**assignToSelf**: the caller becomes assignee (an `AGENT_ASSIGNED` system ledger entry is written), the " +
    "ticket stays in backlog, supplied criteria are acknowledged (`criteriaAcknowledgedAt` set). " +
    "Orchestrators get 403 FORBIDDEN with guidance and recovery MINT_SUBAGENT_SESSION.\n\n" +
    "**priority** is stored as tag `priority:<level>` (normal adds none); the priority tag counts towards " +
    "the 10 tags. **parentId**: a ticket of this project (404 TICKET_NOT_FOUND otherwise), not cancelled, " +
    "and at most three levels of nesting (epic, feature, story): 422 VALIDATION_ERROR.\n\n" +
    "Errors: 400 VALIDATION_ERROR (fields, limits, malformed branch, non-UUID sprintId or parentId, more than " +
    "10 tags); 403 FORBIDDEN (scope, orchestrator assignToSelf); 404 TICKET_NOT_FOUND (parent); 404 NOT_FOUND " +
    "(sprint, recovery LIST_SPRINTS); 422 VALIDATION_ERROR (settings requireType, allowedTypes, " +
    "requireDescription; nesting; sprint complete, archived or cancelled); 422 BRIEF_REQUIRED (first ticket " +
    "of a project without a brief, recovery WRITE_PROJECT_BRIEF).",
  request: {
    headers: LegacyCreateHeaders,
    body: { required: true, content: { "application/json": { schema: CreateTicketBody } } },
  },
  responses: {
    201: { description: "Created", content: { "application/json": { schema: CreateTicketResponse } } },
    200: {
      description: "Idempotent repeat: the original ticket",
      content: { "application/json": { schema: IdempotentTicketResponse } },
    },
    ...errorResponses(404, 422),
  },
}, { scope: "write:ticket", cost: 3 });

export const batchTicketsRoute = defineRoute({
  method: "post",
  path: "/ticket/batch",
  tags: [TAG],
  summary: `Create up to ${MAX_BATCH_TICKETS} tickets`,
  description:
    `Scope write:ticket; costs 6 units. \`tickets\` holds 1 to ${MAX_BATCH_TICKETS} rows (else 400 VALIDATION_ERROR). ` +
    "Each row is a POST /ticket body validated and created exactly like a single create, in order, each in " +
    "its own transaction: the brief-required rule, `idempotencyKey` (a repeat is listed in `created` with " +
    "`idempotent: true`), project settings, parent and sprint checks apply per row. Rows are independent: a " +
    "failing row is listed in `errors` and never stops or rolls back the others. A row with `assignToSelf` " +
    "starts in `claimed` with the caller as assignee; `acceptanceCriteria`, `branch` and `priority` are " +
    "validated but not applied. Always HTTP 200: `{ created[] { index, id, number, ticketRef, status, " +
    "createdAt, url }, errors[] { index, title, status, error { code, message, details } }, total }` where " +
    "`index` is the 0-based row position, `status` the HTTP status a single create would have answered and " +
    "`total` the number of rows received. The legacy header is not honoured in batches.",
  request: { body: { required: true, content: { "application/json": { schema: BatchBody } } } },
  responses: {
    200: { description: "Per-row results", content: { "application/json": { schema: BatchResponse } } },
  },
}, { scope: "write:ticket", cost: 6 });

export const getTicketRoute = defineRoute({
  method: "get",
  path: "/ticket",
  tags: [TAG],
  summary: "Read one ticket",
  description: "Scope read:board (design: the spec names none, and read:ticket is granted to OAuth tokens " +
    "only, so session and sub-agent tokens could never read a ticket with it); costs 3 units. `key` " +
    "(<PREFIX>-<number>, wins over `id`) or `id` (UUID): " +
    "neither answers 400 VALIDATION_ERROR; an unknown ticket 404 TICKET_NOT_FOUND (recovery RESOLVE_TICKET_REF). " +
    "`include` adds lists, newest first: `comments`, `ledger` (agent and system entries, no audit entries), " +
    "`threads` (without messages), `activities` (of sessions linked to the ticket), `pullRequests` " +
    "(pull_request artifacts) and `ciStatus` (object: the newest artifact whose metadata.ciStatus or " +
    "metadata.ci.status reports a state; `unknown` otherwise). `limit` (1 to 100, default 20) and `offset` " +
    "page each list (offset pagination); `paginate=v2` wraps each list as `{ data, pagination { total, limit, " +
    "offset, hasMore } }`. Without include the ticket carries no comments or ledger.",
  request: { query: GetTicketQuery },
  responses: {
    200: { description: "The ticket", content: { "application/json": { schema: GetTicketResponse } } },
    ...errorResponses(404),
  },
}, { scope: "read:board", cost: 3 });

export const boardRoute = defineRoute({
  method: "get",
  path: "/board",
  tags: [TAG],
  summary: "The project's board",
  description:
    "Scope read:board; costs 1 unit. Tickets in number order, cursor pagination: pass `nextCursor` " +
    "back unchanged as `cursor` with the same filters (a cursor that is malformed or from other filters " +
    "answers 400 VALIDATION_ERROR, recovery RESTART_PAGINATION). Filters: `status` (a board column, comma " +
    "list allowed; unknown answers 400 with `validStatuses`, recovery USE_VALID_STATUS), `type`, `tags` " +
    "(comma list, all required), `assigneeId` (UUID, `me` or `none`), `sprintId` (UUID or `none`; malformed " +
    "answers 400, recovery LIST_SPRINTS), `include=cancelled` (cancelled tickets are hidden unless included or " +
    "filtered by status). `limit` 1 to 1000, default 50. `total` and `statusCounts` (every shown column, " +
    "zeros included) count all matching tickets across pages; `returned` counts this page. Rows add " +
    "`criteriaCount`, `criteriaPassed` (criteria whose test passed in the latest QA run), `artifactCount`, " +
    "`hasOpenArtifacts` and `nextAction` (derived from the ticket's state, the same for every reader). " +
    "`collisionWarnings` (advisory, never blocking, whole project): for each agent holding live claims, the " +
    "claimed files that are expected files of open tickets assigned to another agent (in any letter case, as " +
    "claims compare paths), with those tickets. " +
    "`columns` lists the board's statuses in order.",
  request: { query: BoardQuery },
  responses: { 200: { description: "One page", content: { "application/json": { schema: BoardResponse } } } },
}, { scope: "read:board", cost: 1 });

export const searchRoute = defineRoute({
  method: "get",
  path: "/search",
  tags: [TAG],
  summary: "Full-text ticket search",
  description:
    "Scope read:board (design: the spec names none; searching reads the board); costs 3 units. PostgreSQL full-text search (English stemming) over title and " +
    'description with web-search syntax: words (all required), "quoted phrases", `or`, `-excluded`. A ' +
    "query that is one of this project's ticket keys also finds that ticket, ranked first. Filters `status`, " +
    "`type`, `sprintId`, `include=cancelled` work as on the board (unknown status: 400, USE_VALID_STATUS). " +
    "Best match first (ts_rank, then highest number); offset pagination with `limit` (1 to 100, default 20) " +
    "and `offset`. Each result is the ticket plus `rank` and `snippet` (matches marked **like this**).",
  request: { query: SearchQuery },
  responses: { 200: { description: "Matches", content: { "application/json": { schema: SearchResponse } } } },
}, { scope: "read:board", cost: 3 });

export const deleteTicketRoute = defineRoute({
  method: "delete",
  path: "/ticket",
  tags: [TAG],
  summary: "Delete a ticket",
  description:
    "Scope write:ticket; costs 3 units. Body `{ ticketId }` (UUID or key). Only the ticket's creator " +
    "(with its sub-agents) or an orchestrator: 403 FORBIDDEN otherwise. Refused with 400 VALIDATION_ERROR, " +
    "nothing deleted, while the ticket is `in_progress`, `in_review` or `qa` (recovery USE_VALID_TRANSITION: " +
    "cancel it instead) or has open claims (live, unreleased, unexpired; recovery RETRY_LATER, " +
    "`details.openClaims`). 404 TICKET_NOT_FOUND for an unknown ticket. Children stay, without parent; ledger " +
    "entries stay. Response `{ deleted: { id, number, ticketRef, title } }`.",
  request: { body: { required: true, content: { "application/json": { schema: DeleteTicketBody } } } },
  responses: {
    200: { description: "Deleted", content: { "application/json": { schema: DeleteResponse } } },
    ...errorResponses(404, 409),
  },
}, { scope: "write:ticket", cost: 3 });

export const acknowledgeRoute = defineRoute({
  method: "post",
  path: "/ticket/{ticketId}/acknowledge",
  tags: [TAG],
  summary: "Acknowledge a ticket's acceptance criteria",
  description:
    'Scope write:ticket; costs 3 units (every path under /ticket counts as "any method on /ticket"). ' +
    "The path takes the internal id only (a key or unknown id answers 404 TICKET_NOT_FOUND). Body optional: " +
    "`additionalCriteria` (up to 20, each `{ title 1 to 500, description? up to 2000, requiresEvidence " +
    "(default false) }`), stored with `source: manual`; required when the ticket has no criteria (400 " +
    `VALIDATION_ERROR, recovery ADD_CRITERIA). A ticket holds at most ${MAX_CRITERIA} criteria in all (400). Sets ` +
    "`criteriaAcknowledgedAt`. Idempotent: a repeat (same criteria titles, case-insensitive) adds and changes " +
    "nothing and answers `alreadyAcknowledged: true`. 403 FORBIDDEN when the ticket is assigned to another " +
    "agent (orchestrators excepted); 409 CONFLICT when a done or cancelled ticket would change. Response " +
    "`{ ticketId, ticketRef, criteriaAcknowledgedAt, acceptanceCriteria, added, alreadyAcknowledged, nextAction }`.",
  request: {
    params: TicketIdParam,
    body: { required: false, content: { "application/json": { schema: AcknowledgeBody } } },
  },
  responses: {
    200: { description: "Acknowledged", content: { "application/json": { schema: AcknowledgeResponse } } },
    ...errorResponses(404, 409),
  },
}, { scope: "write:ticket", cost: 3 });

/** Validates one create body like POST /ticket does, as a batch row. */
export function parseCreateRow(raw: unknown): BatchRow {
  const title =
    typeof raw === "object" && raw !== null && typeof (raw as { title?: unknown }).title === "string"
      ? (raw as { title: string }).title
      : null;
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    return {
      ok: false,
      title: null,
      error: fail.validation("Each row must be a ticket object", { target: "json" }),
    };
  }
  const parsed = CreateTicketBody.safeParse(raw);
  if (parsed.success) return { ok: true, input: parsed.data };
  return { ok: false, title, error: createValidationError(raw, parsed.error) };
}

function createValidationError(raw: unknown, error: ZodError) {
  return createRefusal(raw, missingAgentFirst(raw), fieldErrors(error));
}

async function respondCreate(
  c: Context<AppEnv>,
  ctx: ActorCtx,
  input: CreateTicketFields,
  missing: string[] = [],
) {
  const outcome = await createTicket(ctx, input, "single");
  const res = await createTicketResponse(ctx, outcome);
  const legacy = missing.length > 0 ? { deprecation: legacyCreateDeprecation(missing) } : {};
  if (missing.length > 0) {
    // RFC 9745 Deprecation and RFC 8594 Sunset.
    c.header("Deprecation", `@${Math.floor(LEGACY_CREATE_DEPRECATED_AT.getTime() / 1000)}`);
    c.header("Sunset", LEGACY_CREATE_SUNSET.toUTCString());
  }
  return res.created ? ok(c, { ...res.data, ...legacy }, 201) : ok(c, { ...res.data, ...legacy }, 200);
}

/** Request header by which an older client (built before the agent-first fields) identifies itself. */
export const LEGACY_CREATE_HEADER = "X-Svc-Legacy-Create";

type HookResult = { success: true } | { success: false; error: ZodError; target?: string; data?: unknown };

/**
 * POST /ticket's validation hook: a body lacking agent-first fields gets ADD_REQUIRED_FIELDS (or, from an
 * older client before the sunset, is accepted without them); everything else the common 400.
 */
async function createHook(result: HookResult, c: Context<AppEnv>): Promise<Response | undefined> {
  if (result.success || result.target !== "json") return validationHook(result, c);
  const missing = missingAgentFirst(result.data);
  if (missing.length === 0) return validationHook(result, c);
  const ctx = actorCtx(c.get("deps"), c.get("actor"));
  const legacy = ["1", "true"].includes((c.req.header(LEGACY_CREATE_HEADER) ?? "").trim().toLowerCase());
  if (legacyCreateAccepted(legacy, ctx.clock.now())) {
    const relaxed = LegacyCreateTicketBody.safeParse(result.data);
    if (!relaxed.success) return validationHook({ success: false, error: relaxed.error, target: "json" }, c);
    return await respondCreate(c, ctx, relaxed.data, missing);
  }
  throw createValidationError(result.data, result.error);
}

/** Tickets routes: create, batch, read, board, search, delete, acknowledge. */
export function registerTickets(api: OpenAPIHono<AppEnv>): void {
  handle(api, createTicketRoute, ({ c, body, ctx }) => respondCreate(c, ctx, body), createHook);
  handle(api, batchTicketsRoute, async ({ c, body, ctx }) => {
    const result = await createBatch(ctx, body.tickets.map(parseCreateRow));
    const errors = result.errors.map(({ index, title, refusal }) => ({
      index,
      title,
      status: statusOf(refusal),
      error: errorObject(refusal),
    }));
    return ok(c, { ...result, errors });
  });
  handle(api, getTicketRoute, async ({ c, query, ctx }) => ok(c, await readTicket(ctx, query)));
  handle(api, boardRoute, async ({ c, query, ctx }) => ok(c, await readBoard(ctx, query)));
  handle(api, searchRoute, async ({ c, query, ctx }) => ok(c, await searchTickets(ctx, query)));
  handle(api, deleteTicketRoute, async ({ c, body, ctx }) => ok(c, await deleteTicket(ctx, body.ticketId)));
  handle(api, acknowledgeRoute, async ({ c, params, body, ctx }) => {
    return ok(c, await acknowledgeCriteria(ctx, params.ticketId, body?.additionalCriteria ?? []));
  });
}
