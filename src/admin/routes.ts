/**
 * The operator API's route contracts (`/admin/*`, paths relative to `/admin`): one object per operation,
 * documented in `openapi/operator.json` (GET /admin/openapi.json) and used by `scripts/cli.ts` for its
 * paths. Importing this file starts nothing and opens no database.
 */
import { createRoute, type RouteConfig, z } from "@hono/zod-openapi";
import { errorResponses, json, jsonResponse } from "@/contracts/common.ts";
import {
  ApiKeyBody,
  ClockBody,
  IdParam,
  LedgerExportQuery,
  MemberAddBody,
  OperatorEnvelope,
  OrgCreateBody,
  OrgPatchBody,
  PageQuery,
  PairingCodeBody,
  ProjectCreateBody,
  ProjectPatchBody,
  UserCreateBody,
} from "@/contracts/operator.ts";

/** Every operator route answers these: malformed input, wrong admin token, off or unknown (404). */
const COMMON = [400, 401, 404, 413, 415, 500, 503];

function answers(status: 200 | 201, what: string, ...extra: number[]) {
  return { [status]: jsonResponse(OperatorEnvelope, what), ...errorResponses(...COMMON, ...extra) };
}

/** The path parameters of a template (`{projectId}`), each an id. */
function idsOf(path: string) {
  const names = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
  return z.object(Object.fromEntries(names.map((n) => [n, IdParam])));
}

function write<const M extends "post" | "patch", const P extends string, B extends z.ZodType>(
  method: M,
  path: P,
  operationId: string,
  summary: string,
  body: B,
  status: 200 | 201,
  ...extra: number[]
) {
  return createRoute({
    method,
    path,
    operationId,
    summary,
    request: { params: idsOf(path), body: { ...json(body) } },
    responses: answers(status, summary, ...extra),
  });
}

function act<const M extends "post" | "delete" | "get", const P extends string>(
  method: M,
  path: P,
  operationId: string,
  summary: string,
  status: 200 | 201 = 200,
  ...extra: number[]
) {
  return createRoute({
    method,
    path,
    operationId,
    summary,
    request: { params: idsOf(path) },
    responses: answers(status, summary, ...extra),
  });
}

function list<const P extends string>(path: P, operationId: string, summary: string) {
  return createRoute({
    method: "get",
    path,
    operationId,
    summary,
    description:
      "Paged: `limit` 1 to 100 (default 50), `cursor` from `meta.nextCursor` (null on the last page).",
    request: { params: idsOf(path), query: PageQuery },
    responses: answers(200, summary),
  });
}

