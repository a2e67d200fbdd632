import type { OpenAPIHono } from "@hono/zod-openapi";
import { errorResponses } from "@/contracts/common.ts";
import {
  LedgerBatchBody,
  LedgerBatchResponse,
  LedgerEntryBody,
  LedgerListResponse,
  LedgerQuery,
  LedgerWriteResponse,
} from "@/contracts/ledger.ts";
import { appendEntry } from "@/domain/ledger/append.ts";
import { appendBatch, MAX_BATCH } from "@/domain/ledger/batch.ts";
import { LEDGER_LABELS } from "@/domain/ledger/labels.ts";
import { listLedger } from "@/domain/ledger/query.ts";
import type { AppEnv } from "@/http/env.ts";
import { ok } from "@/http/envelope.ts";
import { defineRoute, handle } from "@/http/route.ts";

export const ledgerWriteRoute = defineRoute({
  method: "post",
  path: "/ledger",
  tags: ["Ledger"],
  summary: "Append a ledger entry",
  description:
    "Scope write:ledger. The ledger is append-only: no endpoint edits or deletes an entry (the database refuses it). " +
    "Response 201 `{ id, createdAt, nextAction }`, plus `warnings` for a DONE entry without a TESTED or " +
    "VERIFIED entry on its ticket (or in its session when it has no ticket), `ticket` when a BLOCKED entry " +
    "moved its ticket, `threadId` when a blocker thread was opened, `agentOffline` after a critical ALERT. " +
    "nextAction.action: RESUME_WORK, HANDOFF (after DONE), PICK_TICKET (after BLOCKED), WAIT (after a " +
    "critical ALERT).\n\n" +
    "Rules: `type` exact (unknown: 400). `content` 1 to 2000, required except for PROGRESS with a payload " +
    "(the payload replaces content: `Did: ...\\nNext: ...\\nBlockers: ...`). DECISION needs " +
    "payload.rationale (422 VALIDATION_ERROR). AGENT_JOINED is service-only and AGENT_SPAWNED, " +
    "AGENT_ASSIGNED, AGENT_COMPLETED are open to orchestrators only (422 INVALID). `sessionId` defaults to " +
    "the token's session; with OAuth tokens it is required (400, recovery PROVIDE_SESSION_ID); a session " +
    "that is not your own answers 403 FORBIDDEN (recovery PROVIDE_SESSION_ID). `ticketId` UUID or key; " +
    "unresolvable: 422 VALIDATION_ERROR, recovery RESOLVE_TICKET_REF. `lineRef` requires `fileRef` (400). " +
    `\`labels\` up to 10 of: ${LEDGER_LABELS.join(", ")}; any other: 422 INVALID. ` +
    "`threadId` must be a thread of the project (422). `blockedByFile` only with BLOCKED (400).\n\n" +
    "Fencing (extension, issue 25): `fence` (requires `fileRef`, else 400) is the fencing token you hold " +
    "for that file (POST /claim `claims[].fence`); when it is no longer current (your claim ended, or another " +
    "claim holds the file now) the answer is 409 FENCE_STALE (an extension of the spec's error codes) with " +
    "`details { file, yourFence, currentFence?, holder? }` and recovery action RECLAIM_FILES (an extension " +
    "of the spec's list: claim the file again, then retry with the new fence); nothing is written.\n\n" +
    "Side effects (this endpoint only, not the batch): BLOCKED moves its ticket (or, without ticketId, your " +
    "single in-progress ticket) to `blocked` by compare-and-swap, from in_progress on the default board or " +
    "from any open status on a custom board with a blocked column; a ticket that cannot move leaves a " +
    "warning. BLOCKED with blockedByFile opens a thread about the file unless one is open for it, and " +
    "notifies the file's holder. A critical ALERT takes the whole agent offline (sub-agents included) and " +
    "revokes all its credentials (API keys, session, sub-agent and refresh tokens).\n\n" +
    "Never refused with LEDGER_STALE. 429 BACKPRESSURE over 90 ledger writes per 5 minutes or 3 critical " +
    "alerts per minute, counted per agent identity (each sub-agent has its own budget).",
  request: { body: { required: true, content: { "application/json": { schema: LedgerEntryBody } } } },
  responses: {
    201: { description: "Written", content: { "application/json": { schema: LedgerWriteResponse } } },
    ...errorResponses(409, 422),
  },
}, { scope: "write:ledger", cost: 2, staleExempt: true });

export const ledgerBatchRoute = defineRoute({
  method: "post",
  path: "/ledger/batch",
  tags: ["Ledger"],
  summary: `Append up to ${MAX_BATCH} ledger entries`,
  description:
    `Scope write:ledger. \`entries\`: 1 to ${MAX_BATCH} bodies shaped like POST /ledger (empty or malformed: 400; ` +
    `more than ${MAX_BATCH}: ` +
    "422 VALIDATION_ERROR with recovery SPLIT_BATCH). Processed in order and independently: each entry is " +
    "validated and written on its own, a failing entry does not stop the others. Always HTTP 200 with " +
    "`{ ok, results[] { ok, id, createdAt } or { ok: false, error { code, message, details } }, succeeded, " +
    "failed }`, results[i] belonging to entries[i]. No side effects: a critical ALERT does not suspend, " +
    "BLOCKED does not move the ticket, blockedByFile opens no thread. Each entry counts as a ledger write " +
    "for BACKPRESSURE (an entry over budget fails with BACKPRESSURE). Exempt from LEDGER_STALE.",
  request: { body: { required: true, content: { "application/json": { schema: LedgerBatchBody } } } },
  responses: {
    200: { description: "Processed", content: { "application/json": { schema: LedgerBatchResponse } } },
    ...errorResponses(422),
  },
}, { scope: "write:ledger", cost: 2, staleExempt: true });

export const ledgerListRoute = defineRoute({
  method: "get",
  path: "/ledger",
  tags: ["Ledger"],
  summary: "Read the ledger",
  description:
    "Scope read:ledger (OAuth read tokens lack it). Filters: ticketId (UUID or key; one that does not resolve gives no entries), type (comma " +
    "list; any unknown type: 400), agentId, sessionId, source (`agent`, `system` or `all`, default `all`), " +
    "include_audit (default false), since and until (ISO 8601 with offset, both inclusive), limit (1 to " +
    "200, default 50; outside: 400), offset (default 0), order (`asc` or `desc`, default `desc`: newest " +
    "first). Response `{ entries, pagination { total, limit, offset, hasMore } }`.",
  request: { query: LedgerQuery },
  responses: {
    200: { description: "Entries", content: { "application/json": { schema: LedgerListResponse } } },
  },
}, { scope: "read:ledger", cost: 1 });

/** Ledger routes. */
export function registerLedger(api: OpenAPIHono<AppEnv>): void {
  handle(
    api,
    ledgerWriteRoute,
    async ({ c, body, ctx }) => ok(c, await appendEntry(ctx, body, "single"), 201),
  );
  handle(api, ledgerBatchRoute, async ({ c, body, ctx }) => ok(c, await appendBatch(ctx, body.entries)));
  handle(api, ledgerListRoute, async ({ c, query, ctx }) => ok(c, await listLedger(ctx, query)));
}
