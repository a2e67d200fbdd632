import assert from "node:assert/strict";
import { createForward } from "@/mcp/forward.ts";
import { boardColumns } from "@/mcp/tools/board.ts";
import { TOOLS } from "@/mcp/tools/index.ts";
import { createBody, EVIDENCE_KINDS } from "@/mcp/tools/tickets-write.ts";
import type { RestCall } from "@/mcp/types.ts";
import { admin, advanceClock, call, env, test } from "../helpers/mod.ts";
import { insertTicket } from "../helpers/fixtures.ts";
import { snapshotProject } from "../security/tenancy-fixtures.ts";
import { member, memberWithBrief, ok, runTool, ticketArgs } from "./helpers.ts";

/**
 * One test per tool-side MCP rule, named by it: parameters, defaults, result shapes and the REST calls
 * behind them (rules.md, "Tool server (MCP)"). Transport and gate rules (MCP-002, MCP-003, MCP-007,
 * MCP-008, MCP-016) belong to the server's tests.
 */

const tool = (name: string) => TOOLS.find((t) => t.name === name)!;
const keysOf = (name: string) => Object.keys(tool(name).input.shape).sort();

/** Runs a tool against a recording forward that answers every call with `reply` (no service). */
async function dryRun(
  name: string,
  args: Record<string, unknown>,
  reply: unknown = { data: {} },
  status = 200,
) {
  const calls: RestCall[] = [];
  const t = tool(name);
  const outcome = await t.run(t.input.parse(args) as never, (c) => {
    calls.push(c);
    return Promise.resolve({ status, body: reply });
  });
  return { calls, outcome };
}

test("MCP-009 a tool that does not reshape returns the REST data exactly; svc_tickets its results array", async () => {
  const m = await memberWithBrief();
  const t = await insertTicket(m.projectId, { title: "Payment checkout flow" });
  const rest = await call("GET", `/ticket?key=${t.key}&include=ledger`, { token: m.token });
  assert.equal(rest.status, 200, rest.text);
  assert.deepEqual(await ok("svc_ticket_get", { key: t.key }, m.token), rest.body.data);
  const search = await call("GET", "/search?q=payment&limit=20", { token: m.token });
  assert.deepEqual(await ok("svc_tickets", { q: "payment" }, m.token), search.body.data.results);
  const sprints = await call("GET", "/sprint", { token: m.token });
  assert.deepEqual((await ok("svc_board", {}, m.token)).sprints, sprints.body.data);
});

test("MCP-013 UPSTREAM_TIMEOUT on a write says it may or may not have been applied; on a read, retry", async () => {
  const never = () => new Promise<Response>(() => {});
  const forward = createForward({ bearer: "t", fetch: never, origin: "http://x", timeoutMs: 30 });
  const write = await forward({ method: "POST", path: "/ledger", body: {} }).catch((e) => e);
  assert.equal(write.code, "UPSTREAM_TIMEOUT");
  assert.equal(write.status, 504);
  assert.match(write.message, /may or may not have been applied/);
  const read = await forward({ method: "GET", path: "/board" }).catch((e) => e);
  assert.equal(read.code, "UPSTREAM_TIMEOUT");
  assert.doesNotMatch(read.message, /may or may not have been applied/);
  assert.match(read.message, /retry/);
});

test("MCP-019 (design) projectSetup appears in the svc_status result only, never in other tools' results", async () => {
  const m = await member();
  assert.equal((await ok("svc_status", {}, m.token)).projectSetup.needed, true);
  for (const name of ["svc_brief_get", "svc_board", "svc_tickets"]) {
    const data = await ok(name, {}, m.token);
    assert.ok(!JSON.stringify(data).includes("projectSetup"), name);
  }
  assert.match(tool("svc_status").description, /projectSetup/);
});

