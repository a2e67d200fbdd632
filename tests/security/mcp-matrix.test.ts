import assert from "node:assert/strict";
import { createForward, restBase, restUrlOf, UpstreamFailure, upstreamOutcome } from "@/mcp/forward.ts";
import { TOOLS } from "@/mcp/tools/index.ts";
import type { RestCall, ToolDefinition, ToolOutcome } from "@/mcp/types.ts";
import { insertTicket } from "../helpers/fixtures.ts";
import { admin, advanceClock, call, env, test } from "../helpers/mod.ts";
import { appFetch, ticketArgs } from "../mcp/helpers.ts";
import { serviceCtx } from "../oauth/helpers.ts";
import { issueAccessToken } from "@/domain/oauth/access-token.ts";
import { buildMatrix, type Credential, type Matrix, OAUTH_READ_SCOPES } from "./fixtures.ts";
import {
  plantProjectA,
  type ProjectA,
  type ProjectB,
  projectB,
  snapshotProject,
} from "./tenancy-fixtures.ts";

/**
 * The permission matrix and the tenancy walk of the tool server (issue 10, "Done when": the matrix and
 * tenancy tests walk every tool with every credential type, as they walk every route). Tools reach REST
 * through the in-process forward with the caller's bearer and `X-Svc-Platform: oauth` (MCP-004, MCP-005):
 *
 * - Matrix: every one of the 15 tools, run with every credential of tests/security/fixtures.ts (OAuth
 *   access tokens with scope `read` and `write`, session tokens of every role, sub-agent token and
 *   header, API keys unrestricted, narrow and one per scope, and the dead ones: revoked, expired, idle,
 *   archived project, suspended organization, missing, malformed), answers exactly as its REST route
 *   answers the same credential: the same success or the same status and error code. On top of that the
 *   spec's own expectations for the OAuth columns and the dead credentials (MCP-020).
 * - Tenancy: project B's agents and OAuth tokens call every tool with project A's ids and keys. Nothing of
 *   A leaks (canary, A's ids they did not send), a foreign id answers like an unknown one, A is unchanged.
 *
 * Only OAuth access tokens pass the /mcp gate (src/routes/mcp.ts); the other credentials are driven
 * through the tools directly, to show the forward adds no privilege of its own to any bearer.
 */

const ORIGIN = "http://localhost:8787";
const READ_TOOLS = ["svc_status", "svc_board", "svc_tickets", "svc_ticket_get", "svc_brief_get"];

interface Caller {
  token: string;
  headers?: Record<string, string> | undefined;
}

interface Cell {
  ok: boolean;
  status: number | null;
  code: string | null;
  /** The error message (not compared: REST and the tool see the same text, ids differ between runs). */
  message?: string;
}

const tool = (name: string) => TOOLS.find((t) => t.name === name)!;

/** The REST calls a tool makes for these arguments, without making them (every call answered 400). */
async function plannedCalls(t: ToolDefinition, args: Record<string, unknown>): Promise<RestCall[]> {
  const calls: RestCall[] = [];
  await t.run(t.input.parse(args) as never, (c) => {
    calls.push(c);
    return Promise.resolve({ status: 400, body: { error: { code: "PLANNED", message: "planned" } } });
  });
  return calls;
}

function cellOf(outcome: ToolOutcome): Cell {
  return outcome.ok ? { ok: true, status: null, code: null } : {
    ok: false,
    status: outcome.status,
    code: String(outcome.error.code ?? ""),
    message: String(outcome.error.message ?? ""),
  };
}

/** Runs a tool as the MCP server does: arguments parsed, REST through the in-process forward. */
async function runAs(name: string, args: Record<string, unknown>, caller: Caller) {
  const t = tool(name);
  const forward = createForward({
    bearer: caller.token,
    fetch: await appFetch(),
    origin: ORIGIN,
    headers: caller.headers,
  });
  let outcome: ToolOutcome;
  try {
    outcome = await t.run(t.input.parse(args) as never, forward);
  } catch (err) {
    if (!(err instanceof UpstreamFailure)) throw err;
    outcome = upstreamOutcome(err);
  }
  return outcome;
}

