import type { OpenAPIHono } from "@hono/zod-openapi";
import { errorResponses, json } from "@/contracts/common.ts";
import {
  ThreadCloseBody,
  ThreadCloseBulkBody,
  ThreadCloseBulkResponse,
  ThreadCloseResponse,
  ThreadCreatedResponse,
  ThreadIdParams,
  ThreadOpenBody,
  ThreadPatchBody,
  ThreadPatchResponse,
  ThreadReplyBody,
  ThreadResponse,
} from "@/contracts/threads.ts";
import { closeThread } from "@/domain/threads/close.ts";
import { closeThreadsBulk } from "@/domain/threads/close-bulk.ts";
import { openThread } from "@/domain/threads/open.ts";
import { getThread } from "@/domain/threads/read.ts";
import { replyToThread } from "@/domain/threads/reply.ts";
import { patchThread } from "@/domain/threads/update.ts";
import type { AppEnv } from "@/http/env.ts";
import { ok } from "@/http/envelope.ts";
import { defineRoute, handle } from "@/http/route.ts";

const TAGS = ["Threads"];
const COMMON =
  "404 FEATURE_DISABLED on every thread endpoint while the project setting `threadsEnabled` is false. " +
  "Thread activity (open, reply, close, reopen) writes a system `CONTEXT` ledger entry linked to the thread. " +
  "There is no thread list: threads reach agents through GET /context and GET /context/more?section=threads.";
const WRITE =
  "Needs scope `write:threads` (403 FORBIDDEN otherwise). 429 LEDGER_STALE when you hold work and have been " +
  "silent in the ledger too long. ";
const budget = (what: string, limit: number) =>
  `429 BACKPRESSURE (Retry-After) past ${limit} ${what} per 5 minutes, counted per agent (each sub-agent ` +
  "separately), fixed windows, every attempt counting. ";

const openRoute = defineRoute({
  method: "post",
  path: "/thread",
  tags: TAGS,
  summary: "Open a thread",
  description: WRITE + budget("new threads", 20) +
    "`ticketId` (UUID or `<PREFIX>-<number>`) links the thread to a ticket; one that does not resolve " +
    "answers 404 TICKET_NOT_FOUND (recovery RESOLVE_TICKET_REF). Duplicate paths in `expectedFiles` are " +
    "stored once. Answers 201 `{ id, createdAt }`; the thread is `open`. " + COMMON,
  request: { body: { required: true, ...json(ThreadOpenBody) } },
  responses: { 201: { description: "Opened", ...json(ThreadCreatedResponse) }, ...errorResponses(404) },
}, { scope: "write:threads", cost: 2 });

const getRoute = defineRoute({
  method: "get",
  path: "/thread/{threadId}",
  tags: TAGS,
  summary: "Read a thread with its messages",
  description:
    "Any valid token, no scope. Messages oldest first (in write order). A message's `authorName` " +
    "is the agent's name for agents and falls back to `authorId` for other authors. Errors: 400 " +
    "VALIDATION_ERROR (threadId not a UUID), 404 THREAD_NOT_FOUND (unknown here, including another " +
    "project's thread). " + COMMON,
  request: { params: ThreadIdParams },
  responses: { 200: { description: "The thread", ...json(ThreadResponse) }, ...errorResponses(404) },
}, { cost: 1 });

const replyRoute = defineRoute({
  method: "post",
  path: "/thread/{threadId}/reply",
  tags: TAGS,
  summary: "Reply in a thread",
  description: WRITE + budget("replies", 25) +
    "Answers 201 `{ id, createdAt }` and sets the thread's `lastMessageAt`. Errors: 404 INVALID (unknown " +
    "thread), 422 INVALID (thread closed; recovery USE_VALID_TRANSITION: reopen it with PATCH status open).\n\n" +
    'Mentions: `@name` (letters, digits, `_ - . /`) or `@"name with spaces"`, matched case-insensitively ' +
    "against the names of the project's agents and of its members' user accounts (`@agent/sub` mentions the " +
    "agent). Each mentioned agent or member, except yourself, gets one notification (kind `mention`) per " +
    "message; agents read unread notifications in GET /context `updates`. An `@` right after a letter or " +
    "digit (an e-mail address) is not a mention. " + COMMON,
  request: { params: ThreadIdParams, body: { required: true, ...json(ThreadReplyBody) } },
  responses: {
    201: { description: "Replied", ...json(ThreadCreatedResponse) },
    ...errorResponses(404, 422),
  },
}, { scope: "write:threads", cost: 2 });