test("MCP-032 svc_sprint_assign wraps POST /sprint/assign and needs write:sprint", async () => {
  const m = await memberWithBrief();
  const t = await insertTicket(m.projectId);
  const sprint = await ok("svc_sprint_create", { name: "S" }, m.token);
  const args = { ticketId: t.id, sprintId: sprint.id };
  const { calls } = await dryRun("svc_sprint_assign", args);
  assert.deepEqual(calls, [{ method: "POST", path: "/sprint/assign", body: args }]);
  const key = async (scopes: string[]) =>
    (await admin("POST", `/projects/${m.projectId}/api-keys`, {
      name: `k-${crypto.randomUUID().slice(0, 6)}`,
      agentName: `k-${crypto.randomUUID().slice(0, 6)}`,
      role: "generator",
      scopes,
    })).key as string;
  const without = await runTool("svc_sprint_assign", args, await key(["write:ticket", "read:board"]));
  assert.deepEqual([without.status, without.error?.code], [403, "FORBIDDEN"]);
  const withScope = await runTool("svc_sprint_assign", args, await key(["write:sprint"]));
  assert.ok(withScope.outcome.ok, JSON.stringify(withScope.error));
  assert.equal(withScope.data.action, "assigned");
});

test("MCP-036 svc_status takes no parameters: anything sent is dropped, the call is compact context", async () => {
  assert.deepEqual(keysOf("svc_status"), []);
  const { calls } = await dryRun(
    "svc_status",
    { compact: false, ledger_limit: 99, token: "x" },
    { error: { code: "X", message: "x" } },
    400,
  );
  assert.deepEqual(calls, [{ method: "GET", path: "/context", query: { compact: "true" } }]);
  const m = await memberWithBrief();
  const data = await ok("svc_status", {}, m.token);
  const rest = await call("GET", "/context?compact=true", {
    token: m.token,
    headers: { "X-Svc-Platform": "oauth" },
  });
  assert.deepEqual(Object.keys(data).sort(), Object.keys(rest.body.data).sort());
});

test("MCP-038 svc_board returns { board { columns, total, returned, hasMore, nextCursor }, sprints }", async () => {
  const m = await memberWithBrief();
  await insertTicket(m.projectId);
  await insertTicket(m.projectId, { status: "in_progress" });
  const data = await ok("svc_board", {}, m.token);
  assert.deepEqual(Object.keys(data).sort(), ["board", "sprints"]);
  assert.deepEqual(Object.keys(data.board).sort(), ["columns", "hasMore", "nextCursor", "returned", "total"]);
  assert.ok(Array.isArray(data.sprints));
  for (const [status, column] of Object.entries<Record<string, unknown>>(data.board.columns)) {
    const keys = Object.keys(column).sort();
    assert.ok(["count,tickets", "count,more,tickets"].includes(keys.join(",")), `${status}: ${keys}`);
    assert.equal(typeof column.count, "number");
    assert.ok(Array.isArray(column.tickets));
  }
  assert.equal(data.board.columns.backlog.count, 1);
  assert.equal(data.board.columns.in_progress.count, 1);
});

test("MCP-039 svc_board shows at most 10 per column; more only when the column holds more", () => {
  const row = (i: number, status: string) => ({
    id: crypto.randomUUID(),
    ticketRef: `P-${i}`,
    title: `T${i}`,
    status,
    type: null,
    priority: "normal",
    riskClass: null,
    assignee: null,
    sprintId: null,
    criteriaCount: 0,
    expectedFiles: [],
    nextAction: null,
  });
  const tickets = [
    ...Array.from({ length: 10 }, (_, i) => row(i, "backlog")),
    ...Array.from({ length: 11 }, (_, i) => row(100 + i, "in_progress")),
    ...Array.from({ length: 3 }, (_, i) => row(200 + i, "review")),
  ];
  const board = boardColumns({
    columns: ["backlog", "in_progress", "review", "done"],
    tickets,
    statusCounts: { backlog: 10, in_progress: 11, review: 7, done: 0 },
    total: 28,
    returned: 24,
    hasMore: true,
    nextCursor: "c",
  } as never);
  assert.deepEqual(
    Object.fromEntries(
      Object.entries(board.columns).map(([s, c]) => [s, [c.count, c.tickets.length, c.more ?? false]]),
    ),
    {
      backlog: [10, 10, false],
      in_progress: [11, 10, true],
      // Fewer shown than the column holds across pages: more, though under 10.
      review: [7, 3, true],
      done: [0, 0, false],
    },
  );
});

test("MCP-042 svc_tickets returns an array on both paths, also when nothing matches", async () => {
  const m = await memberWithBrief();
  for (const args of [{}, { q: "nothing-here" }, { status: "done" }]) {
    const data = await ok("svc_tickets", args, m.token);
    assert.ok(Array.isArray(data), JSON.stringify(args));
    assert.equal(data.length, 0);
  }
  await insertTicket(m.projectId, { title: "Some ticket" });
  const listed = await ok("svc_tickets", {}, m.token);
  assert.ok(Array.isArray(listed) && listed.length === 1);
});