/** What REST answers the same caller for the same calls, made directly (the route's own outcome). */
async function restCell(calls: RestCall[], caller: Caller): Promise<Cell> {
  const base = restBase({ origin: ORIGIN });
  for (const c of calls) {
    const url = new URL(restUrlOf(base, c));
    const res = await call(c.method, url.pathname + url.search, {
      headers: {
        ...(caller.headers ?? {}),
        Authorization: `Bearer ${caller.token}`,
        "X-Svc-Platform": "oauth",
      },
      body: c.body,
    });
    if (res.status < 200 || res.status >= 300) {
      return { ok: false, status: res.status, code: res.body?.error?.code ?? null };
    }
  }
  return { ok: true, status: null, code: null };
}

// ---- the matrix ----

interface MatrixCase {
  tool: string;
  label: string;
  /** Arguments for the tool run, and (`rest`) for the direct REST run when a write must not repeat. */
  args: (m: Matrix, c: Credential, run: "tool" | "rest") => Promise<Record<string, unknown>>;
}

const unique = () => crypto.randomUUID().slice(0, 8);

/** Tickets POST /begin may start: one per credential and run, so the two runs never meet. */
const beginTickets = new Map<string, string>();
async function beginTicket(m: Matrix, c: Credential, run: string): Promise<string> {
  const key = `${c.id}:${run}`;
  if (!beginTickets.has(key)) {
    const t = await insertTicket(m.projectId, {
      title: `MCP begin ${key}`,
      criteria: [{ title: "It works", requiresEvidence: false }],
      expectedFiles: ["src/matrix.ts"],
      doneDefinition: "The MCP matrix passes for every cell",
      verificationCommand: "deno test tests/security",
      riskClass: "local",
    });
    beginTickets.set(key, t.id);
  }
  return beginTickets.get(key)!;
}

/** The work session svc_ticket_begin returned to each credential (OAuth tokens carry none of their own). */
const workSessions = new Map<string, string>();

const CASES: MatrixCase[] = [
  { tool: "svc_status", label: "compact context", args: () => Promise.resolve({}) },
  { tool: "svc_board", label: "board and sprints", args: () => Promise.resolve({}) },
  { tool: "svc_tickets", label: "board listing", args: () => Promise.resolve({}) },
  { tool: "svc_tickets", label: "search", args: (m) => Promise.resolve({ q: m.backlog.key }) },
  { tool: "svc_ticket_get", label: "by key", args: (m) => Promise.resolve({ key: m.backlog.key }) },
  { tool: "svc_brief_get", label: "brief", args: () => Promise.resolve({}) },
  {
    tool: "svc_ticket_create",
    label: "new ticket",
    args: (_m, c) => Promise.resolve(ticketArgs({ title: `MCP matrix ${c.id} ${unique()}` })),
  },
  {
    tool: "svc_ticket_batch",
    label: "one row",
    args: (_m, c) => Promise.resolve({ tickets: [ticketArgs({ title: `MCP batch ${c.id} ${unique()}` })] }),
  },
  {
    tool: "svc_ticket_begin",
    label: "own fresh ticket",
    args: async (m, c, run) => ({
      ticketId: await beginTicket(m, c, run),
      files: [`src/mcp-matrix/${c.id}-${run}.ts`],
      acknowledgeCriteria: true,
    }),
  },
  {
    tool: "svc_ticket_update",
    label: "priority",
    args: (m) => Promise.resolve({ ticketId: m.backlog.id, priority: "high" }),
  },
  {
    tool: "svc_ticket_acknowledge",
    label: "criteria",
    args: (m) => Promise.resolve({ ticketId: m.backlog.id }),
  },
  {
    tool: "svc_sprint_create",
    label: "new sprint",
    args: (_m, c) => Promise.resolve({ name: `MCP ${c.id} ${unique()}` }),
  },
  {
    tool: "svc_sprint_assign",
    label: "backlog ticket",
    args: (m) => Promise.resolve({ ticketId: m.backlog.id, sprintId: m.sprintId }),
  },
  {
    tool: "svc_brief_update",
    label: "context field",
    args: (_m, c) => Promise.resolve({ context: `Written through the MCP matrix by ${c.id}` }),
  },
  {
    tool: "svc_ledger_add",
    label: "PROGRESS in own session",
    args: (_m, c) =>
      Promise.resolve({
        type: "PROGRESS",
        content: `MCP matrix progress by ${c.id}`,
        sessionId: workSessions.get(c.id) ?? c.sessionId ?? crypto.randomUUID(),
      }),
  },
  {
    tool: "svc_handoff",
    label: "not own session",
    // Refused after authentication, scope and role (400: not the caller's session), so nothing ends.
    args: () => Promise.resolve({ moduleName: "matrix", summary: "Nothing", sessionId: crypto.randomUUID() }),
  },
];

