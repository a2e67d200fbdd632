// deno-lint-ignore-file no-explicit-any
import assert from "node:assert/strict";
import { admin, advanceClock, type ApiResponse, call, env, pairAgent, test } from "../helpers/mod.ts";
import {
  type Actor,
  plantProjectA,
  type ProjectA,
  type ProjectB,
  projectB,
  snapshotProject,
} from "./tenancy-fixtures.ts";

/**
 * ROLE-005 CONV-025 tenancy fuzz. Project A (organization A) carries a canary in every kind of record; the
 * agents of project B (organization B: every role, an API key, a sub-agent token and `X-Svc-SubAgent`) drive
 * every REST operation of `openapi/openapi.json` with A's ids, ticket keys, names, file paths and cursors.
 *
 * - No answer to B (body or header) carries the canary or one of A's identifiers it did not send itself.
 * - A foreign resource answers exactly like a random unknown id of the same shape (status and code), and
 *   404 for every caller whose role and scopes let it reach the lookup; never 2xx, never a 403 that an
 *   unknown id would not get.
 * - Nothing of A changes: every row of A, table by table, is the same before and after.
 */

/** Identifier values a probe is built from: A's values, or random unknown ones of the same shape. */
interface Vals {
  ticketId: string;
  ticketKey: string;
  reviewTicketId: string;
  sprintId: string;
  threadId: string;
  sessionId: string;
  subSessionId: string;
  agentId: string;
  artifactId: string;
  qaRunId: string;
  file: string;
  subAgent: string;
  agentName: string;
  orchestratorName: string;
  ticketIdem: string;
  assignIdem: string;
  canary: string;
}

interface Request {
  path: string;
  query?: Record<string, string>;
  body?: unknown;
  headers?: Record<string, string>;
}

/**
 * - `not-found`: 404 for a caller that reaches the lookup; a role or scope refusal (401/403) only when the
 *   random twin gets the very same answer.
 * - `refused`: never 2xx; the same status and code as the twin (the endpoint's own section gives the status).
 * - `same`: the same status and code as the twin (a filter or a key that may legitimately succeed in B).
 * - `no-leak`: no twin (cursors, plain listings): only the leak scan.
 */
type Expect = "not-found" | "refused" | "same" | "no-leak";

interface Probe {
  name: string;
  expect: Expect;
  build: (v: Vals, b: ProjectB) => Request | Promise<Request>;
  /** An operation without a bearer token: driven once, not once per actor. */
  anonymous?: boolean;
  /** Creates B records that carry A's identifiers: runs last, after the scans of everything else. */
  late?: boolean;
  /** For batch endpoints (always 200): the outcome of the single row, as a status and code. */
  row?: (body: any) => { status: number; code: string | undefined };
}

/** POST /ledger/batch: `results[0]` is `{ ok, id }` or `{ ok: false, error }` (status: 200 or the row's refusal). */
const ledgerRow = (body: any) => {
  const r = body?.data?.results?.[0];
  return r ? { status: r.ok ? 201 : 400, code: r.error?.code } : { status: 0, code: undefined };
};
/** POST /ticket/batch: `created[0]` or `errors[0] { status, error }`. */
const ticketRow = (body: any) => {
  const e = body?.data?.errors?.[0];
  if (e) return { status: e.status as number, code: e.error?.code };
  return body?.data?.created?.[0] ? { status: 201, code: undefined } : { status: 0, code: undefined };
};

const rnd = () => crypto.randomUUID().replace(/-/g, "").slice(0, 12);

const TICKET = (extra: Record<string, unknown> = {}) => ({
  title: "B ticket",
  type: "feature",
  expectedFiles: [`src/b-${rnd()}.ts`],
  doneDefinition: "B's ticket works end to end",
  verificationCommand: "deno test b",
  riskClass: "local",
  acceptanceCriteria: [{ title: "B works" }],
  ...extra,
});

