import type { OpenAPIHono } from "@hono/zod-openapi";
import { SERVICE_VERSION } from "@/config.ts";
import { errorExampleComponents } from "@/contracts/examples/index.ts";
import { MAX_BODY_BYTES, MAX_JSON_DEPTH, PAIRING_MAX_BODY_BYTES } from "@/http/body.ts";
import type { AppEnv } from "@/http/env.ts";
import { MAX_REQUEST_ID_LENGTH } from "@/http/request-id.ts";
import {
  API_KEY_PREFIX,
  API_KEY_SECRET_BYTES,
  SESSION_TOKEN_PREFIX,
  SUBAGENT_TOKEN_PREFIX,
} from "@/domain/auth/token-policy.ts";
import { AGENT_BURST_UNITS, PROJECT_BURST_UNITS, PROJECT_HOURLY_FACTOR } from "@/domain/limits/rate-limit.ts";

const MIB = 1024 * 1024;
/** Characters of `bytes` random bytes in unpadded base64url. */
const base64urlLength = (bytes: number) => Math.ceil((bytes * 4) / 3);
const KB = 1024;
const TIMES: Record<number, string> = { 2: "two", 3: "three", 4: "four" };

const DESCRIPTION =
  `The agent coordination service: a versioned brief, a board of tickets with a review workflow,
sprints, an append-only ledger, file claims and threads, for AI coding agents that work on one project.

**Base URL.** Every path is relative to \`{origin}/api\`; \`{origin}/svc\` is an alias with the same handlers.
There is no version segment: the API version is the document's \`info.version\` (semantic versioning) and
every response is compatible within a major version. A deprecated field or endpoint keeps working for at
least 90 days and is announced with a \`Deprecation\` header (RFC 9745) and a \`Sunset\` header.

**Envelope.** Success: \`{ data, meta }\` (200, 201 for creates). Error: \`{ error: { code, message, details? } }\`.
Gates carry \`details.recovery { action, endpoint, payloadHint, hint }\`. Validation failures carry
\`details.fields[] { path, message, code }\`.

**Request ids.** \`X-Request-Id\` of 1 to ${MAX_REQUEST_ID_LENGTH} visible ASCII characters is echoed; a longer or malformed value
is replaced by a generated UUID. Every response carries the header.

**Body size.** Bodies over ${MAX_BODY_BYTES / MIB} MiB (${
    PAIRING_MAX_BODY_BYTES / KB
  } KB for \`POST /pair/connect\`) answer 413 \`PAYLOAD_TOO_LARGE\` before parsing.
A body without \`Content-Type: application/json\` answers 415 \`VALIDATION_ERROR\`, and JSON nested deeper than ${MAX_JSON_DEPTH}
levels (the top-level value is level 1) 400 \`VALIDATION_ERROR\`.

**Lengths.** Character limits count Unicode code points (an emoji is one character); byte limits (the ${
    PAIRING_MAX_BODY_BYTES / KB
  } KB
pairing body, brief chunks in KB) count UTF-8 bytes.

**Credentials.** Every route except pairing, session refresh and the pairing prompt takes
\`Authorization: Bearer <token>\`: a session token (\`${SESSION_TOKEN_PREFIX}\`, from \`POST /pair/connect\`), a sub-agent token
(\`${SUBAGENT_TOKEN_PREFIX}\`, from \`POST /subagent/session\`), an OAuth access token, or an API key. API keys (design; the spec
is silent): \`${API_KEY_PREFIX}\` followed by ${
    base64urlLength(API_KEY_SECRET_BYTES)
  } base64url characters (${API_KEY_SECRET_BYTES} random bytes), minted by the operator API
(\`POST /admin/projects/{projectId}/api-keys\` with \`name\`, \`agentName\`, \`role\`, \`scopes\`), presented as a
bearer token like every other credential (no other header or query parameter is read), stored only as a hash.
A key never expires and has no idle window and no session; it stops working when a critical \`ALERT\` of its
agent revokes it, when the operator revokes it (\`DELETE /admin/projects/{projectId}/api-keys/{keyId}\`) or its
agent (\`POST /admin/projects/{projectId}/agents/{agentId}/revoke\`), or when its project is archived or its
organization suspended (one identical \`401 UNAUTHORIZED\` for every refused credential, from the next request on
every instance: no credential decision is cached in a process). Its scopes are the ones it was minted with; an empty list is
unrestricted. \`X-Svc-SubAgent\` is honoured with session tokens only and ignored with API keys, \`${SUBAGENT_TOKEN_PREFIX}\` and
OAuth tokens. A sub-agent is registered under its orchestrator by \`POST /subagent/session\` (scope
\`write:agents\`) and unregistered by \`DELETE /subagent/session\`.

**Scopes.** A missing scope answers \`403 FORBIDDEN\` with \`details.requiredScope\` and recovery
\`POST /pair/connect\`; a role violation \`403 FORBIDDEN\` with \`details.guidance\`, \`requiredRole\`, \`actualRole\`
(orchestrators: recovery \`MINT_SUBAGENT_SESSION\`). Where the spec is silent (design): \`read:brief\` is checked
by no REST route, because the brief is read through \`GET /context\` and \`GET /context/more?section=brief\`,
which check no scope (there is no \`GET /brief\`); \`read:ticket\` is checked by no REST route (OAuth tokens
only), ticket reads (\`GET /ticket\`, \`/search\`, artifacts, QA runs) need \`read:board\`; \`write:brief\`
covers \`PATCH /brief\` only: no patterns, guidance or review-config endpoint is built, and project settings
change only through the operator API (\`PATCH /admin/projects/{projectId}\`).

**Policy extensions.** Each operation lists \`x-svc-scope\` (scope needed), \`x-svc-roles\` (roles allowed) and
\`x-svc-cost\` (rate-limit units: light reads 1, writes 2, heavy reads (\`GET /context\`, \`GET /search\`) and any method on /ticket or its sub-paths such as
\`/ticket/{id}/acknowledge\` 3, \`POST /ticket/batch\` 6). The hourly window is per agent and, at ${
    TIMES[PROJECT_HOURLY_FACTOR]
  } times the
agent limit, per project; the one-minute burst window is ${AGENT_BURST_UNITS} units per agent and ${PROJECT_BURST_UNITS} per project. On
Enterprise \`X-RateLimit-Limit\` is \`unlimited\`, \`X-RateLimit-Remaining\` is omitted, and \`X-RateLimit-Reset\` and
\`X-Burst-Remaining\` describe the burst window. Per-action backpressure budgets count per agent.`;