/**
 * OAuth columns beyond the matrix fixtures' two (scope read, scope write of a member): a write token of a
 * `viewer` member (served as read), a write token whose user has left the project, and an expired one.
 */
async function oauthExtras(m: Matrix): Promise<Credential[]> {
  const ctx = await serviceCtx();
  const member = async (role: string) => {
    const user = await admin("POST", "/users", {
      email: `mcp-${role}-${unique()}@example.com`,
      password: "correct horse battery staple",
      name: `MCP ${role} ${unique()}`,
    });
    await admin("POST", `/projects/${m.projectId}/members`, { userId: user.id, role });
    return user.id as string;
  };
  const mint = async (userId: string, clock = ctx.clock) =>
    (await issueAccessToken({ ...ctx, clock }, {
      userId,
      projectId: m.projectId,
      orgId: m.orgId,
      scope: "write",
      clientId: "mcp-matrix",
    })).accessToken;
  const viewer = await mint(await member("viewer"));
  const leaverId = await member("member");
  const leaver = await mint(leaverId);
  const { db } = await env();
  await db.deleteFrom("memberships").where("user_id", "=", leaverId).where("project_id", "=", m.projectId)
    .execute();
  const past = { ...ctx.clock, now: () => new Date(ctx.clock.now().getTime() - 2 * 3600_000) };
  const expired = await mint(await member("member"), past);
  const oauth = (id: string, label: string, token: string, scopes: string[], live: boolean): Credential => ({
    id,
    label,
    token,
    headers: {},
    live,
    role: "generator",
    scopes,
    kind: "oauth",
    subAgent: false,
    sessionId: null,
  });
  return [
    oauth("oauthViewer", "OAuth access token, scope write, viewer member", viewer, OAUTH_READ_SCOPES, true),
    oauth("oauthLeft", "OAuth access token of a user no longer a member", leaver, [], false),
    oauth("oauthExpired", "expired OAuth access token", expired, [], false),
  ];
}

let matrixPromise: Promise<Matrix> | null = null;
const matrix = () => (matrixPromise ??= (async () => {
  const m = await buildMatrix();
  return { ...m, credentials: [...m.credentials, ...await oauthExtras(m)] };
})());

interface Result {
  tool: string;
  label: string;
  cred: Credential;
  mcp: Cell;
  rest: Cell;
}

let resultsPromise: Promise<Result[]> | null = null;

/** Every case with every credential: the tool's cell and REST's cell. */
function results(): Promise<Result[]> {
  resultsPromise ??= (async () => {
    const m = await matrix();
    const out: Result[] = [];
    for (const cred of [...m.credentials, ...m.scopeKeys]) {
      const caller = { token: cred.token, headers: cred.headers };
      for (const k of CASES) {
        const t = tool(k.tool);
        const rest = await restCell(await plannedCalls(t, await k.args(m, cred, "rest")), caller);
        const outcome = await runAs(k.tool, await k.args(m, cred, "tool"), caller);
        if (k.tool === "svc_ticket_begin" && outcome.ok) {
          workSessions.set(cred.id, (outcome.data as { sessionId: string }).sessionId);
        }
        const mcp = cellOf(outcome);
        out.push({ tool: k.tool, label: k.label, cred, mcp, rest });
      }
      // Past the one-minute burst windows (per agent and per project) before the next column, as the
      // REST matrix does; the OAuth tokens (late in the list) stay inside their hour.
      await advanceClock(61_000);
    }
    return out;
  })();
  return resultsPromise;
}

