import type { OpenAPIHono } from "@hono/zod-openapi";
import { errorResponses, json } from "@/contracts/common.ts";
import {
  ACTIVITY_BODY_MAX,
  ACTIVITY_RESULT_MAX,
  ActivityInput,
  ActivityResponse,
  EnvironmentReport,
  RefreshRequest,
  RefreshResponse,
  ReportResponse,
  RESPONSE_BODY_MAX,
  SessionDetailResponse,
  SessionIdParam,
  SessionPatch,
  SessionQuery,
  SessionResponse,
} from "@/contracts/sessions.ts";
import {
  SUBAGENT_DEFAULT_TTL_HOURS,
  SUBAGENT_MAX_TTL_HOURS,
  SubAgentDeleteRequest,
  SubAgentDeleteResponse,
  SubAgentMintRequest,
  SubAgentMintResponse,
} from "@/contracts/subagents.ts";
import { SESSION_GRACE_MS, SESSION_IDLE_MS, SESSION_MAX_AGE_MS } from "@/domain/auth/token-policy.ts";
import { ACTIVITY_CAP, ACTIVITY_WINDOW_MS, postActivity } from "@/domain/sessions/activity.ts";
import { getSession } from "@/domain/sessions/get.ts";
import { patchSession } from "@/domain/sessions/patch.ts";
import { refreshSession } from "@/domain/sessions/refresh.ts";
import { postReport } from "@/domain/sessions/report.ts";
import { deleteSubAgent } from "@/domain/subagents/delete.ts";
import { mintSubAgent } from "@/domain/subagents/mint.ts";
import type { AppEnv } from "@/http/env.ts";
import { serviceCtx } from "@/http/env.ts";
import { ok } from "@/http/envelope.ts";
import { defineRoute, handle, handlePublic } from "@/http/route.ts";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

const TAGS = ["Pairing and sessions"];

export const getSessionRoute = defineRoute({
  method: "get",
  path: "/session/{sessionId}",
  tags: TAGS,
  summary: "Read a session and its activities",
  description:
    "Any valid token, no scope (design: the spec names none). Your own sessions; orchestrators may read any " +
    "session of the project. Another agent's session, a " +
    "session of another project or an unknown id answers 404 NOT_FOUND. Activities come oldest first with " +
    "offset pagination (limit 1 to 500, default 100; offset) and a pagination object. Ephemeral activities " +
    "are kept only until the next activity is posted.",
  request: { params: SessionIdParam, query: SessionQuery },
  responses: {
    200: { description: "The session", ...json(SessionDetailResponse) },
    ...errorResponses(404),
  },
}, { cost: 1 });

export const patchSessionRoute = defineRoute({
  method: "patch",
  path: "/session/{sessionId}",
  tags: TAGS,
  summary: "Replace the plan, cancel, or force-complete a session",
  description:
    "Scope write:ledger. Provide status or plan (else 400 VALIDATION_ERROR). plan (up to 50 items " +
    "{ content, status }) replaces the whole plan and increases planVersion by one; expectedPlanVersion " +
    "refuses a stale write with 409 CONFLICT and details.currentPlanVersion, changing nothing. status " +
    "canceled cancels the session and revokes its token (and sub-agent tokens minted from it). status " +
    "complete is only for an orchestrator closing another agent's session; orchestrators may also replace " +
    "the plan of, or cancel, any session of the project. 403 FORBIDDEN with recovery " +
    "use_closeout_path: a non-orchestrator patching someone else's session, or any session completing " +
    "itself (use POST /session/complete). 404 NOT_FOUND: unknown session or another project's. 409 " +
    "CONFLICT: the session is already complete or canceled. Answers the updated session.",
  request: {
    params: SessionIdParam,
    body: { required: true, ...json(SessionPatch) },
  },
  responses: {
    200: { description: "The updated session", ...json(SessionResponse) },
    ...errorResponses(404, 409),
  },
}, { scope: "write:ledger", cost: 2 });

