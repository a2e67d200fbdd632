import assert from "node:assert/strict";
import { sql } from "kysely";
import { DOCUMENT_PATH } from "../../scripts/openapi-artifacts.ts";
import { insertClaim, setBrief } from "../helpers/fixtures.ts";
import {
  admin,
  advanceClock,
  type ApiResponse,
  call,
  env,
  newProject,
  pairAgent,
  test,
} from "../helpers/mod.ts";
import { buildMatrix, type Credential, type Matrix, type Role } from "./fixtures.ts";

/**
 * Who may do what (ROLE-*, SUB-*): the expected policy of every REST operation, written from the spec
 * (interface-spec "Authentication": Scopes and Roles, and each endpoint's section), and a matrix that
 * calls every operation of openapi/openapi.json with every credential type.
 */

interface Req {
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
}

interface Expected {
  /** `none`: no Authorization header (pairing, refresh, prompt). */
  auth: "bearer" | "none";
  /** Scope the route declares (x-svc-scope); omitted: any valid token. */
  scope?: string;
  /** Roles the route declares (x-svc-roles); omitted: every role. */
  roles?: Role[];
  /** Rate-limit units (x-svc-cost). */
  cost: number;
  /** A scope the endpoint checks itself (it depends on stored state), not declared on the route. */
  endpointScope?: string;
  /** Only a live svc_sess_ bearer not acting as a sub-agent (SUB-008). */
  sessionOnly?: true;
  /** Where the spec is silent: the policy is our design, and the description must say so. */
  design?: true;
  /** Plausible inputs: ids of real resources of the matrix project. */
  req: (m: Matrix, c: Credential) => Req;
}

const uuid = () => crypto.randomUUID();
const own = (c: Credential) => c.sessionId ?? uuid();
const ticketBody = (c: Credential) => ({
  title: `Matrix ticket ${c.id} ${uuid().slice(0, 6)}`,
  type: "chore",
  description: "Created by the role matrix",
  expectedFiles: [`src/matrix/${c.id}.ts`],
  doneDefinition: "The role matrix passes for every cell",
  verificationCommand: "deno test tests/security",
  riskClass: "local",
  acceptanceCriteria: [{ title: "It works", evidence: "none" }],
});