test("MCP-020 matrix: every tool with every credential answers as its REST route answers that credential", async () => {
  const all = await results();
  const mismatches = all.filter((r) =>
    r.mcp.ok !== r.rest.ok || r.mcp.status !== r.rest.status || r.mcp.code !== r.rest.code
  ).map((r) =>
    `${r.tool} (${r.label}) as ${r.cred.label}: tool ${JSON.stringify(r.mcp)}, REST ${JSON.stringify(r.rest)}`
  );
  assert.deepEqual(mismatches, []);
  // Every tool was walked with every credential, and the walk saw both sides of the policy.
  const m = await matrix();
  const creds = m.credentials.length + m.scopeKeys.length;
  for (const t of TOOLS) {
    const cells = all.filter((r) => r.tool === t.name);
    assert.ok(cells.length >= creds, `${t.name}: ${cells.length} cells`);
    // svc_handoff's matrix input is refused after authentication, scope and role (not the caller's session).
    const passed = (r: Result) => r.mcp.ok || (t.name === "svc_handoff" && r.mcp.status === 400);
    assert.ok(cells.some(passed), `${t.name}: no credential got past authentication, scope and role`);
    assert.ok(cells.some((r) => r.mcp.status === 401), `${t.name}: no credential was refused`);
  }
});

test("MCP-020 matrix: dead credentials (revoked, expired, idle, archived, suspended, missing, malformed, OAuth expired or left) are 401 on every tool", async () => {
  const dead = (await results()).filter((r) => !r.cred.live);
  assert.ok(dead.length >= 9 * CASES.length);
  const wrong = dead.filter((r) => r.mcp.status !== 401 || r.mcp.code !== "UNAUTHORIZED")
    .map((r) => `${r.tool} as ${r.cred.label}: ${JSON.stringify(r.mcp)}`);
  assert.deepEqual(wrong, []);
});

test("MCP-020 MCP-021..035 matrix: OAuth read tokens (and a viewer's write token) read, and get 403 FORBIDDEN from every write tool", async () => {
  const cells = (await results()).filter((r) => ["oauthRead", "oauthViewer"].includes(r.cred.id));
  assert.equal(cells.length, 2 * CASES.length);
  for (const r of cells) {
    if (READ_TOOLS.includes(r.tool)) assert.ok(r.mcp.ok, `${r.tool}: ${JSON.stringify(r.mcp)}`);
    else assert.deepEqual([r.tool, r.mcp.status, r.mcp.code], [r.tool, 403, "FORBIDDEN"]);
  }
});

test("MCP-021..035 matrix: OAuth write token succeeds where its Needs column is met", async () => {
  const cells = (await results()).filter((r) => r.cred.id === "oauthWrite");
  const byTool = (name: string) => cells.filter((r) => r.tool === name);
  const succeeds = [
    ...READ_TOOLS,
    "svc_ticket_create",
    "svc_ticket_batch",
    "svc_ticket_begin",
    "svc_ticket_acknowledge",
    "svc_sprint_create",
    "svc_sprint_assign",
  ];
  for (const name of succeeds) {
    for (const r of byTool(name)) assert.ok(r.mcp.ok, `${name} (${r.label}): ${JSON.stringify(r.mcp)}`);
  }
  // MCP-029: write:ticket is there; changing a ticket the caller neither created nor holds is the route's
  // own refusal (only the assignee or an orchestrator), not a scope refusal.
  for (const r of byTool("svc_ticket_update")) {
    assert.ok(r.mcp.ok || !/scope/i.test(r.mcp.message ?? ""), JSON.stringify(r.mcp));
  }
  // MCP-033: the matrix brief has content, and an OAuth write token carries no write:brief.
  assert.deepEqual(byTool("svc_brief_update").map((r) => [r.mcp.status, r.mcp.code]), [[403, "FORBIDDEN"]]);
  // MCP-034: PROGRESS in the work session svc_ticket_begin opened.
  for (const r of byTool("svc_ledger_add")) assert.ok(r.mcp.ok, JSON.stringify(r.mcp));
  // MCP-035: scope and role pass; the matrix input is refused for its session (400), never 401 or 403.
  for (const r of byTool("svc_handoff")) assert.equal(r.mcp.status, 400, JSON.stringify(r.mcp));
});