export const postActivityRoute = defineRoute({
  method: "post",
  path: "/session/{sessionId}/activity",
  tags: TAGS,
  summary: "Post a session activity",
  description:
    "Scope write:ledger; the session must be yours and open. Sets the session status: elicitation -> " +
    "awaiting_input, error -> error, thought/action/response -> active. body is required except for type " +
    `action (up to ${ACTIVITY_BODY_MAX} characters, ${RESPONSE_BODY_MAX} for response); action and parameter are ` +
    "required for type action " +
    `and refused on other types, result is optional (${ACTIVITY_RESULT_MAX}). ephemeral (default false) is allowed on thought ` +
    "and action only; an ephemeral activity is removed when the next activity is posted. Errors: 400 " +
    "VALIDATION_ERROR (details.fields); 403 FORBIDDEN when an orchestrator posts to another agent's session " +
    "(recovery PROVIDE_SESSION_ID); 404 NOT_FOUND for anyone else's or an unknown session; 409 CONFLICT on " +
    `a complete or canceled session; 429 BACKPRESSURE beyond ${ACTIVITY_CAP} activities per session per ` +
    `${ACTIVITY_WINDOW_MS / MINUTE}-minute window (Retry-After, details.retryAfterSeconds).`,
  request: {
    params: SessionIdParam,
    body: { required: true, ...json(ActivityInput) },
  },
  responses: {
    201: { description: "Activity recorded", ...json(ActivityResponse) },
    ...errorResponses(404, 409),
  },
}, { scope: "write:ledger", cost: 2 });

export const postReportRoute = defineRoute({
  method: "post",
  path: "/session/{sessionId}/report",
  tags: TAGS,
  summary: "Post the environment report of your session",
  description:
    "Scope write:ledger; your own open session (404 NOT_FOUND for others', 403 for an orchestrator on " +
    "another agent's session, 409 CONFLICT when closed). Every field optional, unknown fields kept; limits: " +
    "model, company, platform, git_head, skill_hash 100 characters; git_branch, git_remote, working_dir 500; " +
    "uncommitted_files 200 paths. Posting again replaces the report whole (no merge). The report appears as " +
    "session.environmentReport in GET /session/{sessionId}.",
  request: {
    params: SessionIdParam,
    body: { required: true, ...json(EnvironmentReport) },
  },
  responses: {
    200: { description: "Stored", ...json(ReportResponse) },
    ...errorResponses(404, 409),
  },
}, { scope: "write:ledger", cost: 2 });

export const refreshRoute = defineRoute({
  method: "post",
  path: "/session/refresh",
  tags: TAGS,
  summary: `Rotate a session token (live or within ${SESSION_GRACE_MS / DAY} days after expiry)`,
  description: "No Authorization header. Body exactly { token } (a missing token or any other field: 400 " +
    "VALIDATION_ERROR). A token that is still valid refreshes in mode live; one that expired " +
    `(${SESSION_MAX_AGE_MS / DAY}-day limit or ${SESSION_IDLE_MS / HOUR}-hour idle window) at most ` +
    `${SESSION_GRACE_MS / DAY} days ago refreshes in mode grace. The old token is revoked at once, with ` +
    "the sub-agent tokens minted from it and any unused meta.refreshedToken replacement; the new token is " +
    "bound to the same session, has the role's default scopes and a new 7-day limit. 401 UNAUTHORIZED " +
    "(recovery REPAIR), with one identical body, for an unknown, revoked or too old token, a closed session " +
    "and a revoked agent, archived project or suspended organization. 429 RATE_LIMITED beyond 5 refreshes " +
    "per agent per hour, with details.retryAfterSeconds and Retry-After.",
  request: { body: { required: true, ...json(RefreshRequest) } },
  responses: {
    200: { description: "New token", ...json(RefreshResponse) },
    ...errorResponses(401),
  },
}, { auth: "none", cost: 2 });