/** Every REST operation: the probes that carry A's values. The key is `METHOD path` as in the document. */
const PROBES: Record<string, Probe[]> = {
  "GET /me": [
    { name: "plain", expect: "no-leak", build: () => ({ path: "/me" }) },
    {
      name: "X-Svc-SubAgent = A's sub-agent",
      expect: "same",
      build: (v) => ({ path: "/me", headers: { "X-Svc-SubAgent": v.subAgent } }),
    },
  ],
  "POST /pair/code": [
    {
      name: "agentName = A's agent",
      expect: "same",
      late: true,
      build: (v) => ({ path: "/pair/code", body: { agentName: v.agentName } }),
    },
    {
      name: "agentName = A's orchestrator",
      expect: "same",
      late: true,
      build: (v) => ({ path: "/pair/code", body: { agentName: v.orchestratorName } }),
    },
  ],
  "POST /pair/connect": [
    {
      name: "B's code, agentName = A's agent",
      expect: "same",
      anonymous: true,
      late: true,
      build: async (v, b) => ({
        path: "/pair/connect",
        body: { code: (await bCode(b)).code, agentName: v.agentName, platform: "claude-code" },
        headers: {
          "X-Forwarded-For": `10.77.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`,
        },
      }),
    },
  ],
  "GET /pair/prompt": [
    {
      name: "B's code",
      expect: "no-leak",
      anonymous: true,
      build: async (_v, b) => ({
        path: "/pair/prompt",
        query: { code: (await bCode(b)).code },
        headers: {
          "X-Forwarded-For": `10.78.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`,
        },
      }),
    },
  ],
  "POST /session/refresh": [
    {
      name: "a B session token",
      expect: "no-leak",
      anonymous: true,
      build: async (_v, b) => ({
        path: "/session/refresh",
        body: { token: (await pairAgent(b.projectId)).token },
      }),
    },
  ],
  "GET /session/{sessionId}": [
    { name: "A's session", expect: "not-found", build: (v) => ({ path: `/session/${v.sessionId}` }) },
    {
      name: "A's session, upper-cased",
      expect: "not-found",
      build: (v) => ({ path: `/session/${v.sessionId.toUpperCase()}` }),
    },
    {
      name: "A's sub-agent session",
      expect: "not-found",
      build: (v) => ({ path: `/session/${v.subSessionId}`, query: { limit: "5" } }),
    },
  ],
  "PATCH /session/{sessionId}": [
    {
      name: "plan",
      expect: "not-found",
      build: (v) => ({
        path: `/session/${v.sessionId}`,
        body: { plan: [{ content: "B plan", status: "pending" }] },
      }),
    },
    {
      name: "cancel",
      expect: "not-found",
      build: (v) => ({ path: `/session/${v.subSessionId}`, body: { status: "canceled" } }),
    },
  ],
  "POST /session/{sessionId}/activity": [
    {
      name: "A's session",
      expect: "not-found",
      build: (v) => ({ path: `/session/${v.sessionId}/activity`, body: { type: "thought", body: "B" } }),
    },
  ],
  "POST /session/{sessionId}/report": [
    {
      name: "A's session",
      expect: "not-found",
      build: (v) => ({ path: `/session/${v.sessionId}/report`, body: { model: "b-model" } }),
    },
  ],
  "POST /subagent/session": [
    {
      name: "name = A's sub-agent",
      expect: "same",
      late: true,
      build: (v) => ({ path: "/subagent/session", body: { name: v.subAgent, role: "generator" } }),
    },
  ],
  "DELETE /subagent/session": [
    {
      name: "name = A's sub-agent",
      expect: "refused",
      build: (v) => ({ path: "/subagent/session", body: { name: v.subAgent } }),
    },
  ],
  "POST /ticket": [
    {
      name: "expectedFiles = A's held files (B's own ticket)",
      expect: "same",
      late: true,
      build: (v) => ({ path: "/ticket", body: TICKET({ expectedFiles: [v.file] }) }),
    },
    {
      name: "parentId = A's ticket",
      expect: "refused",
      build: (v) => ({ path: "/ticket", body: TICKET({ parentId: v.ticketId }) }),
    },
    {
      name: "sprintId = A's sprint",
      expect: "refused",
      build: (v) => ({ path: "/ticket", body: TICKET({ sprintId: v.sprintId }) }),
    },
    {
      name: "idempotencyKey = A's (a new ticket of B, never A's)",
      expect: "no-leak",
      build: (v) => ({ path: "/ticket", body: TICKET({ idempotencyKey: v.ticketIdem }) }),
    },
  ],
  "GET /ticket": [
    { name: "key", expect: "not-found", build: (v) => ({ path: "/ticket", query: { key: v.ticketKey } }) },
    {
      name: "id upper-cased, key lower-cased",
      expect: "not-found",
      build: (v) => ({
        path: "/ticket",
        query: { id: v.ticketId.toUpperCase(), key: v.ticketKey.toLowerCase() },
      }),
    },
    {
      name: "id with every include",
      expect: "not-found",
      build: (v) => ({
        path: "/ticket",
        query: { id: v.reviewTicketId, include: "comments,ledger,threads,activities,pullRequests,ciStatus" },
      }),
    },
  ],
  "DELETE /ticket": [
    { name: "id", expect: "not-found", build: (v) => ({ path: "/ticket", body: { ticketId: v.ticketId } }) },
  ],
  "PATCH /ticket": [
    {
      name: "status",
      expect: "not-found",
      build: (v) => ({
        path: "/ticket",
        body: { ticketId: v.ticketId, status: "backlog", expectedStatus: "in_progress" },
      }),
    },
    {
      name: "claim by key",
      expect: "not-found",
      build: (v) => ({
        path: "/ticket",
        body: { ticketId: v.ticketKey, action: "claim", assignToSelf: true },
      }),
    },
    {
      name: "approve",
      expect: "not-found",
      build: (v) => ({ path: "/ticket", body: { ticketId: v.reviewTicketId, action: "approve" } }),
    },
    {
      name: "title, unassign",
      expect: "not-found",
      build: (v) => ({ path: "/ticket", body: { ticketId: v.ticketId, title: "B title", unassign: true } }),
    },
    {
      name: "B's ticket, reviewer = A's agent",
      expect: "refused",
      build: (v, b) => ({ path: "/ticket", body: { ticketId: b.ticketId, reviewerAgentId: v.agentId } }),
    },
  ],
  "POST /ticket/batch": [
    {
      name: "parentId = A's ticket",
      expect: "refused",
      row: ticketRow,
      build: (v) => ({ path: "/ticket/batch", body: { tickets: [TICKET({ parentId: v.ticketId })] } }),
    },
    {
      name: "sprintId = A's sprint",
      expect: "refused",
      row: ticketRow,
      build: (v) => ({ path: "/ticket/batch", body: { tickets: [TICKET({ sprintId: v.sprintId })] } }),
    },
  ],
  "GET /issue": [
    { name: "plain", expect: "no-leak", build: () => ({ path: "/issue", query: { state: "all" } }) },
    {
      name: "assigneeId = A's agent",
      expect: "same",
      build: (v) => ({ path: "/issue", query: { state: "all", assigneeId: v.agentId } }),
    },
  ],
  "GET /board": [
    { name: "plain", expect: "no-leak", build: () => ({ path: "/board", query: { include: "cancelled" } }) },
    {
      name: "assigneeId",
      expect: "same",
      build: (v) => ({ path: "/board", query: { assigneeId: v.agentId } }),
    },
    { name: "sprintId", expect: "same", build: (v) => ({ path: "/board", query: { sprintId: v.sprintId } }) },
    {
      name: "A's cursor",
      expect: "no-leak",
      build: (_v) => ({ path: "/board", query: { cursor: CURSORS.board } }),
    },
  ],
  "GET /search": [
    { name: "q = canary", expect: "same", build: (v) => ({ path: "/search", query: { q: v.canary } }) },
    {
      name: "sprintId",
      expect: "same",
      build: (v) => ({ path: "/search", query: { q: "ticket", sprintId: v.sprintId } }),
    },
  ],
  "POST /ticket/{ticketId}/acknowledge": [
    {
      name: "A's ticket",
      expect: "not-found",
      build: (v) => ({
        path: `/ticket/${v.ticketId}/acknowledge`,
        body: { additionalCriteria: [{ title: "B criterion" }] },
      }),
    },
  ],
  "POST /ticket/{ticketId}/approve": [
    {
      name: "A's ticket in review",
      expect: "not-found",
      build: (v) => ({ path: `/ticket/${v.reviewTicketId}/approve`, body: { comment: "B" } }),
    },
  ],
  "POST /ticket/{ticketId}/artifacts": [
    {
      name: "A's ticket",
      expect: "not-found",
      build: (v) => ({
        path: `/ticket/${v.ticketId}/artifacts`,
        body: { type: "commit", url: "https://example.com/b" },
      }),
    },
  ],
  "GET /ticket/{ticketId}/artifacts": [
    {
      name: "A's ticket",
      expect: "not-found",
      build: (v) => ({ path: `/ticket/${v.reviewTicketId}/artifacts` }),
    },
  ],
  "PATCH /ticket/{ticketId}/artifacts/{artifactId}": [
    {
      name: "A's ticket and artifact",
      expect: "not-found",
      build: (v) => ({
        path: `/ticket/${v.reviewTicketId}/artifacts/${v.artifactId}`,
        body: { status: "closed" },
      }),
    },
    {
      name: "B's ticket, A's artifact",
      expect: "not-found",
      build: (v, b) => ({
        path: `/ticket/${b.ticketId}/artifacts/${v.artifactId}`,
        body: { status: "closed" },
      }),
    },
  ],
  "POST /begin": [
    {
      name: "A's ticket",
      expect: "not-found",
      build: (v) => ({
        path: "/begin",
        body: { ticketId: v.ticketId, files: [v.file], acknowledgeCriteria: true },
      }),
    },
    {
      name: "A's key",
      expect: "not-found",
      build: (v) => ({ path: "/begin", body: { ticketId: v.ticketKey, files: [`src/b-${rnd()}.ts`] } }),
    },
  ],
  "GET /workflow": [{ name: "plain", expect: "no-leak", build: () => ({ path: "/workflow" }) }],
  "POST /claim": [
    {
      name: "ticketId = A's ticket",
      expect: "refused",
      build: (v) => ({ path: "/claim", body: { files: [`src/b-${rnd()}.ts`], ticketId: v.ticketId } }),
    },
  ],
  "GET /claim/check": [
    {
      name: "A's claimed files",
      expect: "same",
      build: (v) => ({ path: "/claim/check", query: { files: v.file } }),
    },
  ],
  "POST /release": [
    {
      name: "A's claimed file",
      expect: "same",
      build: (v) => ({ path: "/release", body: { files: [v.file] } }),
    },
  ],
  "POST /ledger": [
    {
      name: "ticketId",
      expect: "refused",
      build: (v) => ({ path: "/ledger", body: { type: "PROGRESS", content: "B", ticketId: v.ticketId } }),
    },
    {
      name: "sessionId",
      expect: "refused",
      build: (v) => ({ path: "/ledger", body: { type: "PROGRESS", content: "B", sessionId: v.sessionId } }),
    },
    {
      name: "threadId",
      expect: "refused",
      build: (v) => ({ path: "/ledger", body: { type: "CONTEXT", content: "B", threadId: v.threadId } }),
    },
    {
      name: "BLOCKED by A's held file (opens B's thread, notifies B's holder only)",
      expect: "same",
      late: true,
      build: (v) => ({
        path: "/ledger",
        body: { type: "BLOCKED", content: "B blocked", blockedByFile: v.file },
      }),
    },
  ],
  "GET /ledger": [
    {
      name: "plain",
      expect: "no-leak",
      build: () => ({ path: "/ledger", query: { include_audit: "true", limit: "200" } }),
    },
    {
      name: "ticketId",
      expect: "same",
      build: (v) => ({ path: "/ledger", query: { ticketId: v.ticketId } }),
    },
    {
      name: "agentId and sessionId",
      expect: "same",
      build: (v) => ({ path: "/ledger", query: { agentId: v.agentId, sessionId: v.sessionId } }),
    },
  ],
  "POST /ledger/batch": [
    {
      name: "ticketId",
      expect: "refused",
      row: ledgerRow,
      build: (v) => ({
        path: "/ledger/batch",
        body: { entries: [{ type: "PROGRESS", content: "B", ticketId: v.ticketId }] },
      }),
    },
    {
      name: "sessionId",
      expect: "refused",
      row: ledgerRow,
      build: (v) => ({
        path: "/ledger/batch",
        body: { entries: [{ type: "PROGRESS", content: "B", sessionId: v.sessionId }] },
      }),
    },
  ],
  "POST /handoff": [
    {
      name: "A's session and ticket",
      expect: "refused",
      build: (v) => ({
        path: "/handoff",
        body: { moduleName: "b", summary: "B", sessionId: v.sessionId, ticketId: v.ticketId },
      }),
    },
  ],
  "POST /session/complete": [
    {
      name: "A's session",
      expect: "refused",
      build: (v) => ({ path: "/session/complete", body: { sessionId: v.sessionId } }),
    },
  ],
  "GET /qa/{qaRunId}": [{
    name: "A's QA run, upper-cased",
    expect: "not-found",
    build: (v) => ({ path: `/qa/${v.qaRunId.toUpperCase()}` }),
  }, {
    name: "A's QA run",
    expect: "not-found",
    build: (v) => ({ path: `/qa/${v.qaRunId}` }),
  }],
  "POST /qa/{qaRunId}/results": [{
    name: "A's QA run",
    expect: "not-found",
    build: (v) => ({
      path: `/qa/${v.qaRunId}/results`,
      body: { tests: [{ criterionIndex: 0, status: "failed", evidence: "B was here" }] },
    }),
  }],
  "GET /ticket/{ticketId}/qa": [{
    name: "A's ticket",
    expect: "not-found",
    build: (v) => ({ path: `/ticket/${v.reviewTicketId}/qa` }),
  }],
  "PATCH /brief": [{
    name: "B's brief",
    expect: "no-leak",
    build: () => ({ path: "/brief", body: { context: "B context" } }),
  }],
  "POST /thread/close-bulk": [
    {
      name: "agentId = A's agent",
      expect: "same",
      build: (v) => ({ path: "/thread/close-bulk", body: { outcome: "B", agentId: v.agentId } }),
    },
    {
      name: "subAgentName = A's",
      expect: "same",
      build: (v) => ({ path: "/thread/close-bulk", body: { outcome: "B", subAgentName: v.subAgent } }),
    },
  ],
  "POST /thread": [
    {
      name: "expectedFiles = A's held files (B's own thread)",
      expect: "same",
      late: true,
      build: (v) => ({ path: "/thread", body: { intent: "B on a path", expectedFiles: [v.file] } }),
    },
    {
      name: "ticketId = A's ticket",
      expect: "not-found",
      build: (v) => ({ path: "/thread", body: { intent: "B", ticketId: v.ticketId } }),
    },
    {
      name: "ticketId = A's key",
      expect: "not-found",
      build: (v) => ({ path: "/thread", body: { intent: "B", ticketId: v.ticketKey } }),
    },
  ],
  "GET /thread/{threadId}": [{
    name: "A's thread, upper-cased",
    expect: "not-found",
    build: (v) => ({ path: `/thread/${v.threadId.toUpperCase()}` }),
  }, {
    name: "A's thread",
    expect: "not-found",
    build: (v) => ({ path: `/thread/${v.threadId}` }),
  }],
  "PATCH /thread/{threadId}": [
    {
      name: "close",
      expect: "not-found",
      build: (v) => ({ path: `/thread/${v.threadId}`, body: { status: "closed" } }),
    },
    {
      name: "intent",
      expect: "not-found",
      build: (v) => ({ path: `/thread/${v.threadId}`, body: { intent: "B" } }),
    },
  ],
  "POST /thread/{threadId}/reply": [
    {
      name: "A's thread",
      expect: "not-found",
      build: (v) => ({ path: `/thread/${v.threadId}/reply`, body: { content: "B" } }),
    },
    {
      name: "B's thread mentioning A's agent",
      expect: "same",
      late: true,
      build: (v, b) => ({ path: `/thread/${b.threadId}/reply`, body: { content: `@${v.agentName} look` } }),
    },
  ],
  "POST /thread/{threadId}/close": [
    {
      name: "A's thread",
      expect: "not-found",
      build: (v) => ({ path: `/thread/${v.threadId}/close`, body: { outcome: "B" } }),
    },
  ],
  "GET /sprint": [{ name: "plain", expect: "no-leak", build: () => ({ path: "/sprint" }) }],
  "POST /sprint": [{
    name: "B's sprint",
    expect: "no-leak",
    build: () => ({ path: "/sprint", body: { name: "B" } }),
  }],
  "GET /sprint/current": [{
    name: "plain",
    expect: "no-leak",
    build: () => ({ path: "/sprint/current", query: { include: "tickets" } }),
  }],
  "GET /sprint/{sprintId}": [{
    name: "A's sprint, upper-cased",
    expect: "not-found",
    build: (v) => ({ path: `/sprint/${v.sprintId.toUpperCase()}` }),
  }, {
    name: "A's sprint",
    expect: "not-found",
    build: (v) => ({ path: `/sprint/${v.sprintId}` }),
  }],
  "PATCH /sprint/{sprintId}": [
    {
      name: "complete",
      expect: "not-found",
      build: (v) => ({ path: `/sprint/${v.sprintId}`, body: { status: "complete" } }),
    },
    {
      name: "rename",
      expect: "not-found",
      build: (v) => ({ path: `/sprint/${v.sprintId}`, body: { name: "B" } }),
    },
  ],
  "POST /sprint/assign": [
    {
      name: "A's ticket",
      expect: "not-found",
      build: (v) => ({ path: "/sprint/assign", body: { ticketId: v.ticketId, sprintId: null } }),
    },
    {
      name: "A's key to B's sprint",
      expect: "not-found",
      build: (v, b) => ({ path: "/sprint/assign", body: { ticketId: v.ticketKey, sprintId: b.sprintId } }),
    },
    {
      name: "B's ticket to A's sprint",
      expect: "not-found",
      build: (v, b) => ({ path: "/sprint/assign", body: { ticketId: b.ticketId, sprintId: v.sprintId } }),
    },
    {
      name: "A's idempotency key",
      expect: "same",
      build: (v, b) => ({
        path: "/sprint/assign",
        body: { ticketId: b.ticketId, sprintId: null, idempotencyKey: v.assignIdem },
      }),
    },
  ],
  "GET /context": [
    {
      name: "plain",
      expect: "no-leak",
      build: () => ({
        path: "/context",
        query: { thread_status: "all", include_system_ledger: "true", include_audit: "true" },
      }),
    },
    {
      name: "ledger filters",
      expect: "same",
      build: (v) => ({
        path: "/context",
        query: { ledger_sessionId: v.sessionId, ledger_fileRef: v.file, ledger_subAgent: v.subAgent },
      }),
    },
    {
      name: "X-Svc-SubAgent = A's sub-agent",
      expect: "same",
      build: (v) => ({ path: "/context", headers: { "X-Svc-SubAgent": v.subAgent } }),
    },
  ],
  // An invalid or foreign cursor restarts the listing: the answer is B's first page.
  "GET /context/more": ["ledger", "threads", "brief", "reviews"].map((section): Probe => ({
    name: `${section} with A's cursor`,
    expect: "no-leak",
    build: () => ({ path: "/context/more", query: { section, cursor: (CURSORS as any)[section] } }),
  })),
  "GET /events": [
    { name: "plain", expect: "no-leak", build: () => ({ path: "/events", query: { limit: "500" } }) },
    {
      name: "A's cursor",
      expect: "no-leak",
      build: () => ({ path: "/events", query: { since: CURSORS.events, limit: "500" } }),
    },
  ],
  // Extensions (issues 24 to 26).
  "GET /sprint/{sprintId}/plan": [{
    name: "A's sprint",
    expect: "not-found",
    build: (v) => ({ path: `/sprint/${v.sprintId}/plan` }),
  }],
  "POST /claim/verify": [{
    name: "A's claimed file",
    expect: "same",
    build: (v) => ({ path: "/claim/verify", body: { files: [v.file] } }),
  }],
  "POST /claim/release-requests": [{
    name: "A's claimed file",
    expect: "same",
    build: (v) => ({ path: "/claim/release-requests", body: { files: [v.file] } }),
  }],
  "GET /claim/requests": [{ name: "plain", expect: "no-leak", build: () => ({ path: "/claim/requests" }) }],
  "GET /claim/release-requests": [
    { name: "own", expect: "no-leak", build: () => ({ path: "/claim/release-requests" }) },
    {
      name: "incoming",
      expect: "no-leak",
      build: () => ({ path: "/claim/release-requests", query: { incoming: "true" } }),
    },
  ],
  "GET /ledger/checkpoints": [{
    name: "plain",
    expect: "no-leak",
    build: () => ({ path: "/ledger/checkpoints" }),
  }],
};