export const adminRoutes = {
  createOrg: write("post", "/orgs", "createOrg", "Creates an organization", OrgCreateBody, 201),
  updateOrg: write("patch", "/orgs/{orgId}", "updateOrg", "Changes an organization", OrgPatchBody, 200),
  createUser: write("post", "/users", "createUser", "Creates a user", UserCreateBody, 201, 409),
  createProject: write(
    "post",
    "/projects",
    "createProject",
    "Creates a project",
    ProjectCreateBody,
    201,
    409,
  ),
  updateProject: write(
    "patch",
    "/projects/{projectId}",
    "updateProject",
    "Changes a project",
    ProjectPatchBody,
    200,
  ),
  addMember: write(
    "post",
    "/projects/{projectId}/members",
    "addMember",
    "Makes a user a member of a project",
    MemberAddBody,
    201,
    409,
  ),
  createPairingCode: write(
    "post",
    "/projects/{projectId}/pairing-codes",
    "createPairingCode",
    "Mints a pairing code (shown once)",
    PairingCodeBody,
    201,
  ),
  createApiKey: write(
    "post",
    "/projects/{projectId}/api-keys",
    "createApiKey",
    "Mints an API key (shown once)",
    ApiKeyBody,
    201,
    409,
  ),
  revokeApiKey: act("delete", "/projects/{projectId}/api-keys/{keyId}", "revokeApiKey", "Revokes an API key"),
  revokeAgent: act(
    "post",
    "/projects/{projectId}/agents/{agentId}/revoke",
    "revokeAgent",
    "Revokes an agent: its keys, sessions and sub-agents, and releases its claims",
  ),
  endSession: act("delete", "/sessions/{sessionId}", "endSession", "Ends a session"),
  removeMember: act(
    "delete",
    "/projects/{projectId}/members/{userId}",
    "removeMember",
    "Removes a member (not the last admin)",
    200,
    409,
  ),
  listOrgs: list("/orgs", "listOrgs", "Lists organizations"),
  getOrg: act("get", "/orgs/{orgId}", "getOrg", "Reads an organization"),
  listUsers: list("/users", "listUsers", "Lists users"),
  getUser: act("get", "/users/{userId}", "getUser", "Reads a user"),
  listProjects: list("/projects", "listProjects", "Lists projects"),
  getProject: act("get", "/projects/{projectId}", "getProject", "Reads a project"),
  listMembers: list("/projects/{projectId}/members", "listMembers", "Lists the members of a project"),
  getMember: act("get", "/projects/{projectId}/members/{userId}", "getMember", "Reads a member"),
  listAgents: list("/projects/{projectId}/agents", "listAgents", "Lists the agents of a project"),
  getAgent: act("get", "/projects/{projectId}/agents/{agentId}", "getAgent", "Reads an agent"),
  listApiKeys: list("/projects/{projectId}/api-keys", "listApiKeys", "Lists the API keys of a project"),
  getApiKey: act("get", "/projects/{projectId}/api-keys/{keyId}", "getApiKey", "Reads an API key"),
  ledgerChain: createRoute({
    method: "get",
    path: "/projects/{projectId}/ledger/chain",
    operationId: "getLedgerChain",
    summary: "Exports a project's ledger entries with their chain hashes (for `ledger verify`)",
    description:
      "Entries in `seq` order after `afterSeq` (default 0), `limit` 1 to 1000 (default 500), each " +
      "with `chainHash` (the hash the chain stored, null when not chained yet), `orphans` (stored hashes " +
      "whose entry is gone) and `nextAfterSeq` (null on the last page). The first page brings the chain up " +
      "to date.",
    request: { params: idsOf("/projects/{projectId}/ledger/chain"), query: LedgerExportQuery },
    responses: answers(200, "A page of the ledger with its chain hashes"),
  }),
  ledgerCheckpoints: createRoute({
    method: "get",
    path: "/projects/{projectId}/ledger/checkpoints",
    operationId: "getLedgerCheckpoints",
    summary: "Lists a project's signed ledger checkpoints (for `ledger verify`)",
    description: "Oldest first after `afterSeq` (default 0), `limit` 1 to 1000 (default 500); `hasMore` " +
      "when the page is full. Each checkpoint's `jws` is verified with the public JWKS (GET /api/oauth/jwks).",
    request: { params: idsOf("/projects/{projectId}/ledger/checkpoints"), query: LedgerExportQuery },
    responses: answers(200, "A page of checkpoints"),
  }),
  rotateKeys: act("post", "/keys/rotate", "rotateSigningKey", "Adds a new OAuth signing key", 201),
  advanceClock: write(
    "post",
    "/clock",
    "advanceClock",
    "Moves the test clock forward (404 unless SVC_TEST_CLOCK is on)",
    ClockBody,
    200,
  ),
  document: createRoute({
    method: "get",
    path: "/openapi.json",
    operationId: "getOperatorDocument",
    summary: "This document (OpenAPI 3.1)",
    responses: {
      200: jsonResponse(z.record(z.string(), z.unknown()), "The operator API's OpenAPI document"),
      ...errorResponses(401, 404, 500),
    },
  }),
} satisfies Record<string, RouteConfig>;

export type AdminRoute = (typeof adminRoutes)[keyof typeof adminRoutes];

/** A route's path with its `{name}` parameters filled in (URI-encoded), under `/admin`. */
export function adminPath(route: { path: string }, params: Record<string, string | undefined> = {}): string {
  return "/admin" +
    route.path.replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(params[name] ?? ""));
}