const patchRoute = defineRoute({
  method: "patch",
  path: "/thread/{threadId}",
  tags: TAGS,
  summary: "Rename, close or reopen a thread",
  description: WRITE + "Closing here counts toward the close budget: " + budget("closes", 15) +
    "`status: closed` closes without recording an outcome; `status: open` reopens a closed thread (its " +
    "outcome and closedAt are cleared); a status the thread already has changes nothing. At least one of " +
    "`intent`, `status` (400 otherwise). Response `{ ok, intent, status }` with the thread's state after the " +
    "call. Errors: 404 THREAD_NOT_FOUND. " + COMMON,
  request: { params: ThreadIdParams, body: { required: true, ...json(ThreadPatchBody) } },
  responses: { 200: { description: "Updated", ...json(ThreadPatchResponse) }, ...errorResponses(404) },
}, { scope: "write:threads", cost: 2 });

const closeRoute = defineRoute({
  method: "post",
  path: "/thread/{threadId}/close",
  tags: TAGS,
  summary: "Close a thread with its outcome",
  description: WRITE + budget("closes", 15) +
    "Records `outcome` and closes the thread. Closing a closed thread answers the same `{ ok: true }` and " +
    "keeps the first outcome. Errors: 404 INVALID (unknown thread). " + COMMON,
  request: { params: ThreadIdParams, body: { required: true, ...json(ThreadCloseBody) } },
  responses: { 200: { description: "Closed", ...json(ThreadCloseResponse) }, ...errorResponses(404) },
}, { scope: "write:threads", cost: 2 });

const closeBulkRoute = defineRoute({
  method: "post",
  path: "/thread/close-bulk",
  tags: TAGS,
  summary: "Close many open threads at once",
  description: WRITE + "One call counts as one close: " + budget("closes", 15) +
    "Filters combine: `mine` (threads you opened; for a sub-agent, the ones it opened), `agentId` (threads " +
    "that agent opened), `subAgentName`. Non-orchestrators must scope to themselves with `mine: true` or their " +
    "own `agentId`; anything else (no filter, only `subAgentName`, another agent's id) answers 403 FORBIDDEN " +
    "with recovery SCOPE_BULK_CLOSE. Orchestrators may pass any filter, or none to close every open thread of " +
    "the project. Every closed thread records `outcome`. Response `{ closed, threadIds }`. Closing more than " +
    "5 threads in one call also writes a system `ALERT` ledger entry (payload: closed, threadIds, filter). " +
    COMMON,
  request: { body: { required: true, ...json(ThreadCloseBulkBody) } },
  responses: { 200: { description: "Closed", ...json(ThreadCloseBulkResponse) }, ...errorResponses(404) },
}, { scope: "write:threads", cost: 2 });

export function registerThreads(api: OpenAPIHono<AppEnv>): void {
  handle(api, closeBulkRoute, async ({ c, body, ctx }) => ok(c, await closeThreadsBulk(ctx, body)));
  handle(api, openRoute, async ({ c, body, ctx }) => ok(c, await openThread(ctx, body), 201));
  handle(api, getRoute, async ({ c, params, ctx }) => ok(c, await getThread(ctx, params.threadId)));
  handle(
    api,
    replyRoute,
    async ({ c, params, body, ctx }) => ok(c, await replyToThread(ctx, params.threadId, body), 201),
  );
  handle(
    api,
    patchRoute,
    async ({ c, params, body, ctx }) => ok(c, await patchThread(ctx, params.threadId, body)),
  );
  handle(
    api,
    closeRoute,
    async ({ c, params, body, ctx }) => ok(c, await closeThread(ctx, params.threadId, body)),
  );
}