/**
 * Operations the test does not drive, each with its reason (none today: the unauthenticated pairing and
 * refresh routes are driven once each with B's own code or token; A's codes and tokens are credentials,
 * whose possession is not a tenancy question).
 */
const NOT_DRIVEN: Record<string, string> = {
  "GET /skill": "the same skill document for every caller; no tenant data",
  "GET /.well-known/oauth-authorization-server": "public metadata, the same for every caller; no tenant data",
  "GET /.well-known/oauth-protected-resource": "public metadata, the same for every caller; no tenant data",
  "GET /.well-known/oauth-protected-resource/mcp":
    "public metadata, the same for every caller; no tenant data",
  "GET /api/oauth/jwks": "public signing keys, the same for every caller; no tenant data",
  "POST /api/oauth/register": "creates a client of no project; no tenant data in or out",
  "POST /api/oauth/token": "takes codes and refresh tokens, never project ids (tests/oauth/token.test.ts)",
  "POST /api/oauth/revoke": "answers 200 {} whatever it is given (tests/oauth/revoke.test.ts)",
  "GET /oauth/authorize":
    "a browser page of the signed-in user's own projects (tests/oauth/authorize.test.ts)",
  "POST /oauth/authorize": "approving a project the user is not a member of is refused (OAUTH-040 test)",
  "GET /claim/requests/{id}": "A has no wait requests here; another agent's request is 404 (CLAIMQ-1 tests)",
  "DELETE /claim/requests/{id}":
    "A has no wait requests here; another agent's request is 404 (CLAIMQ-1 tests)",
  "GET /claim/release-requests/{requestId}":
    "A has no release requests here; a third agent reading one gets 404 (CLAIMQ-3 tests)",
  "POST /claim/release-requests/{requestId}/answer":
    "A has no release requests here; only the holder may answer (CLAIMQ-3 tests)",
  "GET /events/stream":
    "never ends by itself; it sends GET /events's feed of the caller's project (PUSH-4 tests)",
};