test("MCP-028 MCP-035 MCP-059 matrix: svc_ticket_begin and svc_handoff refuse every live non-generator with 403", async () => {
  const cells = (await results()).filter((r) =>
    r.cred.live && r.cred.role !== "generator" && ["svc_ticket_begin", "svc_handoff"].includes(r.tool)
  );
  assert.ok(cells.length >= 6, "the matrix holds evaluators, observers and orchestrators");
  for (const r of cells) {
    assert.equal(r.mcp.status, 403, `${r.tool} as ${r.cred.label}: ${JSON.stringify(r.mcp)}`);
  }
});

test("THREAD-041 the tool server exposes no thread tools, and no tool calls a thread route", async () => {
  assert.equal(TOOLS.length, 15);
  assert.deepEqual(TOOLS.filter((t) => /thread/i.test(t.name)).map((t) => t.name), []);
  const m = await matrix();
  const cred = m.credentials.find((c) => c.id === "oauthWrite")!;
  for (const k of CASES) {
    const calls = await plannedCalls(tool(k.tool), await k.args(m, cred, "rest"));
    assert.ok(calls.length > 0, k.tool);
    assert.deepEqual(calls.filter((c) => c.path.startsWith("/thread")), [], k.tool);
  }
});

// ---- tenancy ----

interface Ids {
  ticketId: string;
  ticketKey: string;
  sprintId: string;
  sessionId: string;
  file: string;
}

/** One tenancy probe per tool (two where a tool takes an id in two places). */
function probes(ids: Ids, b: ProjectB): { tool: string; args: Record<string, unknown> }[] {
  return [
    { tool: "svc_status", args: {} },
    { tool: "svc_board", args: { sprintId: ids.sprintId } },
    { tool: "svc_tickets", args: { sprintId: ids.sprintId } },
    { tool: "svc_tickets", args: { q: ids.ticketKey } },
    { tool: "svc_ticket_get", args: { key: ids.ticketKey } },
    { tool: "svc_ticket_get", args: { id: ids.ticketId } },
    { tool: "svc_brief_get", args: {} },
    { tool: "svc_ticket_create", args: ticketArgs({ sprintId: ids.sprintId, expectedFiles: [ids.file] }) },
    { tool: "svc_ticket_batch", args: { tickets: [ticketArgs({ sprintId: ids.sprintId })] } },
    {
      tool: "svc_ticket_begin",
      args: { ticketId: ids.ticketId, files: [ids.file], acknowledgeCriteria: true },
    },
    { tool: "svc_ticket_update", args: { ticketId: ids.ticketKey, priority: "low" } },
    { tool: "svc_ticket_update", args: { ticketId: ids.ticketId, assignToSelf: true } },
    { tool: "svc_ticket_acknowledge", args: { ticketId: ids.ticketId } },
    { tool: "svc_sprint_create", args: { name: `B sprint ${unique()}` } },
    { tool: "svc_sprint_assign", args: { ticketId: ids.ticketId, sprintId: b.sprintId } },
    { tool: "svc_sprint_assign", args: { ticketId: b.ticketId, sprintId: ids.sprintId } },
    { tool: "svc_brief_update", args: { constraints: "B's own constraints" } },
    { tool: "svc_ledger_add", args: { type: "PROGRESS", content: "B probing", sessionId: ids.sessionId } },
    {
      tool: "svc_ledger_add",
      args: { type: "BLOCKED", content: "B probing", sessionId: ids.sessionId, ticketId: ids.ticketKey },
    },
    { tool: "svc_handoff", args: { moduleName: "b", summary: "B probing", sessionId: ids.sessionId } },
    {
      tool: "svc_handoff",
      args: { moduleName: "b", summary: "B probing", sessionId: ids.sessionId, ticketId: ids.ticketId },
    },
  ];
}