/** The spec's policy of every REST operation (method and OpenAPI path). */
const EXPECTED: Record<string, Expected> = {
  // OAuth discovery and keys (outside {base_url}; no credentials, not rate limited).
  "GET /.well-known/oauth-authorization-server": {
    auth: "none",
    cost: 0,
    req: () => ({ path: "/.well-known/oauth-authorization-server" }),
  },
  "GET /.well-known/oauth-protected-resource": {
    auth: "none",
    cost: 0,
    req: () => ({ path: "/.well-known/oauth-protected-resource" }),
  },
  "GET /.well-known/oauth-protected-resource/mcp": {
    auth: "none",
    cost: 0,
    req: () => ({ path: "/.well-known/oauth-protected-resource/mcp" }),
  },
  "GET /api/oauth/jwks": { auth: "none", cost: 0, req: () => ({ path: "/api/oauth/jwks" }) },
  // OAuth endpoints (RFC shapes, no bearer): inputs that change nothing, so every credential is let through.
  "POST /api/oauth/register": {
    auth: "none",
    cost: 0,
    req: () => ({ path: "/api/oauth/register", body: { redirect_uris: [] } }),
  },
  "POST /api/oauth/token": {
    auth: "none",
    cost: 0,
    req: () => ({ path: "/api/oauth/token", body: { grant_type: "password" } }),
  },
  "POST /api/oauth/revoke": {
    auth: "none",
    cost: 0,
    req: () => ({ path: "/api/oauth/revoke", body: { token: "svc_rt_unknown" } }),
  },
  "GET /oauth/authorize": { auth: "none", cost: 0, req: () => ({ path: "/oauth/authorize" }) },
  "POST /oauth/authorize": { auth: "none", cost: 0, req: () => ({ path: "/oauth/authorize" }) },
  // Pairing and sessions.
  "POST /pair/connect": {
    auth: "none",
    cost: 2,
    req: () => ({
      path: "/pair/connect",
      body: { code: "ZZZZ-ZZZZ" },
      headers: { "X-Forwarded-For": randomIp() },
    }),
  },
  "GET /pair/prompt": { auth: "none", cost: 1, req: (m) => ({ path: `/pair/prompt?code=${m.promptCode}` }) },
  "POST /session/refresh": {
    auth: "none",
    cost: 2,
    // Not exactly { token }: 400 whatever the Authorization header says (nothing is rotated).
    req: () => ({ path: "/session/refresh", body: { token: "svc_sess_x", extra: true } }),
  },
  "POST /pair/code": {
    auth: "bearer",
    scope: "write:agents",
    roles: ["orchestrator"],
    cost: 2,
    req: (_m, c) => ({
      path: "/pair/code",
      body: { agentName: `coded-${c.id}`, platform: "claude-code", model: "m", role: "generator" },
    }),
  },
  "GET /me": { auth: "bearer", cost: 1, req: () => ({ path: "/me" }) },
  "GET /session/{sessionId}": {
    auth: "bearer",
    cost: 1,
    design: true,
    req: (_m, c) => ({ path: `/session/${own(c)}` }),
  },
  "PATCH /session/{sessionId}": {
    auth: "bearer",
    scope: "write:ledger",
    cost: 2,
    req: (_m, c) => ({
      path: `/session/${own(c)}`,
      body: { plan: [{ content: "Matrix", status: "pending" }] },
    }),
  },
  "POST /session/{sessionId}/activity": {
    auth: "bearer",
    scope: "write:ledger",
    cost: 2,
    req: (_m, c) => ({ path: `/session/${own(c)}/activity`, body: { type: "thought", body: "matrix" } }),
  },
  "POST /session/{sessionId}/report": {
    auth: "bearer",
    scope: "write:ledger",
    cost: 2,
    req: (_m, c) => ({ path: `/session/${own(c)}/report`, body: { model: "matrix-model" } }),
  },
  "POST /session/complete": {
    auth: "bearer",
    scope: "write:ledger",
    cost: 2,
    // Not the caller's session: 404, and nothing is closed.
    req: () => ({ path: "/session/complete", body: { sessionId: uuid() } }),
  },
  "POST /subagent/session": {
    auth: "bearer",
    scope: "write:agents",
    roles: ["orchestrator"],
    sessionOnly: true,
    cost: 2,
    req: (_m, c) => ({ path: "/subagent/session", body: { name: `minted-${c.id}`, role: "generator" } }),
  },
  "DELETE /subagent/session": {
    auth: "bearer",
    scope: "write:agents",
    roles: ["orchestrator"],
    design: true,
    cost: 2,
    req: () => ({ path: "/subagent/session", body: { name: "never-minted" } }),
  },
  // Tickets: all writes need write:ticket; reads and QA reads read:board.
  "POST /ticket": {
    auth: "bearer",
    scope: "write:ticket",
    cost: 3,
    req: (_m, c) => ({ path: "/ticket", body: ticketBody(c) }),
  },
  "GET /ticket": {
    auth: "bearer",
    scope: "read:board",
    design: true,
    cost: 3,
    req: (m) => ({ path: `/ticket?id=${m.backlog.id}` }),
  },
  "DELETE /ticket": {
    auth: "bearer",
    scope: "write:ticket",
    cost: 3,
    // In progress: 400, nothing deleted.
    req: (m) => ({ path: "/ticket", body: { ticketId: m.inProgress.id } }),
  },
  "PATCH /ticket": {
    auth: "bearer",
    scope: "write:ticket",
    cost: 3,
    req: (m) => ({ path: "/ticket", body: { ticketId: m.backlog.id, priority: "high" } }),
  },
  "POST /ticket/batch": {
    auth: "bearer",
    scope: "write:ticket",
    cost: 6,
    req: (_m, c) => ({ path: "/ticket/batch", body: { tickets: [ticketBody(c)] } }),
  },
  "GET /board": { auth: "bearer", scope: "read:board", cost: 1, req: () => ({ path: "/board" }) },
  "GET /issue": {
    auth: "bearer",
    scope: "read:board",
    cost: 1,
    design: true,
    req: () => ({ path: "/issue?state=all" }),
  },
  "GET /skill": { auth: "bearer", cost: 1, design: true, req: () => ({ path: "/skill" }) },
  "GET /search": {
    auth: "bearer",
    scope: "read:board",
    design: true,
    cost: 3,
    req: () => ({ path: "/search?q=ticket" }),
  },
  "POST /ticket/{ticketId}/acknowledge": {
    auth: "bearer",
    scope: "write:ticket",
    cost: 3,
    req: (m) => ({ path: `/ticket/${m.backlog.id}/acknowledge`, body: {} }),
  },
  "POST /ticket/{ticketId}/approve": {
    auth: "bearer",
    scope: "write:ticket",
    design: true,
    cost: 3,
    req: (m) => ({ path: `/ticket/${m.review.id}/approve`, body: {} }),
  },
  "POST /ticket/{ticketId}/artifacts": {
    auth: "bearer",
    scope: "write:ticket",
    design: true,
    cost: 3,
    req: (m, c) => ({
      path: `/ticket/${m.backlog.id}/artifacts`,
      body: { type: "branch", url: `https://example.com/branch/${c.id}` },
    }),
  },
  "GET /ticket/{ticketId}/artifacts": {
    auth: "bearer",
    scope: "read:board",
    design: true,
    cost: 3,
    req: (m) => ({ path: `/ticket/${m.backlog.id}/artifacts` }),
  },
  "PATCH /ticket/{ticketId}/artifacts/{artifactId}": {
    auth: "bearer",
    scope: "write:ticket",
    design: true,
    cost: 3,
    req: (m, c) => ({
      path: `/ticket/${m.backlog.id}/artifacts/${m.artifactId}`,
      body: { title: `By ${c.id}` },
    }),
  },
  "POST /begin": {
    auth: "bearer",
    scope: "write:ticket",
    roles: ["generator"],
    cost: 2,
    req: (m, c) => ({
      path: "/begin",
      body: {
        ticketId: m.beginTickets[c.id]!.id,
        files: [`src/begin/${c.id}.ts`],
        acknowledgeCriteria: true,
      },
    }),
  },
  "GET /workflow": {
    auth: "bearer",
    scope: "read:board",
    design: true,
    cost: 1,
    req: () => ({ path: "/workflow" }),
  },
  "GET /qa/{qaRunId}": {
    auth: "bearer",
    scope: "read:board",
    cost: 1,
    req: (m) => ({ path: `/qa/${m.qaRunId}` }),
  },
  "POST /qa/{qaRunId}/results": {
    auth: "bearer",
    scope: "write:ticket",
    design: true,
    cost: 2,
    req: (m) => ({
      path: `/qa/${m.qaRunId}/results`,
      body: { tests: [{ criterionIndex: 0, status: "passed", evidence: "Checked by the role matrix" }] },
    }),
  },
  "GET /ticket/{ticketId}/qa": {
    auth: "bearer",
    scope: "read:board",
    cost: 3,
    req: (m) => ({ path: `/ticket/${m.review.id}/qa` }),
  },
  // Claims.
  "POST /claim": {
    auth: "bearer",
    scope: "write:claim",
    roles: ["generator"],
    cost: 2,
    req: (_m, c) => ({ path: "/claim", body: { files: [`src/claim/${c.id}.ts`] } }),
  },
  "GET /claim/check": {
    auth: "bearer",
    scope: "read:board",
    cost: 1,
    req: () => ({ path: "/claim/check?files=src/matrix.ts" }),
  },
  "POST /release": {
    auth: "bearer",
    scope: "write:claim",
    cost: 2,
    req: () => ({ path: "/release", body: { files: ["src/not-claimed.ts"] } }),
  },
  // Ledger and handoff.
  "POST /ledger": {
    auth: "bearer",
    scope: "write:ledger",
    cost: 2,
    req: () => ({
      path: "/ledger",
      body: { type: "DECISION", content: "Matrix", payload: { rationale: "Matrix" } },
    }),
  },
  "GET /ledger": { auth: "bearer", scope: "read:ledger", cost: 1, req: () => ({ path: "/ledger" }) },
  "POST /ledger/batch": {
    auth: "bearer",
    scope: "write:ledger",
    cost: 2,
    req: () => ({
      path: "/ledger/batch",
      body: { entries: [{ type: "DECISION", content: "M", payload: { rationale: "M" } }] },
    }),
  },
  "POST /handoff": {
    auth: "bearer",
    scope: "write:handoff",
    roles: ["generator"],
    cost: 2,
    // Not the caller's session: 400 after the authorization, and nothing is handed off.
    req: () => ({ path: "/handoff", body: { moduleName: "matrix", summary: "Matrix", sessionId: uuid() } }),
  },
  // Brief: write:brief, checked by the endpoint (write:ticket also writes a blank brief; this one has content).
  "PATCH /brief": {
    auth: "bearer",
    endpointScope: "write:brief",
    cost: 2,
    req: (_m, c) => ({ path: "/brief", body: { context: `Written by ${c.id}` } }),
  },
  // Threads: writes need write:threads, reading none.
  "POST /thread": {
    auth: "bearer",
    scope: "write:threads",
    cost: 2,
    req: (_m, c) => ({ path: "/thread", body: { intent: `By ${c.id}` } }),
  },
  "GET /thread/{threadId}": { auth: "bearer", cost: 1, req: (m) => ({ path: `/thread/${m.threadId}` }) },
  "PATCH /thread/{threadId}": {
    auth: "bearer",
    scope: "write:threads",
    cost: 2,
    req: (m, c) => ({ path: `/thread/${m.threadId}`, body: { intent: `Renamed by ${c.id}` } }),
  },
  "POST /thread/{threadId}/reply": {
    auth: "bearer",
    scope: "write:threads",
    cost: 2,
    req: (m) => ({ path: `/thread/${m.threadId}/reply`, body: { content: "Matrix reply" } }),
  },
  "POST /thread/{threadId}/close": {
    auth: "bearer",
    scope: "write:threads",
    cost: 2,
    req: (_m) => ({ path: `/thread/${uuid()}/close`, body: { outcome: "Matrix" } }),
  },
  "POST /thread/close-bulk": {
    auth: "bearer",
    scope: "write:threads",
    cost: 2,
    req: () => ({ path: "/thread/close-bulk", body: { outcome: "Matrix", mine: true } }),
  },
  // Sprints: writes need write:sprint, reads a valid token.
  "GET /sprint": { auth: "bearer", cost: 1, req: () => ({ path: "/sprint" }) },
  "POST /sprint": {
    auth: "bearer",
    scope: "write:sprint",
    cost: 2,
    req: (_m, c) => ({ path: "/sprint", body: { name: `By ${c.id}` } }),
  },
  "GET /sprint/current": { auth: "bearer", cost: 1, req: () => ({ path: "/sprint/current" }) },
  "GET /sprint/{sprintId}": { auth: "bearer", cost: 1, req: (m) => ({ path: `/sprint/${m.sprintId}` }) },
  "PATCH /sprint/{sprintId}": {
    auth: "bearer",
    scope: "write:sprint",
    cost: 2,
    req: (m, c) => ({ path: `/sprint/${m.sprintId}`, body: { goal: `Goal by ${c.id}` } }),
  },
  "POST /sprint/assign": {
    auth: "bearer",
    scope: "write:sprint",
    cost: 2,
    req: (m) => ({ path: "/sprint/assign", body: { ticketId: m.backlog.id, sprintId: m.sprintId } }),
  },
  // Context and events: any valid token, no scope.
  "GET /context": { auth: "bearer", cost: 3, req: () => ({ path: "/context?compact=true" }) },
  "GET /context/more": { auth: "bearer", cost: 1, req: () => ({ path: "/context/more?section=ledger" }) },
  "GET /events": { auth: "bearer", design: true, cost: 1, req: () => ({ path: "/events" }) },
  // Extensions (issues 24 to 26): our design, each stating its scope.
  "GET /claim/requests": {
    auth: "bearer",
    scope: "read:board",
    cost: 1,
    req: () => ({ path: "/claim/requests" }),
  },
  "GET /claim/requests/{id}": {
    auth: "bearer",
    scope: "read:board",
    cost: 1,
    req: () => ({ path: `/claim/requests/${uuid()}` }),
  },
  "DELETE /claim/requests/{id}": {
    auth: "bearer",
    scope: "write:claim",
    cost: 2,
    req: () => ({ path: `/claim/requests/${uuid()}` }),
  },
  "POST /claim/verify": {
    auth: "bearer",
    scope: "read:board",
    cost: 1,
    req: () => ({ path: "/claim/verify", body: { files: ["src/matrix.ts"] } }),
  },
  "POST /claim/release-requests": {
    auth: "bearer",
    scope: "write:claim",
    cost: 2,
    req: () => ({ path: "/claim/release-requests", body: { files: ["src/nobody-holds.ts"] } }),
  },
  "GET /claim/release-requests": {
    auth: "bearer",
    scope: "read:board",
    cost: 1,
    req: () => ({ path: "/claim/release-requests" }),
  },
  "GET /claim/release-requests/{requestId}": {
    auth: "bearer",
    scope: "read:board",
    cost: 1,
    req: () => ({ path: `/claim/release-requests/${uuid()}` }),
  },
  "POST /claim/release-requests/{requestId}/answer": {
    auth: "bearer",
    scope: "write:claim",
    cost: 2,
    req: () => ({ path: `/claim/release-requests/${uuid()}/answer`, body: { answer: "decline" } }),
  },
  "GET /ledger/checkpoints": {
    auth: "bearer",
    scope: "read:ledger",
    cost: 1,
    req: () => ({ path: "/ledger/checkpoints" }),
  },
  "GET /sprint/{sprintId}/plan": {
    auth: "bearer",
    cost: 1,
    req: (m) => ({ path: `/sprint/${m.sprintId}/plan` }),
  },
  "GET /events/stream": { auth: "bearer", design: true, cost: 1, req: () => ({ path: "/events/stream" }) },
};