test("MCP-043 svc_ticket_get takes key, id, includeLedger (default true), includeComments (default false)", () => {
  assert.deepEqual(keysOf("svc_ticket_get"), ["id", "includeComments", "includeLedger", "key"]);
  const parsed = tool("svc_ticket_get").input.parse({ key: "P-1" }) as Record<string, unknown>;
  assert.equal(parsed.includeLedger, true);
  assert.equal(parsed.includeComments, false);
  assert.equal(tool("svc_ticket_get").input.safeParse({ id: "P-1" }).success, false, "id is a UUID");
});

test("MCP-047 svc_brief_get returns briefUpdatedAt null also after the brief was written twice", async () => {
  const m = await member();
  await ok("svc_brief_update", { scope: "First" }, m.token);
  // A second write by an agent holding write:brief (an unrestricted API key of the project).
  const key = await admin("POST", `/projects/${m.projectId}/api-keys`, { agentName: "brief-writer" });
  const patched = await call("PATCH", "/brief", { token: key.key, body: { goals: "Second" } });
  assert.equal(patched.status, 200, patched.text);
  const data = await ok("svc_brief_get", {}, m.token);
  assert.equal(data.briefVersion, 2);
  assert.ok("briefUpdatedAt" in data);
  assert.equal(data.briefUpdatedAt, null);
});

test("MCP-048 svc_brief_get omits brief when the project has none, also after blank writes", async () => {
  const m = await member();
  const none = await ok("svc_brief_get", {}, m.token);
  assert.ok(!("brief" in none));
  await ok("svc_brief_update", { scope: "", goals: "   " }, m.token);
  const blank = await ok("svc_brief_get", {}, m.token);
  assert.ok(!("brief" in blank));
  assert.equal(blank.briefVersion, 1);
});

test("MCP-051 each svc_ticket_create criterion is { title, description?, evidence } with five evidence kinds", () => {
  const input = tool("svc_ticket_create").input;
  const withCriterion = (c: unknown) => input.safeParse(ticketArgs({ acceptanceCriteria: [c] })).success;
  for (const evidence of ["ledger", "pr", "screenshot", "log", "none"]) {
    assert.equal(withCriterion({ title: "t", evidence }), true, evidence);
  }
  assert.equal(withCriterion({ title: "t" }), false, "evidence is required");
  assert.equal(withCriterion({ title: "t", evidence: "video" }), false);
  assert.equal(withCriterion({ evidence: "pr" }), false, "title is required");
  assert.equal(withCriterion({ title: "t", description: "d", evidence: "pr" }), true);
  assert.deepEqual([...EVIDENCE_KINDS], ["ledger", "pr", "screenshot", "log", "none"]);
  // A requiresEvidence sent alongside is not the tool's parameter: evidence alone decides.
  const parsed = input.parse(ticketArgs({
    acceptanceCriteria: [{ title: "t", evidence: "none", requiresEvidence: true }],
  })) as Parameters<typeof createBody>[0];
  const body = createBody(parsed) as { acceptanceCriteria: { requiresEvidence: boolean }[] };
  assert.equal(body.acceptanceCriteria[0]!.requiresEvidence, false);
});

test("MCP-052 (design) evidence other than none means requiresEvidence true; the kind is kept", () => {
  const input = tool("svc_ticket_create").input;
  for (const evidence of EVIDENCE_KINDS) {
    const parsed = input.parse(ticketArgs({ acceptanceCriteria: [{ title: "t", evidence }] }));
    const body = createBody(parsed as Parameters<typeof createBody>[0]) as {
      acceptanceCriteria: Record<string, unknown>[];
    };
    assert.deepEqual(body.acceptanceCriteria[0], {
      title: "t",
      requiresEvidence: evidence !== "none",
      evidence,
    });
  }
  assert.match(tool("svc_ticket_create").description, /every value but none sets requiresEvidence true/);
});