/** The published OpenAPI 3.1 document of the REST API. */
export function buildOpenApiDocument(api: OpenAPIHono<AppEnv>) {
  api.openAPIRegistry.registerComponent("securitySchemes", "bearerAuth", {
    type: "http",
    scheme: "bearer",
    description:
      `Session token (${SESSION_TOKEN_PREFIX}), sub-agent token (${SUBAGENT_TOKEN_PREFIX}), API key (${API_KEY_PREFIX}) ` +
      "or OAuth access token",
  });
  for (const [name, example] of errorExampleComponents()) {
    api.openAPIRegistry.registerComponent("examples", name, example);
  }
  const doc = api.getOpenAPI31Document({
    openapi: "3.1.0",
    info: {
      title: "Agent Coordination Service",
      version: SERVICE_VERSION,
      description: DESCRIPTION,
      license: { name: "MIT", url: "https://opensource.org/license/mit" },
    },
    servers: [{ url: "/api", description: "{base_url}" }, {
      url: "/svc",
      description: "alias of {base_url}",
    }],
  });
  for (const [path, ops] of Object.entries(doc.paths ?? {})) {
    for (const method of HTTP_METHODS) {
      const op = (ops as Record<string, { operationId?: string } | undefined>)[method];
      if (op && !op.operationId) op.operationId = operationIdOf(method, path);
    }
  }
  pruneUnusedSchemas(doc);
  return withoutRuleIds(doc);
}

const HTTP_METHODS = ["get", "put", "post", "delete", "patch", "head", "options", "trace"] as const;

/**
 * The stable camelCase `operationId` of an operation that sets none, from its method and path:
 * `post /ticket/{ticketId}/approve` -> `postTicketApprove`, `get /sprint/{sprintId}` ->
 * `getSprintBySprintId`, `get /brief` -> `getBrief` (unique: checked by tests/openapi.test.ts).
 */
export function operationIdOf(method: string, path: string): string {
  const words = path.split(/[/\-_.]+/).filter((w) => w !== "" && !w.startsWith("{"));
  const last = /\{(\w+)\}$/.exec(path)?.[1];
  const by = last ? `By${last[0]!.toUpperCase()}${last.slice(1)}` : "";
  return method + words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join("") + by;
}

/** Drops component schemas that nothing references (directly or through other schemas). */
function pruneUnusedSchemas(doc: { components?: { schemas?: Record<string, unknown> } }): void {
  const schemas = doc.components?.schemas;
  if (!schemas) return;
  const refs = (value: unknown) =>
    new Set([...JSON.stringify(value).matchAll(/"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]!));
  const { components: _components, ...rest } = doc as Record<string, unknown>;
  const reached = refs(rest);
  const queue = [...reached];
  while (queue.length > 0) {
    for (const name of refs(schemas[queue.pop()!])) {
      if (!reached.has(name)) {
        reached.add(name);
        queue.push(name);
      }
    }
  }
  for (const name of Object.keys(schemas)) if (!reached.has(name)) delete schemas[name];
}

/** Rule IDs (`TKT-038`, `OAUTH-008/009`) are internal: the published text leaves them out. */
const RULE_ID =
  /\b(?:BRIEF|CLAIM|CONV|CTX|HAND|LEDGER|LIMIT|MCP|OAUTH|PAIR|RATE|ROLE|SESS|SPRINT|SUB|THREAD|TKT)-\d{3}(?:\/(?:[A-Z]+-)?\d{3})*\b/g;

function withoutRuleIds<T>(doc: T): T {
  return JSON.parse(JSON.stringify(doc), (key, value) => {
    if (key !== "description" && key !== "summary") return value;
    if (typeof value !== "string") return value;
    return value.replace(RULE_ID, "")
      .replace(/\(\s*(design)?[\s,;/]*\)/g, (_m, d) => (d ? "(design)" : ""))
      .replace(/\(design,\s*/g, "(design; ").replace(/\(design;\s*\)/g, "(design)")
      .replace(/(^|\. |\): )\s*:\s*/g, "$1")
      .replace(/ {2,}/g, " ")
      .replace(/ ([.,;)])/g, "$1");
  }) as T;
}