function randomIp(): string {
  const n = () => Math.floor(Math.random() * 250) + 1;
  return `10.${n()}.${n()}.${n()}`;
}

const METHODS = ["get", "post", "put", "patch", "delete"];

interface Operation {
  key: string;
  method: string;
  path: string;
  op: Record<string, unknown>;
}

async function documentOperations(): Promise<Operation[]> {
  const doc = JSON.parse(await Deno.readTextFile(DOCUMENT_PATH));
  const ops: Operation[] = [];
  for (
    const [path, item] of Object.entries(doc.paths as Record<string, Record<string, Record<string, unknown>>>)
  ) {
    for (const [method, op] of Object.entries(item)) {
      if (!METHODS.includes(method)) continue;
      ops.push({ key: `${method.toUpperCase()} ${path}`, method: method.toUpperCase(), path, op });
    }
  }
  return ops;
}

test("ROLE-010 ROLE-013 ROLE-014 ROLE-016 ROLE-018 ROLE-019 ROLE-020 ROLE-021 ROLE-022 ROLE-023 ROLE-024 ROLE-025 the document declares the spec's scope, roles, auth and cost for every operation", async () => {
  const ops = await documentOperations();
  const unknown = ops.filter((o) => !(o.key in EXPECTED)).map((o) => o.key);
  assert.deepEqual(
    unknown,
    [],
    "operations the expected table does not know: declare their scope, roles and cost",
  );
  const missing = Object.keys(EXPECTED).filter((k) => !ops.some((o) => o.key === k));
  assert.deepEqual(missing, [], "operations of the expected table missing from the document");
  const wrong: string[] = [];
  for (const o of ops) {
    const e = EXPECTED[o.key]!;
    const security = o.op.security as unknown[] | undefined;
    const auth = security && security.length > 0 ? "bearer" : "none";
    const actual = {
      auth,
      scope: o.op["x-svc-scope"],
      roles: o.op["x-svc-roles"],
      cost: o.op["x-svc-cost"],
    };
    const expected = { auth: e.auth, scope: e.scope, roles: e.roles, cost: e.cost };
    try {
      assert.deepEqual(actual, expected);
    } catch {
      wrong.push(`${o.key}: document ${JSON.stringify(actual)}, spec ${JSON.stringify(expected)}`);
    }
    // The description states the policy, so a reader of the document knows it without the extensions.
    if (e.auth === "bearer") {
      const description = String(o.op.description ?? "");
      const scope = e.scope ?? e.endpointScope;
      if (scope && !description.includes(scope)) wrong.push(`${o.key}: description does not name ${scope}`);
      if (!scope && !/no scope|any valid token/i.test(description)) {
        wrong.push(`${o.key}: description does not say that no scope is needed`);
      }
      for (const role of e.roles ?? []) {
        if (!description.toLowerCase().includes(role)) {
          wrong.push(`${o.key}: description does not name ${role}`);
        }
      }
      if (
        e.design && !/design|spec (is )?silent/i.test(description) && !description.includes("Any valid token")
      ) {
        wrong.push(`${o.key}: a policy of our design must say so in the description`);
      }
    }
  }
  assert.deepEqual(wrong, []);
});