test("MCP-053 svc_ticket_batch takes { tickets } with 1 to 25 items, each sent as a POST /ticket body", async () => {
  const input = tool("svc_ticket_batch").input;
  assert.deepEqual(keysOf("svc_ticket_batch"), ["tickets"]);
  const rows = (n: number) => Array.from({ length: n }, (_, i) => ticketArgs({ title: `Row ${i}` }));
  assert.equal(input.safeParse({ tickets: [] }).success, false);
  assert.equal(input.safeParse({ tickets: rows(26) }).success, false);
  assert.equal(input.safeParse({ tickets: rows(25) }).success, true);
  assert.equal(input.safeParse({ tickets: [{ title: "only a title" }] }).success, false, "rows as create");
  const { calls } = await dryRun("svc_ticket_batch", { tickets: rows(2) });
  assert.equal(calls.length, 1);
  assert.deepEqual([calls[0]!.method, calls[0]!.path], ["POST", "/ticket/batch"]);
  const sent = (calls[0]!.body as { tickets: Record<string, unknown>[] }).tickets;
  assert.deepEqual(sent.map((r) => r.title), ["Row 0", "Row 1"]);
  assert.deepEqual(sent[0]!.acceptanceCriteria, [{
    title: "Invalid emails show an inline error",
    requiresEvidence: true,
    evidence: "pr",
  }]);
});

test("MCP-055 svc_ticket_begin sends acknowledgeCriteria only when it is true", async () => {
  const base = { ticketId: crypto.randomUUID(), files: ["src/a.ts"] };
  const sent = async (extra: Record<string, unknown>) =>
    (await dryRun("svc_ticket_begin", { ...base, ...extra })).calls[0]!.body as Record<string, unknown>;
  assert.deepEqual(await sent({}), base);
  assert.deepEqual(await sent({ acknowledgeCriteria: false }), base);
  assert.deepEqual(await sent({ acknowledgeCriteria: true }), { ...base, acknowledgeCriteria: true });
});

test("MCP-056 svc_ticket_begin with unacknowledged criteria in strict mode fails with them and a nextStep", async () => {
  const m = await memberWithBrief();
  const { db } = await env();
  await db.updateTable("projects").set({ review_mode: "strict" }).where("id", "=", m.projectId).execute();
  const t = await insertTicket(m.projectId, {
    criteria: [{ title: "First", requiresEvidence: true }, { title: "Second", requiresEvidence: false }],
    expectedFiles: ["src/s.ts"],
  });
  const args = { ticketId: t.id, files: ["src/s.ts"] };
  const failed = await runTool("svc_ticket_begin", args, m.token);
  assert.equal(failed.outcome.ok, false);
  const titles = failed.error.details.acceptanceCriteria.map((c: { title: string }) => c.title);
  assert.deepEqual(titles, ["First", "Second"]);
  assert.equal(failed.error.details.nextStep.tool, "svc_ticket_begin");
  assert.deepEqual(failed.error.details.nextStep.payload, { ...args, acknowledgeCriteria: true });
  const retried = await ok("svc_ticket_begin", failed.error.details.nextStep.payload, m.token);
  assert.equal(retried.ticket.status, "in_progress");
});

test("MCP-060 svc_ticket_update sends only its six fields (others never reach REST)", async () => {
  assert.deepEqual(keysOf("svc_ticket_update"), [
    "assignToSelf",
    "priority",
    "reviewHandoff",
    "status",
    "ticketId",
    "unassign",
  ]);
  const { calls } = await dryRun("svc_ticket_update", {
    ticketId: "P-1",
    status: "done",
    action: "approve",
    title: "Renamed",
    reviewerAgentId: crypto.randomUUID(),
  });
  assert.deepEqual(calls, [{ method: "PATCH", path: "/ticket", body: { ticketId: "P-1", status: "done" } }]);
  assert.equal(
    tool("svc_ticket_update").input.safeParse({ status: "done" }).success,
    false,
    "ticketId required",
  );
});

test("MCP-061 svc_ticket_acknowledge: ticketId and additionalCriteria, marked manual, idempotent", async () => {
  assert.deepEqual(keysOf("svc_ticket_acknowledge"), ["additionalCriteria", "ticketId"]);
  const m = await memberWithBrief();
  const t = await insertTicket(m.projectId);
  const args = { ticketId: t.id, additionalCriteria: [{ title: "Has a test", description: "unit" }] };
  const first = await ok("svc_ticket_acknowledge", args, m.token);
  assert.equal(first.added, 1);
  const ticket = await ok("svc_ticket_get", { id: t.id }, m.token);
  assert.equal(ticket.acceptanceCriteria[0].source, "manual");
  assert.equal(ticket.acceptanceCriteria[0].requiresEvidence, false, "requiresEvidence defaults to false");
  const again = await ok("svc_ticket_acknowledge", args, m.token);
  assert.deepEqual([again.added, again.alreadyAcknowledged], [0, true]);
  const after = await ok("svc_ticket_get", { id: t.id }, m.token);
  assert.equal(after.acceptanceCriteria.length, 1, "a repeat changes nothing");
  assert.equal(tool("svc_ticket_acknowledge").annotations.idempotentHint, true);
});

