import type { OpenAPIHono } from "@hono/zod-openapi";
import { errorResponses, json } from "@/contracts/common.ts";
import {
  MAX_RELEASE_MESSAGE,
  MAX_RELEASE_REQUEST_FILES,
  ReleaseAnswerBody,
  ReleaseRequestBody,
  ReleaseRequestIdParams,
  ReleaseRequestListQuery,
  ReleaseRequestListResponse,
  ReleaseRequestResponse,
} from "@/contracts/release-requests.ts";
import {
  answerReleaseRequest,
  getReleaseRequest,
  listReleaseRequests,
  RELEASE_REQUESTS_LISTED,
  requestRelease,
} from "@/domain/claims/release-requests.ts";
import type { AppEnv } from "@/http/env.ts";
import { ok } from "@/http/envelope.ts";
import { defineRoute, handle } from "@/http/route.ts";

const TAGS = ["Claims"];
const EXTENSION = "Extension of the spec (issue 24): ask the holder of files to release them. ";
const SHAPE = "A request `{ id, files, holder, asker, message, status, claimEnded, answerMessage, " +
  "releasedFiles, createdAt, answeredAt }`; `status` is `pending`, then `released` or `declined`. When " +
  "every claim of the holder on the files ends before an answer (it released them, handed off, or the claim " +
  "expired or was revoked), the request reads `released` with `claimEnded: true` and can no longer be " +
  "answered (the files were let go, which is what the asker waited for).";

export const releaseRequestCreateRoute = defineRoute({
  method: "post",
  path: "/claim/release-requests",
  tags: TAGS,
  summary: "Ask the holder of files to release them",
  description: EXTENSION + "Scope write:claim, any role. `files`: 1 to " +
    `${MAX_RELEASE_REQUEST_FILES} paths, every one held now by one identity other than you (an agent, or ` +
    "one sub-agent of an agent); a file nobody holds, one you hold, or files of two holders answer 400 " +
    "VALIDATION_ERROR naming each such file in `details.fields` (`files.<index>`) and `details.files`. " +
    `\`message\`: up to ${MAX_RELEASE_MESSAGE} characters. You need not be waiting for the files. Answers ` +
    "201 with the request (`status: pending`); the holder sees it in GET /context (`releaseRequests[]`), " +
    "in GET /claim/release-requests?incoming=true and as the event `claim.release_requested` (an extension " +
    "of the event kinds) with `data { requestId, files, holder, asker }`. " + SHAPE,
  request: { body: { required: true, ...json(ReleaseRequestBody) } },
  responses: { 201: { description: "Requested", ...json(ReleaseRequestResponse) } },
}, { scope: "write:claim", cost: 2 });

export const releaseRequestListRoute = defineRoute({
  method: "get",
  path: "/claim/release-requests",
  tags: TAGS,
  summary: "List your release requests, or those addressed to you",
  description: EXTENSION + "Scope read:board. Without `incoming`: the requests you made; with " +
    "`incoming=true`: those addressed to you (you hold the files), answered or not. Newest first, at most " +
    `${RELEASE_REQUESTS_LISTED}. Answers \`{ requests[] }\`. ` + SHAPE,
  request: { query: ReleaseRequestListQuery },
  responses: { 200: { description: "Requests", ...json(ReleaseRequestListResponse) } },
}, { scope: "read:board", cost: 1 });

export const releaseRequestGetRoute = defineRoute({
  method: "get",
  path: "/claim/release-requests/{requestId}",
  tags: TAGS,
  summary: "Read one release request",
  description: EXTENSION + "Scope read:board. The asker or the holder (the exact identity: agent and " +
    "sub-agent) reads it; for anyone else it does not exist (404 NOT_FOUND). " + SHAPE,
  request: { params: ReleaseRequestIdParams },
  responses: { 200: { description: "The request", ...json(ReleaseRequestResponse) }, ...errorResponses(404) },
}, { scope: "read:board", cost: 1 });

export const releaseRequestAnswerRoute = defineRoute({
  method: "post",
  path: "/claim/release-requests/{requestId}/answer",
  tags: TAGS,
  summary: "Answer a release request addressed to you",
  description: EXTENSION + "Scope write:claim, any role; only the holder answers. `answer: release` frees " +
    "exactly the requested files of your claims at once, through the release of POST /release (your other " +
    "files stay held, in the same claims; the files' waiting requests are then served, the asker's if it " +
    "waits), with the CONTEXT ledger entry and `claim.released` event of a release; `answer: decline` keeps " +
    `them. \`message\`: up to ${MAX_RELEASE_MESSAGE} characters. Records the event ` +
    "`claim.release_answered` (an extension of the event kinds) with `data { requestId, files, holder, " +
    "asker, answer, releasedFiles? }` and answers the request (`released` with `releasedFiles`, or " +
    "`declined`). Errors: 403 FORBIDDEN for the asker (it may read the request, not answer it); 404 " +
    "NOT_FOUND for anyone else; 409 CONFLICT when the request was already answered or your claims of its " +
    "files ended (`details.request`). " + SHAPE,
  request: { params: ReleaseRequestIdParams, body: { required: true, ...json(ReleaseAnswerBody) } },
  responses: {
    200: { description: "Answered", ...json(ReleaseRequestResponse) },
    ...errorResponses(404, 409),
  },
}, { scope: "write:claim", cost: 2, staleExempt: true });

/** Release request routes (issue 24 point 3). */
export function registerReleaseRequests(api: OpenAPIHono<AppEnv>): void {
  handle(
    api,
    releaseRequestCreateRoute,
    async ({ c, body, ctx }) => ok(c, await requestRelease(ctx, body), 201),
  );
  handle(
    api,
    releaseRequestListRoute,
    async ({ c, query, ctx }) =>
      ok(c, await listReleaseRequests(ctx, { incoming: query.incoming === "true" })),
  );
  handle(
    api,
    releaseRequestGetRoute,
    async ({ c, params, ctx }) => ok(c, await getReleaseRequest(ctx, params.requestId)),
  );
  handle(
    api,
    releaseRequestAnswerRoute,
    async ({ c, params, body, ctx }) => ok(c, await answerReleaseRequest(ctx, params.requestId, body)),
  );
}