type Outcome =
  | { kind: "allow" }
  | { kind: "unauthorized" }
  | { kind: "scope"; scope: string; declared: boolean }
  | { kind: "role" }
  | { kind: "sessionOnly" };

/** What the spec says the call answers, from the expected table alone. */
function expectedOutcome(e: Expected, c: Credential): Outcome {
  if (e.auth === "none") return { kind: "allow" };
  if (!c.live) return { kind: "unauthorized" };
  const has = (s: string) => c.scopes.length === 0 || c.scopes.includes(s);
  if (e.scope && !has(e.scope)) return { kind: "scope", scope: e.scope, declared: true };
  if (e.roles && !e.roles.includes(c.role)) return { kind: "role" };
  if (e.sessionOnly && (c.kind !== "session" || c.subAgent)) return { kind: "sessionOnly" };
  if (e.endpointScope && (!has(e.endpointScope) || c.subAgent)) {
    return { kind: "scope", scope: e.endpointScope, declared: false };
  }
  return { kind: "allow" };
}

/** An authorization refusal carries requiredScope (scope) or requiredRole (role); other 403s are rules. */
function isAuthorizationRefusal(res: ApiResponse): boolean {
  const details = res.body?.error?.details ?? {};
  return res.status === 403 && (details.requiredScope !== undefined || details.requiredRole !== undefined);
}

/** Checks one cell; returns a failure message or null. */
function judge(outcome: Outcome, c: Credential, res: ApiResponse, auth: "bearer" | "none"): string | null {
  const code = res.body?.error?.code;
  const details = res.body?.error?.details ?? {};
  const got = `${res.status} ${code ?? ""} ${JSON.stringify(details).slice(0, 200)}`;
  if (res.status >= 500) return `5xx: ${got}`;
  if (res.status === 429) return `rate limited (the matrix must stay under the limits): ${got}`;
  switch (outcome.kind) {
    case "unauthorized":
      return res.status === 401 && code === "UNAUTHORIZED" ? null : `expected 401 UNAUTHORIZED, got ${got}`;
    case "scope": {
      if (res.status !== 403 || code !== "FORBIDDEN") return `expected 403 FORBIDDEN (scope), got ${got}`;
      if (details.requiredScope !== outcome.scope) {
        return `expected requiredScope ${outcome.scope}, got ${got}`;
      }
      if (outcome.declared && details.recovery?.endpoint !== "POST /pair/connect") {
        return `scope refusal without recovery POST /pair/connect: ${got}`;
      }
      return null;
    }
    case "role": {
      if (res.status !== 403 || code !== "FORBIDDEN") return `expected 403 FORBIDDEN (role), got ${got}`;
      if (typeof details.guidance !== "string" || details.guidance.length === 0) {
        return `role refusal without guidance: ${got}`;
      }
      if (details.actualRole !== c.role) return `role refusal for the wrong role: ${got}`;
      if (c.role === "orchestrator" && details.recovery?.action !== "MINT_SUBAGENT_SESSION") {
        return `orchestrator role refusal without MINT_SUBAGENT_SESSION: ${got}`;
      }
      return null;
    }
    case "sessionOnly": {
      if (res.status !== 403 || code !== "FORBIDDEN") {
        return `expected 403 FORBIDDEN (session token only), got ${got}`;
      }
      return typeof details.guidance === "string" ? null : `refusal without guidance: ${got}`;
    }
    case "allow":
      // Without a bearer route, the Authorization header is ignored: its own 401s (INVALID_CODE) are fine.
      if (res.status === 401 && (auth === "bearer" || code === "UNAUTHORIZED")) {
        return `expected to be let in, got ${got}`;
      }
      if (isAuthorizationRefusal(res)) return `expected to be let in, got an authorization refusal ${got}`;
      return null;
  }
}

const BATCH = 8;
/** Cells of one credential, run concurrently in batches; the clock then moves past the burst window. */
async function runColumn(m: Matrix, ops: Operation[], c: Credential) {
  const results: { key: string; outcome: Outcome; res: ApiResponse }[] = [];
  for (let i = 0; i < ops.length; i += BATCH) {
    const batch = ops.slice(i, i + BATCH);
    results.push(
      ...await Promise.all(batch.map(async (o) => {
        const e = EXPECTED[o.key]!;
        const r = e.req(m, c);
        const res = await call(o.method, r.path, {
          token: c.token,
          headers: { ...c.headers, ...(r.headers ?? {}) },
          ...(r.body !== undefined ? { body: r.body } : {}),
        });
        return { key: o.key, outcome: expectedOutcome(e, c), res };
      })),
    );
  }
  return results;
}