function unknownIds(a: ProjectA): Ids {
  return {
    ticketId: crypto.randomUUID(),
    ticketKey: `${a.prefix}-${900_000 + Math.floor(Math.random() * 9000)}`,
    sprintId: crypto.randomUUID(),
    sessionId: crypto.randomUUID(),
    file: `src/unknown-${unique()}.ts`,
  };
}

/** Project B's callers: its agents, key and sub-agents (tenancy fixtures) and two OAuth members. */
async function callersOf(b: ProjectB): Promise<{ label: string; caller: Caller }[]> {
  const { db } = await env();
  const { orgId } = await db.selectFrom("projects").select("org_id as orgId").where("id", "=", b.projectId)
    .executeTakeFirstOrThrow();
  const user = await admin("POST", "/users", {
    email: `mcp-b-${unique()}@example.com`,
    password: "correct horse battery staple",
    name: "B OAuth member",
  });
  await admin("POST", `/projects/${b.projectId}/members`, { userId: user.id, role: "member" });
  const ctx = await serviceCtx();
  const mint = async (scope: "read" | "write") =>
    (await issueAccessToken(ctx, { userId: user.id, projectId: b.projectId, orgId, scope, clientId: "b" }))
      .accessToken;
  return [
    ...b.actors.map((a) => ({ label: a.label, caller: { token: a.token, headers: a.headers } })),
    { label: "oauth-write", caller: { token: await mint("write") } },
    { label: "oauth-read", caller: { token: await mint("read") } },
  ];
}

test("ROLE-005 MCP tenancy: project B's callers reach nothing of project A through any tool", async () => {
  const a = await plantProjectA();
  const b = await projectB();
  const before = await snapshotProject(a.projectId);
  const foreign: Ids = {
    ticketId: a.ids.ticketId,
    ticketKey: a.ids.ticketKey,
    sprintId: a.ids.sprintId,
    sessionId: a.ids.sessionId,
    file: a.files[0]!,
  };
  const secrets = [a.canary, ...Object.values(a.ids), a.names.agent, a.names.orchestrator];
  const failures: string[] = [];
  let cells = 0;
  const walked = new Set<string>();
  for (const { label, caller } of await callersOf(b)) {
    const unknown = unknownIds(a);
    const mine = probes(foreign, b);
    const theirs = probes(unknown, b);
    for (let i = 0; i < mine.length; i++) {
      const probe = mine[i]!;
      const where = `${probe.tool} ${JSON.stringify(probe.args).slice(0, 80)} as B ${label}`;
      const got = await runAs(probe.tool, probe.args, caller);
      const sent = JSON.stringify(probe.args);
      const text = JSON.stringify(got);
      for (const secret of secrets) {
        if (text.includes(secret) && !sent.includes(secret)) {
          failures.push(`${where}: answer carries ${secret}`);
        }
      }
      const like = await runAs(theirs[i]!.tool, theirs[i]!.args, caller);
      const [x, y] = [cellOf(got), cellOf(like)];
      if (x.ok !== y.ok || x.status !== y.status || x.code !== y.code) {
        failures.push(`${where}: ${JSON.stringify(x)} where an unknown id gets ${JSON.stringify(y)}`);
      }
      cells++;
      walked.add(probe.tool);
    }
    await advanceClock(61_000);
  }
  assert.deepEqual(failures, []);
  assert.deepEqual([...walked].sort(), TOOLS.map((t) => t.name).sort(), "every tool probed");
  assert.ok(cells >= 9 * 21, `${cells} cells`);
  assert.deepEqual(await snapshotProject(a.projectId), before, "project A changed");
});