test("MCP-062 svc_sprint_create takes name, goal, startDate, endDate, capacityPoints", async () => {
  assert.deepEqual(keysOf("svc_sprint_create"), ["capacityPoints", "endDate", "goal", "name", "startDate"]);
  const m = await memberWithBrief();
  const { calls, outcome } = await dryRun("svc_sprint_create", { name: "S", capacityPoints: 5, extra: 1 }, {
    data: { id: "x" },
  });
  assert.deepEqual(calls, [{ method: "POST", path: "/sprint", body: { name: "S", capacityPoints: 5 } }]);
  assert.ok(outcome.ok);
  const sprint = await ok("svc_sprint_create", { goal: "Ship", startDate: "2026-03-01" }, m.token);
  assert.match(sprint.name, /^Sprint \d+$/, "name defaults to Sprint N");
  const backwards = await runTool(
    "svc_sprint_create",
    { name: "B", startDate: "2026-03-10", endDate: "2026-03-01" },
    m.token,
  );
  assert.equal(backwards.outcome.ok, false, "REST refuses an end before the start");
  assert.equal(tool("svc_sprint_create").input.safeParse({ capacityPoints: 10_000 }).success, false);
});

test("MCP-063 svc_sprint_assign: key or UUID, null unassigns, idempotencyKey replays within 60 seconds", async () => {
  const input = tool("svc_sprint_assign").input;
  assert.deepEqual(keysOf("svc_sprint_assign"), ["idempotencyKey", "sprintId", "ticketId"]);
  assert.equal(input.safeParse({ ticketId: "not a ref", sprintId: null }).success, false);
  assert.equal(input.safeParse({ ticketId: "AB-12", sprintId: "not-a-uuid" }).success, false);
  assert.equal(
    input.safeParse({ ticketId: "AB-12", sprintId: null, idempotencyKey: "k".repeat(120) }).success,
    true,
  );
  assert.equal(tool("svc_sprint_assign").annotations.idempotentHint, true);
  const m = await memberWithBrief();
  const t = await insertTicket(m.projectId);
  const sprint = await ok("svc_sprint_create", { name: "S" }, m.token);
  const key = `k-${crypto.randomUUID()}`;
  const first = await ok(
    "svc_sprint_assign",
    { ticketId: t.key, sprintId: sprint.id, idempotencyKey: key },
    m.token,
  );
  assert.equal(first.action, "assigned");
  await ok("svc_sprint_assign", { ticketId: t.id, sprintId: null }, m.token);
  // Within the window the key replays the first answer and changes nothing.
  const replay = await ok(
    "svc_sprint_assign",
    { ticketId: t.key, sprintId: sprint.id, idempotencyKey: key },
    m.token,
  );
  assert.deepEqual(replay, first);
  assert.equal((await ok("svc_ticket_get", { id: t.id }, m.token)).sprintId, null);
  // After 60 seconds the same key is a new request.
  await advanceClock(61_000);
  const later = await ok(
    "svc_sprint_assign",
    { ticketId: t.key, sprintId: sprint.id, idempotencyKey: key },
    m.token,
  );
  assert.equal(later.action, "assigned");
  assert.equal((await ok("svc_ticket_get", { id: t.id }, m.token)).sprintId, sprint.id);
});

test("MCP-065 svc_brief_update returns exactly { version, patchedFields }", async () => {
  const m = await member();
  const data = await ok(
    "svc_brief_update",
    { stack: "Deno", constraints: "No JSR", context: "Greenfield" },
    m.token,
  );
  assert.deepEqual(Object.keys(data).sort(), ["patchedFields", "version"]);
  assert.equal(data.version, 1);
  assert.deepEqual([...data.patchedFields].sort(), ["constraints", "context", "stack"]);
});