/** Tables agents write, with a row count each, and the brief versions and latest ticket change. */
const STATE_TABLES = [
  "agents",
  "sub_agents",
  "sessions",
  "session_activities",
  "tokens",
  "pairing_codes",
  "sprints",
  "tickets",
  "ticket_comments",
  "ticket_artifacts",
  "qa_runs",
  "claims",
  "claim_files",
  "threads",
  "thread_messages",
  "ledger_entries",
  "brief_versions",
  "notifications",
  "events",
] as const;

async function databaseState(): Promise<Record<string, unknown>> {
  const { db } = await env();
  const state: Record<string, unknown> = {};
  for (const table of STATE_TABLES) {
    const row = await sql<{ n: number }>`SELECT count(*)::int AS n FROM ${sql.table(table)}`.execute(db);
    state[table] = row.rows[0]?.n;
  }
  const marks = await sql<{ brief: string; ticket: Date | null; revoked: number }>`SELECT
      (SELECT string_agg(brief_version::text, ',' ORDER BY id) FROM projects) AS brief,
      (SELECT max(updated_at) FROM tickets) AS ticket,
      (SELECT count(*)::int FROM tokens WHERE revoked_at IS NOT NULL) AS revoked`.execute(db);
  state.marks = marks.rows[0];
  return state;
}

let matrix: Matrix | null = null;
async function theMatrix(): Promise<Matrix> {
  matrix ??= await buildMatrix();
  return matrix;
}

const OPERATION_COUNT = Object.keys(EXPECTED).length;
const CREDENTIAL_COUNT = 19;
const SCOPE_KEY_COUNT = 12;

/** Runs every operation with every credential (one credential at a time) and judges each cell. */
async function runMatrix(m: Matrix, credentials: Credential[], title: string) {
  const ops = (await documentOperations()).filter((o) => o.key in EXPECTED);
  assert.equal(ops.length, OPERATION_COUNT);
  const failures: string[] = [];
  const tally: Record<string, number> = {};
  const businessRefusals: string[] = [];
  const statuses: Record<number, number> = {};
  /** 401 bodies of the refused credentials, per operation: revoked, expired, archived, suspended, malformed. */
  const refusedBodies = new Map<string, Map<string, unknown>>();
  for (const c of credentials) {
    // A credential refused everywhere must change nothing: the database is compared around its column.
    const refusedEverywhere = ops.every((o) => EXPECTED[o.key]!.auth === "none" || !c.live);
    const before = refusedEverywhere ? await databaseState() : null;
    for (const { key, outcome, res } of await runColumn(m, ops, c)) {
      const failure = judge(outcome, c, res, EXPECTED[key]!.auth);
      tally[outcome.kind] = (tally[outcome.kind] ?? 0) + 1;
      if (failure) failures.push(`${key} as ${c.label}: ${failure}`);
      else if (outcome.kind === "allow" && res.status === 403) {
        businessRefusals.push(`${key} as ${c.id}: ${res.body?.error?.message}`);
      }
      if (outcome.kind === "allow") statuses[res.status] = (statuses[res.status] ?? 0) + 1;
      if (outcome.kind === "unauthorized" && c.token) {
        const bodies = refusedBodies.get(key) ?? new Map<string, unknown>();
        bodies.set(c.id, res.body);
        refusedBodies.set(key, bodies);
      }
    }
    if (before) {
      const after = await databaseState();
      if (JSON.stringify(after) !== JSON.stringify(before)) {
        failures.push(`${c.label}: refused calls changed the database: ${JSON.stringify({ before, after })}`);
      }
    }
    await advanceClock(61_000);
  }
  // ROLE-007 ROLE-008 ROLE-009: revoked, expired, archived and suspended are refused exactly like an invalid token.
  for (const [key, bodies] of refusedBodies) {
    const reference = bodies.get("malformed");
    for (const [id, body] of bodies) {
      if (JSON.stringify(body) !== JSON.stringify(reference)) {
        failures.push(
          `${key} as ${id}: 401 body differs from the malformed token's: ${JSON.stringify(body)}`,
        );
      }
    }
  }
  const cells = ops.length * credentials.length;
  console.log(
    `${title}: ${ops.length} operations x ${credentials.length} credentials = ${cells} cells; expected ` +
      `${JSON.stringify(tally)}; failures ${failures.length}; allowed cells refused by a business rule ` +
      `(403 without requiredScope/requiredRole): ${businessRefusals.length}; statuses of allowed cells ` +
      JSON.stringify(statuses),
  );
  if (Deno.env.get("MATRIX_VERBOSE")) console.log(businessRefusals.join("\n"));
  return { failures, tally };
}

test(`ROLE-002 ROLE-004 ROLE-006 ROLE-007 ROLE-008 ROLE-009 ROLE-010 ROLE-011 ROLE-015 ROLE-026 ROLE-027 ROLE-024 ROLE-032 ROLE-033 ROLE-034 ROLE-036 SUB-008 SUB-020 SUB-021 the role matrix: ${OPERATION_COUNT} operations x ${CREDENTIAL_COUNT} credentials`, async () => {
  const m = await theMatrix();
  assert.equal(m.credentials.length, CREDENTIAL_COUNT);
  const { failures, tally } = await runMatrix(m, m.credentials, "role matrix");
  assert.deepEqual(failures, []);
  // Every kind of outcome was exercised.
  for (const kind of ["allow", "unauthorized", "scope", "role", "sessionOnly"]) {
    assert.ok(tally[kind]! > 0, kind);
  }
});

test(`ROLE-013 ROLE-014 ROLE-016 ROLE-018 ROLE-019 ROLE-020 ROLE-021 ROLE-022 ROLE-023 ROLE-024 ROLE-025 the scope matrix: ${OPERATION_COUNT} operations x ${SCOPE_KEY_COUNT} single-scope API keys`, async () => {
  const m = await theMatrix();
  assert.equal(m.scopeKeys.length, SCOPE_KEY_COUNT);
  const { failures, tally } = await runMatrix(m, m.scopeKeys, "scope matrix");
  assert.deepEqual(failures, []);
  assert.ok(tally.allow! > 0 && tally.scope! > 0);
});

