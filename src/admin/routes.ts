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
  WebhookCreateBody,
  WebhookPatchBody,
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

/** How webhooks work, said once on each webhook route that creates or changes one. */
const WEBHOOK_NOTES =
  "Deliveries follow Standard Webhooks (standardwebhooks.com): headers `webhook-id` (stable per " +
  "event and endpoint), `webhook-timestamp`, `webhook-signature` (`v1,<base64 HMAC-SHA256>`, two during a " +
  "rotation); body `{ type, timestamp, data }`, data the event as GET /events shows it plus `projectId` (and " +
  "`partnerManagedSessionId` when the acting agent gave one). At least once, in order per endpoint; retries " +
  "after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (+0 to 20 % jitter), then given up; a `410` or 3 days of " +
  "failures disables the endpoint (event `webhook.disabled`). 422 WEBHOOK_URL_REFUSED (extension): the URL is " +
  "not https or resolves to a loopback, private, link-local or metadata address.";

/** The webhook routes of a project (`/projects/{projectId}`) or, as partner endpoints, of an organisation. */
function webhookRoutes<const B extends string>(base: B, who: "Project" | "Org") {
  const one = `${base}/webhooks/{webhookId}` as const;
  const withNotes = <R extends RouteConfig>(route: R): R => ({ ...route, description: WEBHOOK_NOTES });
  return {
    create: withNotes(write(
      "post",
      `${base}/webhooks`,
      `create${who}Webhook`,
      "Creates a webhook endpoint (its signing secret is shown once)",
      WebhookCreateBody,
      201,
      422,
    )),
    list: list(`${base}/webhooks`, `list${who}Webhooks`, "Lists webhook endpoints"),
    get: act("get", one, `get${who}Webhook`, "Reads a webhook endpoint"),
    update: withNotes(
      write("patch", one, `update${who}Webhook`, "Changes a webhook endpoint", WebhookPatchBody, 200, 422),
    ),
    disable: act(
      "post",
      `${one}/disable`,
      `disable${who}Webhook`,
      "Disables a webhook endpoint (events raised meanwhile are not queued for it)",
    ),
    enable: act(
      "post",
      `${one}/enable`,
      `enable${who}Webhook`,
      "Enables a webhook endpoint (its queued deliveries go out)",
    ),
    delete: act("delete", one, `delete${who}Webhook`, "Deletes a webhook endpoint"),
    rotateSecret: act(
      "post",
      `${one}/rotate-secret`,
      `rotate${who}WebhookSecret`,
      "New signing secret (shown once); the old one keeps signing beside it for 24 hours",
    ),
    deliveries: list(
      `${one}/deliveries`,
      `list${who}WebhookDeliveries`,
      "Lists an endpoint's deliveries with their attempts and response codes",
    ),
    redeliver: act(
      "post",
      `${one}/deliveries/{deliveryId}/redeliver`,
      `redeliver${who}Webhook`,
      "Sends a delivery again (same webhook-id)",
    ),
  };
}

const projectWebhooks = webhookRoutes("/projects/{projectId}", "Project");
const orgWebhooks = webhookRoutes("/orgs/{orgId}", "Org");
/** The ten webhook routes of a project and of an organisation, by verb (served and driven alike). */
export const webhookRouteGroups = { project: projectWebhooks, org: orgWebhooks };

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
  createProjectWebhook: projectWebhooks.create,
  listProjectWebhooks: projectWebhooks.list,
  getProjectWebhook: projectWebhooks.get,
  updateProjectWebhook: projectWebhooks.update,
  disableProjectWebhook: projectWebhooks.disable,
  enableProjectWebhook: projectWebhooks.enable,
  deleteProjectWebhook: projectWebhooks.delete,
  rotateProjectWebhookSecret: projectWebhooks.rotateSecret,
  listProjectWebhookDeliveries: projectWebhooks.deliveries,
  redeliverProjectWebhook: projectWebhooks.redeliver,
  createOrgWebhook: orgWebhooks.create,
  listOrgWebhooks: orgWebhooks.list,
  getOrgWebhook: orgWebhooks.get,
  updateOrgWebhook: orgWebhooks.update,
  disableOrgWebhook: orgWebhooks.disable,
  enableOrgWebhook: orgWebhooks.enable,
  deleteOrgWebhook: orgWebhooks.delete,
  rotateOrgWebhookSecret: orgWebhooks.rotateSecret,
  listOrgWebhookDeliveries: orgWebhooks.deliveries,
  redeliverOrgWebhook: orgWebhooks.redeliver,
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