const ANONYMOUS: Actor = { label: "anonymous", token: "" };

/** A pairing code of B, minted by the operator. */
async function bCode(b: ProjectB): Promise<{ code: string }> {
  return await admin("POST", `/projects/${b.projectId}/pairing-codes`, { role: "generator" });
}

let CURSORS: ProjectA["cursors"] = {} as ProjectA["cursors"];

function randomVals(a: ProjectA): Vals {
  return {
    ticketId: crypto.randomUUID(),
    ticketKey: `${a.prefix}-${9000 + Math.floor(Math.random() * 999)}`,
    reviewTicketId: crypto.randomUUID(),
    sprintId: crypto.randomUUID(),
    threadId: crypto.randomUUID(),
    sessionId: crypto.randomUUID(),
    subSessionId: crypto.randomUUID(),
    agentId: crypto.randomUUID(),
    artifactId: crypto.randomUUID(),
    qaRunId: crypto.randomUUID(),
    file: `src/unknown-${rnd()}/app.ts`,
    subAgent: `unknown-${rnd()}`,
    agentName: `Unknown-${rnd()}`,
    orchestratorName: `Unknown-${rnd()}`,
    ticketIdem: `idem-${crypto.randomUUID()}`,
    assignIdem: `assign-${crypto.randomUUID()}`,
    canary: `UNKNOWN-${crypto.randomUUID()}`,
  };
}