// ---------------------------------------------------------------------------------------------------
// Named rules. The three OAuth-only ROLE rules (015, 026, 027) wait for OAuth tokens, which do not exist yet.

const live = (m: Matrix) => m.credentials.filter((c) => c.live);
const me = (c: Credential) => call("GET", "/me", { token: c.token, headers: c.headers });

test("ROLE-001 ROLE-003 every agent has one of the four roles and the agent fields", async () => {
  const m = await theMatrix();
  for (const c of live(m)) {
    const res = await me(c);
    assert.equal(res.status, 200, c.label);
    assert.equal(res.body.data.role, c.role, c.label);
    assert.ok(["generator", "evaluator", "observer", "orchestrator"].includes(res.body.data.role));
  }
  // No fifth role can be given to an agent.
  const code = await call("POST", `/admin/projects/${m.projectId}/pairing-codes`, {
    token: "test-admin-token",
    body: { role: "admin" },
  });
  assert.equal(code.status, 400);
  const orchestrator = m.credentials.find((c) => c.id === "orch")!;
  const viaCode = await call("POST", "/pair/code", {
    token: orchestrator.token,
    body: { agentName: "fifth-role", platform: "claude-code", model: "m", role: "superuser" },
  });
  assert.equal(viaCode.status, 400);
  assert.equal(viaCode.body.error.code, "VALIDATION_ERROR");
  // The agent resource: id, name, platform, model, company, role, subAgentName, capabilities.
  const pairing = await call("POST", `/admin/projects/${m.projectId}/pairing-codes`, {
    token: "test-admin-token",
    body: { role: "evaluator" },
  });
  const connected = await call("POST", "/pair/connect", {
    body: {
      code: pairing.body.data.code,
      agentName: "fields",
      platform: "cursor",
      model: "m-1",
      capabilities: ["typescript", "review"],
    },
    headers: { "X-Forwarded-For": randomIp() },
  });
  assert.equal(connected.status, 200);
  const agent = (await call("GET", "/context?compact=true", { token: connected.body.data.sessionToken })).body
    .data.agent;
  assert.deepEqual(Object.keys(agent).sort(), [
    "capabilities",
    "company",
    "id",
    "model",
    "name",
    "platform",
    "role",
    "subAgentName",
  ]);
  assert.equal(agent.id, connected.body.data.agent.id);
  assert.equal(agent.name, "fields");
  assert.equal(agent.platform, "cursor");
  assert.equal(agent.model, "m-1");
  assert.equal(agent.role, "evaluator");
  assert.equal(agent.subAgentName, null);
  assert.deepEqual(agent.capabilities, ["typescript", "review"]);
  const sub = m.credentials.find((c) => c.id === "sub")!;
  const subAgent = (await call("GET", "/context?compact=true", { token: sub.token })).body.data.agent;
  assert.equal(subAgent.subAgentName, "worker");
  assert.equal(subAgent.role, "generator");
  assert.equal(subAgent.id, m.orchestrator.agentId);
});

test("ROLE-004 ROLE-011 ROLE-028 ROLE-029 ROLE-030 ROLE-031 ROLE-036 every token resolves to one agent, one project, one scope set", async () => {
  const m = await theMatrix();
  const sorted = (a: string[]) => [...a].sort();
  for (const c of live(m)) {
    const data = (await me(c)).body.data;
    assert.equal(data.project.id, m.projectId, c.label);
    assert.match(data.agent.id, /^[0-9a-f-]{36}$/);
    assert.deepEqual(sorted(data.scopes), sorted(c.scopes), c.label);
    // ROLE-031: write:brief is in no default set (sessions of every role, sub-agents).
    if (c.kind !== "api_key") assert.ok(!data.scopes.includes("write:brief"), c.label);
  }
  // The orchestrator's session, its sub-agents (token or header) and its key are one agent.
  for (const id of ["orch", "sub", "hdrGen", "hdrEval", "keyOrch"]) {
    const c = m.credentials.find((x) => x.id === id)!;
    assert.equal((await me(c)).body.data.agent.id, m.orchestrator.agentId, id);
  }
  // ROLE-011 ROLE-036: an empty list passes every scope check, write:brief included (in no default set).
  const keyAll = m.credentials.find((c) => c.id === "keyAll")!;
  assert.deepEqual((await me(keyAll)).body.data.scopes, []);
  const before =
    (await call("GET", "/context?compact=true", { token: keyAll.token })).body.data.brief.version;
  const patched = await call("PATCH", "/brief", {
    token: keyAll.token,
    body: { goals: "Unrestricted write" },
  });
  assert.equal(patched.status, 200);
  assert.equal(patched.body.data.version, before + 1);
  const gen = m.credentials.find((c) => c.id === "gen")!;
  const refused = await call("PATCH", "/brief", { token: gen.token, body: { goals: "Session write" } });
  assert.equal(refused.status, 403);
  assert.equal(refused.body.error.details.requiredScope, "write:brief");
  const after = (await call("GET", "/context?compact=true", { token: keyAll.token })).body.data.brief;
  assert.equal(after.version, before + 1);
  assert.match(after.content, /Unrestricted write/);
});

test("ROLE-005 another project's ids answer 404 NOT_FOUND, and nothing changes", async () => {
  const m = await theMatrix();
  const { projectId } = await newProject();
  const stranger = await pairAgent(projectId);
  const reads: [string, string][] = [
    ["GET", `/ticket?id=${m.backlog.id}`],
    ["GET", `/ticket/${m.backlog.id}/artifacts`],
    ["GET", `/ticket/${m.review.id}/qa`],
    ["GET", `/qa/${m.qaRunId}`],
    ["GET", `/thread/${m.threadId}`],
    ["GET", `/sprint/${m.sprintId}`],
    ["GET", `/session/${m.orchestrator.sessionId}`],
  ];
  for (const [method, path] of reads) {
    const res = await call(method, path, { token: stranger.token });
    assert.equal(res.status, 404, path);
    assert.match(res.body.error.code, /NOT_FOUND$/, path);
  }
  const { db } = await env();
  const ticketBefore = await db.selectFrom("tickets").select([
    "title",
    "status",
    "sprint_id",
    "criteria_acknowledged_at",
    "updated_at",
  ])
    .where("id", "=", m.backlog.id).executeTakeFirstOrThrow();
  const writes: [string, string, unknown][] = [
    ["PATCH", "/ticket", { ticketId: m.backlog.id, priority: "low" }],
    ["POST", `/ticket/${m.backlog.id}/acknowledge`, {}],
    ["POST", `/thread/${m.threadId}/reply`, { content: "from outside" }],
    ["PATCH", `/sprint/${m.sprintId}`, { goal: "from outside" }],
  ];
  for (const [method, path, body] of writes) {
    const res = await call(method, path, { token: stranger.token, body });
    assert.equal(res.status, 404, path);
  }
  const ticketAfter = await db.selectFrom("tickets").select([
    "title",
    "status",
    "sprint_id",
    "criteria_acknowledged_at",
    "updated_at",
  ])
    .where("id", "=", m.backlog.id).executeTakeFirstOrThrow();
  assert.deepEqual(ticketAfter, ticketBefore);
});