export const mintSubAgentRoute = defineRoute({
  method: "post",
  path: "/subagent/session",
  tags: TAGS,
  summary: "Mint a sub-agent session and token (orchestrators)",
  description:
    "Orchestrator role, scope write:agents and a live svc_sess_ bearer: API keys, OAuth tokens, sub-agent " +
    "tokens and calls made as a sub-agent (X-Svc-SubAgent) get 403 FORBIDDEN. Registers name (1 to 64 " +
    "letters, digits, underscore, dash) under the caller, opens the sub-agent's own session and returns a " +
    `svc_sub_ token valid ttlHours (1 to ${SUBAGENT_MAX_TTL_HOURS}, default ${SUBAGENT_DEFAULT_TTL_HOURS}; no idle ` +
    "expiry) with the sub-agent scopes. role " +
    "generator or " +
    "evaluator; orchestrator answers 422 VALIDATION_ERROR; other values 400. Minting an existing name " +
    "again replaces it (earlier tokens revoked, open sessions completed). The token stops working when the " +
    "parent session token is revoked or rotated. Writes an AGENT_SPAWNED ledger entry. The registered name " +
    "may also be used with the parent's session token through X-Svc-SubAgent: the call then acts as the " +
    "sub-agent (its role, its own session, scopes capped to the sub-agent set); the header is ignored with " +
    "svc_sub_ tokens and API keys.",
  request: { body: { required: true, ...json(SubAgentMintRequest) } },
  responses: {
    201: { description: "Sub-agent minted", ...json(SubAgentMintResponse) },
    ...errorResponses(422),
  },
}, { scope: "write:agents", roles: ["orchestrator"], cost: 2 });

export const deleteSubAgentRoute = defineRoute({
  method: "delete",
  path: "/subagent/session",
  tags: TAGS,
  summary: "End a sub-agent: revoke its tokens and complete its session",
  description:
    "Orchestrator role and scope write:agents (design: the spec gives no policy; session token or API key " +
    "of the parent agent, like minting). Body " +
    "{ name }. Unregisters the name (X-Svc-SubAgent with it then answers 401), revokes its svc_sub_ tokens, " +
    "completes its open sessions and writes an AGENT_COMPLETED ledger entry. 404 NOT_FOUND when the caller " +
    "has no registered sub-agent of that name (never minted, or already deleted).",
  request: { body: { required: true, ...json(SubAgentDeleteRequest) } },
  responses: {
    200: { description: "Sub-agent ended", ...json(SubAgentDeleteResponse) },
    ...errorResponses(404),
  },
}, { scope: "write:agents", roles: ["orchestrator"], cost: 2 });

/** Sessions routes: session read/patch/activity/report, token refresh, sub-agent sessions. */
export function registerSessions(api: OpenAPIHono<AppEnv>): void {
  // Registered before /session/{sessionId} routes so "refresh" is never taken for an id.
  handlePublic(
    api,
    refreshRoute,
    async ({ c, body }) => ok(c, await refreshSession(serviceCtx(c.get("deps")), body.token)),
  );
  handle(
    api,
    getSessionRoute,
    async ({ c, ctx, params, query }) => ok(c, await getSession(ctx, params.sessionId, query)),
  );
  handle(
    api,
    patchSessionRoute,
    async ({ c, ctx, params, body }) => ok(c, await patchSession(ctx, params.sessionId, body)),
  );
  handle(
    api,
    postActivityRoute,
    async ({ c, ctx, params, body }) => ok(c, await postActivity(ctx, params.sessionId, body), 201),
  );
  handle(
    api,
    postReportRoute,
    async ({ c, ctx, params, body }) => ok(c, await postReport(ctx, params.sessionId, body)),
  );
  handle(api, mintSubAgentRoute, async ({ c, ctx, body }) => ok(c, await mintSubAgent(ctx, body), 201));
  handle(api, deleteSubAgentRoute, async ({ c, ctx, body }) => ok(c, await deleteSubAgent(ctx, body.name)));
}