function foreignVals(a: ProjectA): Vals {
  return {
    ...a.ids,
    assignIdem: a.ids.assignIdempotencyKey,
    ticketIdem: a.ids.ticketIdempotencyKey,
    file: a.files[0]!,
    subAgent: a.names.subAgent,
    agentName: a.names.mentioned,
    orchestratorName: a.names.orchestrator,
    canary: a.canary,
  };
}

/** Every string a request carries: an answer may echo them (they are the caller's own input). */
function sentStrings(req: Request, method: string): string[] {
  const out: string[] = [...req.path.split("/").filter((s) => s.length > 0)];
  const walk = (x: unknown) => {
    if (typeof x === "string") out.push(x);
    else if (Array.isArray(x)) x.forEach(walk);
    else if (x && typeof x === "object") Object.values(x).forEach(walk);
  };
  walk(req.query ?? {});
  walk(req.body ?? {});
  walk(req.headers ?? {});
  void method;
  // Longest first, so a value is removed before any value it contains; lower-cased copies too (ids are
  // compared lower-cased, and an answer may echo them so).
  const all = out.filter((s) => s.length >= 3);
  return [...new Set([...all, ...all.map((s) => s.toLowerCase())])].sort((x, y) => y.length - x.length);
}

/** A's secrets found in an answer, once the caller's own input is cut out of it. */
function leaks(res: ApiResponse, secrets: string[], allowed: string[]): string[] {
  let text = res.text;
  const headers: string[] = [];
  res.headers.forEach((value, key) => headers.push(`${key}: ${value}`));
  text += "\n" + headers.join("\n");
  for (const s of allowed) text = text.split(s).join("<sent>");
  const lower = text.toLowerCase();
  return secrets.filter((s) => lower.includes(s.toLowerCase()));
}