test("ROLE-002 ROLE-032 ROLE-033 ROLE-034 SUB-001 only generators claim, begin and hand off; orchestrators delegate", async () => {
  const { projectId } = await newProject({ settings: { ledgerStaleMinutes: 1440 } });
  await setBrief(projectId);
  const orch = await pairAgent(projectId, { role: "orchestrator" });
  const evaluator = await pairAgent(projectId, { role: "evaluator" });
  const observer = await pairAgent(projectId, { role: "observer" });
  // The orchestrator coordinates: it creates the ticket.
  const created = await call("POST", "/ticket", {
    token: orch.token,
    body: {
      title: "Delegated work",
      type: "chore",
      description: "Work the orchestrator delegates",
      expectedFiles: ["src/delegated.ts"],
      doneDefinition: "The delegated work is done and tested",
      verificationCommand: "deno test tests/",
      riskClass: "local",
      acceptanceCriteria: [{ title: "It works", evidence: "none" }],
    },
  });
  assert.equal(created.status, 201);
  const ticketId = created.body.data.id;
  const attempts = (token: string, sessionId: string) => [
    call("POST", "/claim", { token, body: { files: ["src/delegated.ts"] } }),
    call("POST", "/begin", {
      token,
      body: { ticketId, files: ["src/delegated.ts"], acknowledgeCriteria: true },
    }),
    call("POST", "/handoff", { token, body: { moduleName: "m", summary: "s", sessionId, ticketId } }),
  ];
  for (const agent of [orch, evaluator, observer]) {
    const role = (await call("GET", "/me", { token: agent.token })).body.data.role;
    for (const res of await Promise.all(attempts(agent.token, agent.sessionId))) {
      assert.equal(res.status, 403, role);
      assert.equal(res.body.error.code, "FORBIDDEN");
      assert.equal(typeof res.body.error.details.guidance, "string");
      assert.equal(res.body.error.details.requiredRole, "generator");
      assert.equal(res.body.error.details.actualRole, role);
      if (role === "orchestrator") {
        assert.equal(res.body.error.details.recovery.action, "MINT_SUBAGENT_SESSION");
        assert.equal(res.body.error.details.recovery.endpoint, "POST /subagent/session");
      }
    }
  }
  // Nothing was claimed or started.
  const { db } = await env();
  const claims = await db.selectFrom("claims").select("id").where("project_id", "=", projectId).execute();
  assert.equal(claims.length, 0);
  assert.equal(
    (await call("GET", `/ticket?id=${ticketId}`, { token: orch.token })).body.data.status,
    "backlog",
  );
  // It delegates: a generator sub-agent begins the ticket (claims the file) under the orchestrator.
  const minted = await call("POST", "/subagent/session", {
    token: orch.token,
    body: { name: "builder", role: "generator" },
  });
  assert.equal(minted.status, 201);
  const begun = await call("POST", "/begin", {
    token: minted.body.data.subAgentToken,
    body: { ticketId, files: ["src/delegated.ts"], acknowledgeCriteria: true },
  });
  assert.equal(begun.status, 200);
  const ticket = (await call("GET", `/ticket?id=${ticketId}`, { token: orch.token })).body.data;
  assert.equal(ticket.status, "in_progress");
  assert.equal(ticket.assignee.agentId, orch.agentId);
  const check = await call("GET", "/claim/check?files=src/delegated.ts", { token: evaluator.token });
  assert.equal(check.body.data.files[0].claimant, `${orch.name}/builder`);
});

test("ROLE-012 (design) no route checks read:brief: the brief is read through context with any token", async () => {
  const m = await theMatrix();
  const ops = await documentOperations();
  assert.deepEqual(ops.filter((o) => o.op["x-svc-scope"] === "read:brief").map((o) => o.key), []);
  assert.ok(!ops.some((o) => o.path === "/brief" && o.method === "GET"), "there is no GET /brief");
  const doc = JSON.parse(await Deno.readTextFile(DOCUMENT_PATH));
  assert.match(doc.info.description, /`read:brief` is checked\s+by no REST route/);
  // A key without read:brief (only read:board) reads the brief whole, in context and in chunks.
  const narrow = m.credentials.find((c) => c.id === "keyNarrow")!;
  const context = await call("GET", "/context", { token: narrow.token });
  assert.equal(context.status, 200);
  assert.match(context.body.data.brief.content, /Role matrix project/);
  const chunks = await call("GET", "/context/more?section=brief", { token: narrow.token });
  assert.equal(chunks.status, 200);
  assert.match(JSON.stringify(chunks.body.data.rows), /Role matrix project/);
  // So does a key with read:brief alone.
  const briefKey = m.scopeKeys.find((c) => c.id === "key-read-brief")!;
  assert.equal((await call("GET", "/context?compact=true", { token: briefKey.token })).status, 200);
});

test("ROLE-017 (design) no patterns, guidance, review-config or settings endpoints are built", async () => {
  const m = await theMatrix();
  const ops = await documentOperations();
  const built = ops.filter((o) => /pattern|guidance|review-?config|settings/i.test(o.path)).map((o) => o.key);
  assert.deepEqual(built, []);
  const doc = JSON.parse(await Deno.readTextFile(DOCUMENT_PATH));
  assert.match(doc.info.description, /no patterns, guidance or review-config endpoint is built/);
  // Even an unrestricted key finds no such REST route: project settings change through the operator API only.
  const keyAll = m.credentials.find((c) => c.id === "keyAll")!;
  for (const path of ["/patterns", "/guidance", "/review-config", "/settings", "/project/settings"]) {
    const res = await call("PATCH", path, { token: keyAll.token, body: { any: true } });
    assert.equal(res.status, 404, path);
    assert.equal(res.body.error.code, "NOT_FOUND");
  }
});