/** A member with a begun ticket and its work session. */
async function begun() {
  const m = await memberWithBrief();
  const t = await insertTicket(m.projectId, {
    criteria: [{ title: "c", requiresEvidence: false }],
    acknowledged: true,
    expectedFiles: ["src/r.ts"],
  });
  const data = await ok("svc_ticket_begin", { ticketId: t.id, files: ["src/r.ts"] }, m.token);
  return { m, t, sessionId: data.sessionId as string };
}

test("MCP-066 svc_ledger_add: five types (DECISION refused by REST), content up to 2000, sessionId required", async () => {
  const input = tool("svc_ledger_add").input;
  const sessionId = crypto.randomUUID();
  assert.deepEqual(input.shape.type.options, ["PROGRESS", "DECISION", "TESTED", "BLOCKED", "ALERT"]);
  for (const type of ["DONE", "STATUS", "HANDOFF", "AGENT_COMPLETED", "progress"]) {
    assert.equal(input.safeParse({ type, content: "x", sessionId }).success, false, type);
  }
  assert.equal(input.safeParse({ type: "TESTED", content: "x".repeat(2000), sessionId }).success, true);
  assert.equal(input.safeParse({ type: "TESTED", content: "", sessionId }).success, false);
  const { m, t, sessionId: own } = await begun();
  for (const type of ["PROGRESS", "TESTED", "ALERT"]) {
    const data = await ok("svc_ledger_add", { type, content: `${type} entry`, sessionId: own }, m.token);
    assert.equal(typeof data.id, "string", type);
  }
  await ok(
    "svc_ledger_add",
    { type: "BLOCKED", content: "Waiting on keys", sessionId: own, ticketId: t.key },
    m.token,
  );
  assert.equal((await ok("svc_ticket_get", { id: t.id }, m.token)).status, "blocked");
});

test("MCP-069 svc_ledger_add cannot send a critical alert: an ALERT is stored without critical severity", async () => {
  const { m, sessionId } = await begun();
  const run = await runTool(
    "svc_ledger_add",
    {
      type: "ALERT",
      content: "Disk almost full",
      sessionId,
      severity: "critical",
      payload: { severity: "critical" },
    },
    m.token,
  );
  assert.ok(run.outcome.ok, JSON.stringify(run.error));
  assert.deepEqual(Object.keys(run.calls[0]!.body as object).sort(), ["content", "sessionId", "type"]);
  const { db } = await env();
  const row = await db.selectFrom("ledger_entries").select(["severity"]).where("id", "=", run.data.id)
    .executeTakeFirstOrThrow();
  assert.notEqual(row.severity, "critical");
});

test("MCP-070 svc_handoff requires moduleName, summary, sessionId; optional ticketId, testResults, diffStat, toolResults, artifacts", async () => {
  assert.deepEqual(keysOf("svc_handoff"), [
    "artifacts",
    "diffStat",
    "moduleName",
    "sessionId",
    "summary",
    "testResults",
    "ticketId",
    "toolResults",
  ]);
  const input = tool("svc_handoff").input;
  const sessionId = crypto.randomUUID();
  const base = { moduleName: "m", summary: "s", sessionId };
  assert.equal(input.safeParse(base).success, true);
  for (const missing of ["moduleName", "summary", "sessionId"]) {
    const args: Record<string, unknown> = { ...base };
    delete args[missing];
    assert.equal(input.safeParse(args).success, false, missing);
  }
  assert.equal(input.safeParse({ ...base, summary: "x".repeat(2001) }).success, false);
  assert.equal(input.safeParse({ ...base, summary: "x".repeat(2000) }).success, true);
  assert.equal(input.safeParse({ ...base, diffStat: "x".repeat(501) }).success, false);
  assert.equal(input.safeParse({ ...base, testResults: "x".repeat(500) }).success, true);
  // Without a ticket: the session closes, nothing moves.
  const { m, t, sessionId: own } = await begun();
  await ok("svc_ledger_add", { type: "PROGRESS", content: "Worked", sessionId: own }, m.token);
  const data = await ok("svc_handoff", {
    moduleName: "r",
    summary: "Closing without a ticket",
    sessionId: own,
    toolResults: [{ tool: "deno test", output: "ok | 3 passed" }],
  }, m.token);
  assert.equal(data.ok, true);
  assert.equal((await ok("svc_ticket_get", { id: t.id }, m.token)).status, "in_progress");
});