interface Outcome {
  op: string;
  probe: string;
  actor: string;
  status: number;
  code: string | undefined;
  twin?: { status: number; code: string | undefined };
}

test("ROLE-005 CONV-025 tenancy fuzz: B's agents drive every REST route with A's ids; nothing leaks, 404 like an unknown id, A unchanged", async () => {
  const started = Date.now();
  const [a, b] = await Promise.all([plantProjectA(), projectB()]);
  CURSORS = a.cursors;
  const { db } = await env();
  const spec = JSON.parse(await Deno.readTextFile(new URL("../../openapi/openapi.json", import.meta.url)));
  const ops: string[] = [];
  for (const [path, item] of Object.entries<any>(spec.paths)) {
    for (const method of ["get", "post", "put", "patch", "delete"]) {
      if (item[method]) ops.push(`${method.toUpperCase()} ${path}`);
    }
  }
  // A new operation must be driven or listed with a reason.
  const unlisted = ops.filter((op) => !PROBES[op] && !NOT_DRIVEN[op]);
  assert.deepEqual(unlisted, [], "operations neither driven nor listed in NOT_DRIVEN");
  const stale = [...Object.keys(PROBES), ...Object.keys(NOT_DRIVEN)].filter((op) => !ops.includes(op));
  assert.deepEqual(stale, [], "probes for operations the document no longer has");

  // The canary's random part (case-insensitive, so truncated or re-cased copies are caught too) and every
  // identifier of A: a session token of B must never see one it did not send.
  const secrets = [
    a.canary.slice(7, 15),
    a.canary.slice(-12),
    a.projectId,
    a.orgId,
    ...Object.values(a.ids),
    a.ids.ticketKey + '"',
    a.ids.reviewTicketKey + '"',
  ].filter((s) => !s.startsWith("idem-") && !s.startsWith("assign-")).concat([
    a.ids.ticketIdempotencyKey,
    a.ids.assignIdempotencyKey,
  ]);
  const before = await snapshotProject(a.projectId);
  const foreign = foreignVals(a);
  // The plant reached every kind of record (else the comparison below would prove nothing).
  const empty = Object.entries(before).filter(([table, rows]) =>
    rows.length === 0 && !["ticket_comments", "memberships", "agent_context_state"].includes(table)
  ).map(([table]) => table);
  assert.deepEqual(empty, [], "tables without any row of A");

  const outcomes: Outcome[] = [];
  const failures: string[] = [];
  const globallyAllowed: string[] = [];
  let requests = 0;
  let sinceAdvance = 0;
  /**
   * Between probes (never between a probe and its twin, whose answers are compared), the clock moves past
   * the one-minute burst windows (240 units per agent, 720 per project) every 90 requests or so; the
   * 5-minute window of the per-session-token request limit (200) goes by every 450.
   */
  const pace = async () => {
    if (requests - sinceAdvance < 90) return;
    sinceAdvance = requests;
    await advanceClock(61_000);
  };
  const send = async (method: string, req: Request, actor: Actor) => {
    requests++;
    const qs = req.query ? `?${new URLSearchParams(req.query)}` : "";
    return await call(method, `${req.path}${qs}`, {
      token: actor.token,
      headers: { ...(actor.headers ?? {}), ...(req.headers ?? {}) },
      ...(req.body !== undefined ? { body: req.body } : {}),
    });
  };

  const runProbe = async (op: string, probe: Probe, actor: Actor) => {
    const method = op.split(" ")[0]!;
    const req = await probe.build(foreign, b);
    const res = await send(method, req, actor);
    const where = `${op} [${probe.name}] as ${actor.label}`;
    const found = leaks(res, secrets, [...sentStrings(req, method), ...globallyAllowed]);
    if (found.length > 0) {
      const at = res.text.toLowerCase().indexOf(found[0]!.toLowerCase());
      failures.push(
        `${where}: leaks ${found.join(", ")}: ${res.status} …${
          res.text.slice(Math.max(0, at - 300), at + 100)
        }`,
      );
    }
    if (res.status >= 500) failures.push(`${where}: ${res.status} ${res.text.slice(0, 200)}`);
    const outcome: Outcome = {
      op,
      probe: probe.name,
      actor: actor.label,
      status: res.status,
      code: res.body?.error?.code,
    };
    const rowOf = (r: ApiResponse) =>
      probe.row && r.status === 200 ? probe.row(r.body) : { status: r.status, code: r.body?.error?.code };
    const mine = rowOf(res);
    outcomes.push(outcome);
    if (probe.expect === "no-leak") return;
    const twinReq = await probe.build(randomVals(a), b);
    const twin = await send(method, twinReq, actor);
    outcome.twin = { status: twin.status, code: twin.body?.error?.code };
    const theirs = rowOf(twin);
    if (twin.status !== res.status || theirs.status !== mine.status || theirs.code !== mine.code) {
      failures.push(
        `${where}: A's id answers ${mine.status} ${mine.code ?? ""}, an unknown id ${theirs.status} ${
          theirs.code ?? ""
        }: ${res.text.slice(0, 300)}`,
      );
      return;
    }
    // The whole error (code, message, details with recovery), with each side's own values masked, is the
    // same: nothing in an answer tells A's existing resource from an unknown one.
    // A read that succeeds (a filter) answers the same data too, once times and ids are masked.
    // GET /context is stateful by design (it delivers notifications and moves "since your last call"), so
    // two calls in a row differ whatever ids they carry: there only status and code are compared.
    const stateful = op === "GET /context";
    if (res.status >= 400 || (method === "GET" && res.status === 200 && !stateful)) {
      const mask = (r: ApiResponse, sent: string[]) => {
        let t = JSON.stringify(r.body?.error ?? r.body?.data ?? null);
        for (const x of sent) t = t.split(JSON.stringify(x).slice(1, -1)).join("<sent>");
        return t.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, "<uuid>")
          .replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, "<time>");
      };
      const m1 = mask(res, sentStrings(req, method));
      const m2 = mask(twin, sentStrings(twinReq, method));
      if (m1 !== m2) {
        failures.push(
          `${where}: A's id and an unknown id get different answers: ${m1.slice(0, 600)} vs ${
            m2.slice(0, 600)
          }`,
        );
      }
    }
    if (res.status === 404) {
      const documented = spec.paths[op.slice(op.indexOf(" ") + 1)]?.[method.toLowerCase()]?.description ?? "";
      if (!String(documented).includes(outcome.code ?? "?")) {
        failures.push(`${where}: 404 ${outcome.code} is not among the codes the operation documents`);
      }
      if (
        outcome.code === "TICKET_NOT_FOUND" &&
        res.body?.error?.details?.recovery?.action !== "RESOLVE_TICKET_REF"
      ) {
        failures.push(
          `${where}: TICKET_NOT_FOUND without recovery RESOLVE_TICKET_REF: ${res.text.slice(0, 300)}`,
        );
      }
    }
    if ((probe.expect === "not-found" || probe.expect === "refused") && mine.status < 300) {
      failures.push(`${where}: ${mine.status} for a foreign resource: ${res.text.slice(0, 300)}`);
    }
    if (probe.expect === "not-found" && mine.status !== 404 && mine.status !== 401 && mine.status !== 403) {
      failures.push(`${where}: ${mine.status} ${mine.code} instead of 404: ${res.text.slice(0, 300)}`);
    }
  };

  // The late probes (B's own records carrying A's identifiers) run last.
  const driven = Object.keys(PROBES);
  for (const op of driven) {
    for (const probe of PROBES[op]!.filter((p) => !p.late)) {
      await pace();
      // The actors of one probe run side by side (each is its own identity in B).
      await Promise.all(
        (probe.anonymous ? [ANONYMOUS] : b.actors).map((actor) => runProbe(op, probe, actor)),
      );
    }
  }
  globallyAllowed.push(a.names.subAgent, a.names.mentioned, a.names.orchestrator, ...a.files);
  for (const op of driven) {
    for (const probe of PROBES[op]!.filter((p) => p.late)) {
      await pace();
      for (const actor of probe.anonymous ? [ANONYMOUS] : b.actors) await runProbe(op, probe, actor);
    }
  }

  // B claiming A's canary file path: granted in B (claims are per project), no conflict with A's holder.
  const claim = await call("POST", "/claim", {
    token: b.generator.token,
    body: { files: [a.files[0], a.files[2]] },
  });
  requests++;
  const check = (ok: boolean, what: string) => ok || failures.push(what);
  check(claim.status === 200, `B claiming A's paths: ${claim.status} ${claim.text.slice(0, 300)}`);
  check(leaks(claim, secrets, globallyAllowed).length === 0, `B's claim leaks: ${claim.text.slice(0, 300)}`);
  const claimCheck = await call("GET", `/claim/check?files=${encodeURIComponent(a.files[0]!)}`, {
    token: b.generator.token,
  });
  requests++;
  check(
    claimCheck.body?.data?.files?.[0]?.isSelf === true,
    `B's claim check: ${claimCheck.text.slice(0, 300)}`,
  );
  check(leaks(claimCheck, secrets, globallyAllowed).length === 0, `claim check leaks: ${claimCheck.text}`);
  const holders = await db.selectFrom("claim_files as f").innerJoin("claims as c", "c.id", "f.claim_id")
    .select(["f.project_id", "c.agent_id", "f.file"]).where("f.file", "in", [a.files[0]!, a.files[2]!])
    .where("f.released_at", "is", null).orderBy("f.project_id").execute();
  check(holders.length === 4, `each project holds both paths: ${JSON.stringify(holders)}`);
  for (const h of holders) {
    check(
      h.agent_id === (h.project_id === a.projectId ? a.holder.agentId : b.generator.agentId),
      `holder of ${h.file} in ${h.project_id}: ${h.agent_id}`,
    );
  }
  // B begins its own ticket on A's paths, then runs its sprint to completion (release notes): B's alone.
  const own = [
    await call("POST", "/begin", {
      token: b.generator.token,
      body: { ticketId: b.ticketId, files: [a.files[0], a.files[1]], acknowledgeCriteria: true },
    }),
    await call("POST", "/sprint/assign", {
      token: b.generator.token,
      body: { ticketId: b.ticketId, sprintId: b.sprintId },
    }),
    await call("PATCH", `/sprint/${b.sprintId}`, { token: b.generator.token, body: { status: "active" } }),
    await call("GET", "/sprint/current?include=tickets", { token: b.generator.token }),
    await call("PATCH", `/sprint/${b.sprintId}`, { token: b.generator.token, body: { status: "complete" } }),
  ];
  requests += own.length;
  for (const res of own) {
    check(res.status < 300, `B's own loop: ${res.status} ${res.text.slice(0, 300)}`);
    const found = leaks(res, secrets, globallyAllowed);
    if (found.length > 0) failures.push(`B's own loop leaks ${found.join(", ")}: ${res.text.slice(0, 300)}`);
  }

  // B's feeds after the claim: still nothing of A (its paths are B's own now).
  for (
    const path of ["/context", "/events?limit=500", "/board", "/ledger?limit=200", `/search?q=${a.canary}`]
  ) {
    const res = await call("GET", path, { token: b.generator.token });
    requests++;
    check(res.status === 200, `${path}: ${res.status} ${res.text.slice(0, 200)}`);
    const found = leaks(res, secrets, [...globallyAllowed, a.canary]);
    if (found.length > 0) failures.push(`${path} after B's claim: leaks ${found.join(", ")}`);
  }
  const search = await call("GET", `/search?q=${encodeURIComponent(a.canary)}`, { token: b.generator.token });
  requests++;
  check(
    search.status === 200 && search.body.data.results.length === 0,
    `search for A's canary: ${search.text.slice(0, 300)}`,
  );

  // Nothing of A changed, row by row; A's holder still holds its paths.
  const after = await snapshotProject(a.projectId);
  for (const table of Object.keys(before)) {
    if (JSON.stringify(before[table]) !== JSON.stringify(after[table])) {
      const gone = before[table]!.filter((r) => !after[table]!.includes(r));
      const added = after[table]!.filter((r) => !before[table]!.includes(r));
      failures.push(
        `A's ${table} changed: before ${JSON.stringify(gone).slice(0, 400)} after ${
          JSON.stringify(added).slice(0, 400)
        }`,
      );
    }
  }

  // Figures for the report.
  const byStatus: Record<string, number> = {};
  for (const o of outcomes) {
    byStatus[o.status] = (byStatus[o.status] ?? 0) + 1;
    if (o.twin) byStatus[o.twin.status] = (byStatus[o.twin.status] ?? 0) + 1;
  }
  console.log(
    `tenancy fuzz: ${requests} requests from B, ${outcomes.length} probes, ${driven.length} of ${ops.length} operations driven ` +
      `(${Object.keys(NOT_DRIVEN).length} listed), outcomes by status ${JSON.stringify(byStatus)}, ${
        Math.round((Date.now() - started) / 100) / 10
      } s`,
  );
  assert.deepEqual(failures, []);
});