test("SUB-019 (design) sub-agents are registered by POST /subagent/session; X-Svc-SubAgent is ignored with API keys", async () => {
  const { projectId } = await newProject();
  const orch = await pairAgent(projectId, { role: "orchestrator" });
  const key = await admin("POST", `/projects/${projectId}/api-keys`, {
    agentName: orch.name,
    role: "orchestrator",
    scopes: [],
  });
  // Not registered yet: the header answers 401 with the session token, and is ignored with the key.
  const before = await call("GET", "/me", { token: orch.token, headers: { "X-Svc-SubAgent": "reviewer" } });
  assert.equal(before.status, 401);
  assert.equal(before.body.error.code, "UNAUTHORIZED");
  const registered = await call("POST", "/subagent/session", {
    token: orch.token,
    body: { name: "reviewer", role: "evaluator" },
  });
  assert.equal(registered.status, 201);
  const asSub = await call("GET", "/me", { token: orch.token, headers: { "X-Svc-SubAgent": "reviewer" } });
  assert.equal(asSub.status, 200);
  assert.equal(asSub.body.data.role, "evaluator");
  assert.equal(asSub.body.data.agent.subAgentName, "reviewer");
  for (const name of ["reviewer", "never-registered", "bad name!"]) {
    const keyed = await call("GET", "/me", { token: key.key, headers: { "X-Svc-SubAgent": name } });
    assert.equal(keyed.status, 200, name);
    assert.equal(keyed.body.data.role, "orchestrator");
    assert.equal(keyed.body.data.agent.subAgentName, undefined);
    assert.deepEqual(keyed.body.data.scopes, []);
  }
  // The key of the parent agent may end the sub-agent; the name is then unregistered.
  const ended = await call("DELETE", "/subagent/session", { token: key.key, body: { name: "reviewer" } });
  assert.equal(ended.status, 200);
  const after = await call("GET", "/me", { token: orch.token, headers: { "X-Svc-SubAgent": "reviewer" } });
  assert.equal(after.status, 401);
  const doc = JSON.parse(await Deno.readTextFile(DOCUMENT_PATH));
  assert.match(
    doc.info.description,
    /`X-Svc-SubAgent` is honoured with session tokens only and ignored with API keys/,
  );
});

test("SUB-024 a sub-agent is graded on its own work: its expired claims do not lower its parent's score", async () => {
  const { projectId } = await newProject({ settings: { ledgerStaleMinutes: 1440 } });
  const orch = await pairAgent(projectId, { role: "orchestrator" });
  const minted = await call("POST", "/subagent/session", {
    token: orch.token,
    body: { name: "late", role: "generator" },
  });
  const subToken = minted.body.data.subAgentToken;
  const { clock } = await env();
  await insertClaim(projectId, {
    agentId: orch.agentId,
    subAgentName: "late",
    files: ["src/forgotten.ts"],
    claimedAt: new Date(clock.now().getTime() - 3600_000),
    expiresAt: new Date(clock.now().getTime() - 60_000),
  });
  const score = async (token: string) =>
    (await call("GET", "/context?compact=true", { token })).body.data.complianceScore;
  assert.ok((await score(subToken)) < 100, "the sub-agent's own expired claim counts against it");
  assert.equal(await score(orch.token), 100, "its parent is not graded on it");
  // And the other way round: the parent's expired claim does not lower the sub-agent's score.
  const { projectId: p2 } = await newProject();
  const parent = await pairAgent(p2, { role: "orchestrator" });
  const child = (await call("POST", "/subagent/session", {
    token: parent.token,
    body: { name: "clean", role: "generator" },
  })).body.data.subAgentToken;
  await insertClaim(p2, {
    agentId: parent.agentId,
    files: ["src/parent.ts"],
    claimedAt: new Date(clock.now().getTime() - 3600_000),
    expiresAt: new Date(clock.now().getTime() - 60_000),
  });
  assert.ok((await score(parent.token)) < 100);
  assert.equal(await score(child), 100);
});

// Last: it moves the clock 8 days, past the life of every session token made above.
test("ROLE-035 (design) an API key is a svc_key_ bearer that never expires; any other presentation is refused", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  const minted = await admin("POST", `/projects/${projectId}/api-keys`, {
    name: "ci",
    agentName: agent.name,
    scopes: ["read:board", "write:ledger"],
  });
  assert.match(minted.key, /^svc_key_[A-Za-z0-9_-]{43}$/);
  assert.equal(minted.agentId, agent.agentId);
  const { db } = await env();
  const stored = await db.selectFrom("tokens").select(["token_hash", "kind", "expires_at", "idle_expires_at"])
    .where("id", "=", minted.id).executeTakeFirstOrThrow();
  assert.equal(stored.kind, "api_key");
  assert.notEqual(stored.token_hash, minted.key);
  assert.equal(stored.expires_at, null);
  assert.equal(stored.idle_expires_at, null);
  assert.equal((await call("GET", "/board", { token: minted.key })).status, 200);
  // Only as a bearer token.
  for (
    const headers of <Record<string, string>[]> [
      { "X-Api-Key": minted.key },
      { Authorization: minted.key },
      { Authorization: `Basic ${btoa(`${minted.key}:`)}` },
      { Authorization: `Token ${minted.key}` },
    ]
  ) {
    const res = await call("GET", "/board", { headers });
    assert.equal(res.status, 401, JSON.stringify(headers));
    assert.equal(res.body.error.code, "UNAUTHORIZED");
  }
  assert.equal((await call("GET", `/board?api_key=${minted.key}`)).status, 401);
  // No expiry and no idle window: after 8 days the key works, the session token paired with it does not.
  await advanceClock(8 * 24 * 3600_000);
  assert.equal((await call("GET", "/board", { token: minted.key })).status, 200);
  assert.equal((await call("GET", "/board", { token: agent.token })).status, 401);
  // Its scopes are the minted ones.
  const refused = await call("POST", "/thread", { token: minted.key, body: { intent: "x" } });
  assert.equal(refused.status, 403);
  assert.equal(refused.body.error.details.requiredScope, "write:threads");
  // It stops with its project.
  await admin("PATCH", `/projects/${projectId}`, { status: "archived" });
  const archived = await call("GET", "/board", { token: minted.key });
  assert.equal(archived.status, 401);
  assert.equal(archived.body.error.code, "UNAUTHORIZED");
});