test("MCP-071 svc_handoff artifacts are { type, url, ref?, title? }, a valid URL, at most 10", async () => {
  const input = tool("svc_handoff").input;
  const base = { moduleName: "m", summary: "s", sessionId: crypto.randomUUID() };
  const ok1 = (artifacts: unknown) => input.safeParse({ ...base, artifacts }).success;
  for (const type of ["pull_request", "branch", "commit", "deploy"]) {
    assert.equal(ok1([{ type, url: "https://git.example.com/x" }]), true, type);
  }
  assert.equal(ok1([{ type: "screenshot", url: "https://x.example" }]), false);
  assert.equal(ok1([{ type: "commit", url: "not a url" }]), false);
  assert.equal(ok1([{ type: "commit" }]), false, "url required");
  const ten = Array.from({ length: 10 }, (_, i) => ({ type: "commit", url: `https://x.example/${i}` }));
  assert.equal(ok1(ten), true);
  assert.equal(ok1([...ten, ten[0]]), false);
  // metadata (a REST artifact field) is not the tool's: it never reaches REST.
  const { calls } = await dryRun("svc_handoff", {
    ...base,
    artifacts: [{ type: "commit", url: "https://x.example/c", ref: "abc", title: "T", metadata: { a: 1 } }],
  });
  assert.deepEqual((calls[0]!.body as { artifacts: unknown[] }).artifacts, [
    { type: "commit", url: "https://x.example/c", ref: "abc", title: "T" },
  ]);
});

test("MCP-009 every tool with an object result declares an output schema (structuredContent); svc_tickets, an array, none", () => {
  for (const t of TOOLS) {
    if (t.name === "svc_tickets") assert.equal(t.output, undefined);
    else assert.ok(t.output, `${t.name} has no output schema`);
  }
});

/** The project's work state (not counters, tokens or last-seen times, which every call touches). */
async function workState(projectId: string) {
  const all = await snapshotProject(projectId);
  const keep = [
    "tickets",
    "sprints",
    "claims",
    "claim_files",
    "threads",
    "ledger_entries",
    "brief_versions",
    "notifications",
    "ticket_comments",
    "ticket_artifacts",
    "qa_runs",
    "qa_tests",
  ];
  return Object.fromEntries(keep.map((k) => [k, all[k]]));
}

test("MCP annotations hold in behaviour: read-only tools change no work state; idempotent ones change nothing on a repeat", async () => {
  const { m, t, sessionId } = await begun();
  const other = await insertTicket(m.projectId, { title: "Other" });
  const sprint = await ok("svc_sprint_create", { name: "S" }, m.token);
  const before = await workState(m.projectId);
  const reads: [string, Record<string, unknown>][] = [
    ["svc_board", {}],
    ["svc_tickets", {}],
    ["svc_tickets", { q: "Other" }],
    ["svc_ticket_get", { id: t.id, includeComments: true }],
    ["svc_brief_get", {}],
  ];
  for (const [name, args] of reads) {
    assert.equal(tool(name).annotations.readOnlyHint, true, name);
    await ok(name, args, m.token);
    assert.deepEqual(await workState(m.projectId), before, `${name} changed the work state`);
  }
  await ok("svc_ledger_add", { type: "PROGRESS", content: "Worked", sessionId }, m.token);
  const repeats: [string, Record<string, unknown>][] = [
    ["svc_status", {}],
    ["svc_ticket_acknowledge", { ticketId: other.id, additionalCriteria: [{ title: "Checked" }] }],
    ["svc_sprint_assign", { ticketId: other.key, sprintId: sprint.id }],
    ["svc_handoff", { moduleName: "w", summary: "Done", sessionId, ticketId: t.id }],
  ];
  for (const [name, args] of repeats) {
    assert.equal(tool(name).annotations.idempotentHint, true, name);
    await ok(name, args, m.token);
    const once = await workState(m.projectId);
    await ok(name, args, m.token);
    assert.deepEqual(await workState(m.projectId), once, `a repeat of ${name} changed the work state`);
  }
  // And the additive ones are not idempotent: a repeat adds again.
  for (const name of ["svc_sprint_create", "svc_ticket_create"]) {
    assert.equal(tool(name).annotations.idempotentHint, false, name);
  }
  const args = ticketArgs({ title: "Twice" });
  const first = await ok("svc_ticket_create", args, m.token);
  const second = await ok("svc_ticket_create", args, m.token);
  assert.notEqual(first.id, second.id);
});
