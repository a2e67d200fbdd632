import assert from "node:assert/strict";
import { TOOLS } from "@/mcp/tools/index.ts";
import { call, env, pairAgent, test } from "../helpers/mod.ts";
import { insertTicket } from "../helpers/fixtures.ts";
import { member, memberWithBrief, ok, runTool, ticketArgs } from "./helpers.ts";

const tool = (name: string) => TOOLS.find((t) => t.name === name)!;

test("MCP-026 MCP-049 MCP-051 MCP-052 svc_ticket_create maps evidence to requiresEvidence and keeps the kind", async () => {
  const m = await memberWithBrief();
  const run = await runTool(
    "svc_ticket_create",
    ticketArgs({
      acceptanceCriteria: [
        { title: "Shows an inline error", description: "On blur", evidence: "screenshot" },
        { title: "Code is tidy", evidence: "none" },
        { title: "Logged", evidence: "ledger" },
      ],
      tags: ["auth"],
    }),
    m.token,
  );
  assert.ok(run.outcome.ok, JSON.stringify(run.error));
  assert.deepEqual(run.calls.map((c) => `${c.method} ${c.path}`), ["POST /ticket"]);
  const sent = run.calls[0]!.body as { acceptanceCriteria: unknown[] };
  assert.deepEqual(sent.acceptanceCriteria, [
    {
      title: "Shows an inline error",
      description: "On blur",
      requiresEvidence: true,
      evidence: "screenshot",
    },
    { title: "Code is tidy", requiresEvidence: false, evidence: "none" },
    { title: "Logged", requiresEvidence: true, evidence: "ledger" },
  ]);
  assert.equal(run.data.title, "Add login form validation");
  assert.equal(run.data.type, "feature");
  const stored = run.data.acceptanceCriteria as { requiresEvidence: boolean; evidence: string }[];
  assert.deepEqual(stored.map((c) => [c.requiresEvidence, c.evidence]), [
    [true, "screenshot"],
    [false, "none"],
    [true, "ledger"],
  ]);
  assert.ok(run.data.nextAction);
});

test("MCP-049 svc_ticket_create requires every spec field; title at most 100 (REST allows 200)", () => {
  const input = tool("svc_ticket_create").input;
  assert.equal(input.safeParse(ticketArgs()).success, true);
  for (
    const field of [
      "title",
      "type",
      "description",
      "riskClass",
      "expectedFiles",
      "acceptanceCriteria",
      "doneDefinition",
      "verificationCommand",
    ]
  ) {
    const args = ticketArgs();
    delete args[field];
    assert.equal(input.safeParse(args).success, false, `${field} must be required`);
  }
  assert.equal(input.safeParse(ticketArgs({ title: "x".repeat(100) })).success, true);
  assert.equal(input.safeParse(ticketArgs({ title: "x".repeat(101) })).success, false);
  assert.equal(input.safeParse(ticketArgs({ description: "x".repeat(2001) })).success, false);
  assert.equal(input.safeParse(ticketArgs({ expectedFiles: [] })).success, false);
  assert.equal(input.safeParse(ticketArgs({ acceptanceCriteria: [] })).success, false);
  assert.equal(input.safeParse(ticketArgs({ sprintId: crypto.randomUUID(), tags: ["a"] })).success, true);
});

test("MCP-050 MCP-051 svc_ticket_create type and evidence are closed lists", () => {
  const input = tool("svc_ticket_create").input;
  for (const type of ["feature", "bug", "chore", "refactor", "spike", "docs"]) {
    assert.equal(input.safeParse(ticketArgs({ type })).success, true, type);
  }
  assert.equal(input.safeParse(ticketArgs({ type: "epic" })).success, false);
  for (const evidence of ["ledger", "pr", "screenshot", "log", "none"]) {
    const args = ticketArgs({ acceptanceCriteria: [{ title: "t", evidence }] });
    assert.equal(input.safeParse(args).success, true, evidence);
  }
  assert.equal(
    input.safeParse(ticketArgs({ acceptanceCriteria: [{ title: "t", evidence: "video" }] })).success,
    false,
  );
  assert.equal(input.safeParse(ticketArgs({ acceptanceCriteria: [{ title: "t" }] })).success, false);
});

test("svc_ticket_create on a project without a brief relays 422 BRIEF_REQUIRED", async () => {
  const m = await member();
  const run = await runTool("svc_ticket_create", ticketArgs(), m.token);
  assert.equal(run.status, 422);
  assert.equal(run.error.code, "BRIEF_REQUIRED");
  assert.equal(run.error.details.recovery.action, "WRITE_PROJECT_BRIEF");
});

test("MCP-027 MCP-053 svc_ticket_batch creates 1 to 25 rows; a failing row is listed in errors", async () => {
  const m = await memberWithBrief();
  const input = tool("svc_ticket_batch").input;
  assert.equal(input.safeParse({ tickets: [] }).success, false);
  assert.equal(input.safeParse({ tickets: Array.from({ length: 26 }, () => ticketArgs()) }).success, false);
  assert.equal(input.safeParse({ tickets: Array.from({ length: 25 }, () => ticketArgs()) }).success, true);
  const run = await runTool("svc_ticket_batch", {
    tickets: [ticketArgs({ title: "One" }), ticketArgs({ title: "Two", sprintId: crypto.randomUUID() })],
  }, m.token);
  assert.ok(run.outcome.ok, JSON.stringify(run.error));
  assert.equal(run.data.total, 2);
  assert.equal(run.data.created.length, 1);
  assert.equal(run.data.errors.length, 1);
  assert.equal(run.data.errors[0].index, 1);
  assert.equal(run.data.errors[0].status, 404);
  const sent = run.calls[0]!.body as { tickets: { acceptanceCriteria: { requiresEvidence: boolean }[] }[] };
  assert.equal(sent.tickets[0]!.acceptanceCriteria[0]!.requiresEvidence, true);
});

test("MCP-054 svc_ticket_begin takes a UUID only (no key) and 1 to 20 files", () => {
  const input = tool("svc_ticket_begin").input;
  const id = crypto.randomUUID();
  assert.equal(input.safeParse({ ticketId: id, files: ["a.ts"] }).success, true);
  assert.equal(input.safeParse({ ticketId: "PA-1", files: ["a.ts"] }).success, false);
  assert.equal(input.safeParse({ ticketId: id, files: [] }).success, false);
  const files = Array.from({ length: 21 }, (_, i) => `f${i}.ts`);
  assert.equal(input.safeParse({ ticketId: id, files }).success, false);
  assert.equal(input.safeParse({ ticketId: id, files: files.slice(0, 20) }).success, true);
});

test("MCP-028 MCP-056 MCP-055 svc_ticket_begin: unacknowledged criteria fail with them and a nextStep; retry succeeds", async () => {
  const m = await memberWithBrief();
  const criteria = [{ title: "Works", requiresEvidence: false }];
  const t = await insertTicket(m.projectId, { criteria, expectedFiles: ["src/a.ts"] });
  const failed = await runTool("svc_ticket_begin", { ticketId: t.id, files: ["src/a.ts"] }, m.token);
  assert.equal(failed.outcome.ok, false);
  assert.equal(failed.status, 400);
  assert.equal(failed.error.code, "VALIDATION_ERROR");
  assert.deepEqual(failed.error.details.acceptanceCriteria.map((c: { title: string }) => c.title), ["Works"]);
  assert.equal(failed.error.details.nextStep.tool, "svc_ticket_begin");
  assert.equal(failed.error.details.nextStep.payload.acknowledgeCriteria, true);
  // MCP-055: acknowledgeCriteria absent (not false) when not true.
  const sent = failed.calls[0]!.body as Record<string, unknown>;
  assert.ok(!("acknowledgeCriteria" in sent));
  const none = await runTool(
    "svc_ticket_begin",
    { ticketId: t.id, files: ["src/a.ts"], acknowledgeCriteria: false },
    m.token,
  );
  assert.ok(!("acknowledgeCriteria" in (none.calls[0]!.body as Record<string, unknown>)));

  const begun = await runTool(
    "svc_ticket_begin",
    { ticketId: t.id, files: ["src/a.ts"], acknowledgeCriteria: true },
    m.token,
  );
  assert.ok(begun.outcome.ok, JSON.stringify(begun.error));
  assert.equal((begun.calls[0]!.body as Record<string, unknown>).acknowledgeCriteria, true);
  assert.equal(begun.data.ticket.status, "in_progress");
  assert.equal(typeof begun.data.sessionId, "string", "an OAuth caller gets a work session from begin");
  assert.equal(begun.data.criteriaAcknowledged, true);
});

test("MCP-057 svc_ticket_begin on a ticket without criteria: nextStep to svc_ticket_acknowledge", async () => {
  const m = await memberWithBrief();
  const t = await insertTicket(m.projectId);
  const run = await runTool("svc_ticket_begin", { ticketId: t.id, files: ["src/b.ts"] }, m.token);
  assert.equal(run.status, 400);
  assert.equal(run.error.details.nextStep.tool, "svc_ticket_acknowledge");
  assert.ok(Array.isArray(run.error.details.nextStep.payload.additionalCriteria));
  // Following the nextStep works.
  await ok("svc_ticket_acknowledge", {
    ticketId: t.id,
    additionalCriteria: [{ title: "Checkable", requiresEvidence: false }],
  }, m.token);
  await ok("svc_ticket_begin", { ticketId: t.id, files: ["src/b.ts"] }, m.token);
});

test("MCP-058 svc_ticket_begin on a file another agent holds: 409 CONFLICT with details.conflicts", async () => {
  const m = await memberWithBrief();
  const other = await pairAgent(m.projectId);
  const claim = await call("POST", "/claim", { token: other.token, body: { files: ["src/held.ts"] } });
  assert.equal(claim.status, 200, claim.text);
  const t = await insertTicket(m.projectId, { criteria: [{ title: "c" }], acknowledged: true });
  const run = await runTool("svc_ticket_begin", { ticketId: t.id, files: ["src/held.ts"] }, m.token);
  assert.equal(run.status, 409);
  assert.equal(run.error.code, "CONFLICT");
  assert.ok(Array.isArray(run.error.details.conflicts) && run.error.details.conflicts.length === 1);
  assert.equal(run.error.details.conflicts[0].file, "src/held.ts");
});

test("MCP-059 MCP-020 svc_ticket_begin by a non-generator fails with 403", async () => {
  const m = await memberWithBrief();
  const { db } = await env();
  await db.updateTable("agents").set({ role: "evaluator" }).where("project_id", "=", m.projectId)
    .where("platform", "=", "oauth").execute();
  const t = await insertTicket(m.projectId, { criteria: [{ title: "c" }], acknowledged: true });
  const run = await runTool("svc_ticket_begin", { ticketId: t.id, files: ["src/c.ts"] }, m.token);
  assert.equal(run.status, 403);
  assert.equal(run.error.code, "FORBIDDEN");
});

test("MCP-020 write tools with a read-scope token fail with the upstream 403 FORBIDDEN", async () => {
  const m = await memberWithBrief();
  const read = await m.mint("read");
  const t = await insertTicket(m.projectId);
  const cases: [string, Record<string, unknown>][] = [
    ["svc_ticket_create", ticketArgs()],
    ["svc_ticket_update", { ticketId: t.id, priority: "high" }],
    ["svc_sprint_create", { name: "S" }],
    ["svc_ledger_add", { type: "PROGRESS", content: "x", sessionId: crypto.randomUUID() }],
  ];
  for (const [name, args] of cases) {
    const run = await runTool(name, args, read);
    assert.equal(run.status, 403, `${name}: ${JSON.stringify(run.error)}`);
    assert.equal(run.error.code, "FORBIDDEN", name);
  }
  // Reads work with the read token.
  await ok("svc_board", {}, read);
});

test("MCP-029 MCP-060 svc_ticket_update takes only its six fields and changes the ticket", async () => {
  const m = await memberWithBrief();
  assert.deepEqual(Object.keys(tool("svc_ticket_update").input.shape).sort(), [
    "assignToSelf",
    "priority",
    "reviewHandoff",
    "status",
    "ticketId",
    "unassign",
  ]);
  const t = await insertTicket(m.projectId);
  const run = await runTool(
    "svc_ticket_update",
    { ticketId: t.key, priority: "high", assignToSelf: true },
    m.token,
  );
  assert.ok(run.outcome.ok, JSON.stringify(run.error));
  assert.equal(run.calls[0]!.method, "PATCH");
  assert.equal(run.data.id, t.id);
  assert.ok(run.data.assigneeAgentId);
  const read = await ok("svc_ticket_get", { id: t.id }, m.token);
  assert.equal(read.priority, "high");
});

test("MCP-030 MCP-061 svc_ticket_acknowledge adds criteria and is idempotent", async () => {
  const m = await memberWithBrief();
  const t = await insertTicket(m.projectId);
  const args = { ticketId: t.id, additionalCriteria: [{ title: "Checkable", requiresEvidence: true }] };
  const first = await runTool("svc_ticket_acknowledge", args, m.token);
  assert.ok(first.outcome.ok, JSON.stringify(first.error));
  assert.equal(first.calls[0]!.path, `/ticket/${t.id}/acknowledge`);
  assert.deepEqual(first.calls[0]!.body, { additionalCriteria: args.additionalCriteria });
  assert.equal(first.data.added, 1);
  const again = await ok("svc_ticket_acknowledge", args, m.token);
  assert.equal(again.added, 0);
  assert.equal(again.alreadyAcknowledged, true);
  const input = tool("svc_ticket_acknowledge").input;
  const many = Array.from({ length: 21 }, (_, i) => ({ title: `c${i}` }));
  assert.equal(input.safeParse({ ticketId: t.id, additionalCriteria: many }).success, false);
});

test("MCP-031 MCP-032 MCP-062 MCP-063 svc_sprint_create and svc_sprint_assign (key, idempotency, unassign)", async () => {
  const m = await memberWithBrief();
  assert.deepEqual(Object.keys(tool("svc_sprint_create").input.shape).sort(), [
    "capacityPoints",
    "endDate",
    "goal",
    "name",
    "startDate",
  ]);
  const sprint = await ok("svc_sprint_create", {
    name: "Sprint A",
    goal: "Login",
    startDate: "2026-03-01",
    endDate: "2026-03-14",
    capacityPoints: 20,
  }, m.token);
  assert.equal(sprint.status, "planning");
  const t = await insertTicket(m.projectId);
  const assigned = await ok("svc_sprint_assign", {
    ticketId: t.key,
    sprintId: sprint.id,
    idempotencyKey: "k1",
  }, m.token);
  assert.equal(assigned.action, "assigned");
  const repeat = await ok(
    "svc_sprint_assign",
    { ticketId: t.key, sprintId: sprint.id, idempotencyKey: "k1" },
    m.token,
  );
  assert.deepEqual(repeat, assigned, "the key replays the first result");
  const again = await ok("svc_sprint_assign", { ticketId: t.key, sprintId: sprint.id }, m.token);
  assert.equal(again.idempotent, true);
  assert.equal(again.noop, true);
  const off = await ok("svc_sprint_assign", { ticketId: t.id, sprintId: null }, m.token);
  assert.equal(off.action, "unassigned");
  const input = tool("svc_sprint_assign").input;
  assert.equal(
    input.safeParse({ ticketId: t.id, sprintId: null, idempotencyKey: "x".repeat(121) }).success,
    false,
  );
});

test("MCP-033 MCP-064 MCP-065 svc_brief_update: strings only, { version, patchedFields }, 403 once not blank", async () => {
  const m = await member();
  const input = tool("svc_brief_update").input;
  assert.equal(input.safeParse({ goals: ["a", "b"] }).success, false, "no arrays");
  assert.equal(Object.keys(input.shape).includes("custom"), false, "no custom");
  const run = await runTool("svc_brief_update", { scope: "A shop", goals: "Sell" }, m.token);
  assert.ok(run.outcome.ok, JSON.stringify(run.error));
  assert.deepEqual(run.data, { version: 1, patchedFields: ["scope", "goals"] });
  // The brief has content now: OAuth write tokens lack write:brief.
  const denied = await runTool("svc_brief_update", { scope: "Changed" }, m.token);
  assert.equal(denied.status, 403);
  assert.equal(denied.error.code, "FORBIDDEN");
});

test("MCP-064 svc_brief_update expectedVersion: a stale version is 409 VERSION_CONFLICT", async () => {
  const m = await member();
  const run = await runTool("svc_brief_update", { scope: "A", expectedVersion: 3 }, m.token);
  assert.equal(run.status, 409);
  assert.equal(run.error.code, "VERSION_CONFLICT");
});

/** A member with a begun ticket: its id and the work session. */
async function begun() {
  const m = await memberWithBrief();
  const t = await insertTicket(m.projectId, {
    criteria: [{ title: "c", requiresEvidence: false }],
    acknowledged: true,
    expectedFiles: ["src/w.ts"],
  });
  const data = await ok("svc_ticket_begin", { ticketId: t.id, files: ["src/w.ts"] }, m.token);
  return { m, t, sessionId: data.sessionId as string };
}

test("MCP-034 MCP-066 svc_ledger_add writes PROGRESS with the session from begin", async () => {
  const { m, t, sessionId } = await begun();
  const run = await runTool(
    "svc_ledger_add",
    { type: "PROGRESS", content: "Wrote the form", sessionId, ticketId: t.key, fileRef: "src/w.ts" },
    m.token,
  );
  assert.ok(run.outcome.ok, JSON.stringify(run.error));
  assert.equal(typeof run.data.id, "string");
  const input = tool("svc_ledger_add").input;
  assert.equal(input.safeParse({ type: "PROGRESS", content: "x" }).success, false, "sessionId required");
  assert.equal(input.safeParse({ type: "FOUND", content: "x", sessionId }).success, false);
  assert.equal(input.safeParse({ type: "PROGRESS", content: "x".repeat(2001), sessionId }).success, false);
});

test("MCP-067 MCP-069 svc_ledger_add has no payload or severity parameter", () => {
  const keys = Object.keys(tool("svc_ledger_add").input.shape);
  assert.ok(!keys.includes("payload"));
  assert.ok(!keys.includes("severity"));
  assert.deepEqual(keys.sort(), ["content", "fileRef", "sessionId", "ticketId", "type"]);
  // Extra keys never reach REST: the parsed arguments drop them.
  const parsed = tool("svc_ledger_add").input.parse({
    type: "ALERT",
    content: "x",
    sessionId: crypto.randomUUID(),
    severity: "critical",
  }) as Record<string, unknown>;
  assert.equal(parsed.severity, undefined);
});

test("MCP-068 svc_ledger_add with type DECISION is rejected with 422", async () => {
  const { m, sessionId } = await begun();
  const run = await runTool("svc_ledger_add", { type: "DECISION", content: "Use Zod", sessionId }, m.token);
  assert.equal(run.status, 422);
  assert.equal(run.error.code, "VALIDATION_ERROR");
});

test("MCP-035 MCP-070 MCP-071 svc_handoff hands the begun ticket on with artifacts", async () => {
  const { m, t, sessionId } = await begun();
  await ok(
    "svc_ledger_add",
    { type: "PROGRESS", content: "Done the form", sessionId, ticketId: t.id },
    m.token,
  );
  const run = await runTool("svc_handoff", {
    moduleName: "login-form",
    summary: "Form validates emails",
    sessionId,
    ticketId: t.id,
    testResults: "12 passed",
    diffStat: "2 files changed, 10 insertions(+)",
    artifacts: [{ type: "pull_request", url: "https://git.example.com/pr/1", ref: "1", title: "PR" }],
  }, m.token);
  assert.ok(run.outcome.ok, JSON.stringify(run.error));
  assert.equal(run.data.ok, true);
  assert.equal(run.data.ticketAdvanced, true);
  const input = tool("svc_handoff").input;
  const base = { moduleName: "m", summary: "s", sessionId };
  assert.equal(
    input.safeParse({ ...base, artifacts: [{ type: "pull_request", url: "not a url" }] }).success,
    false,
  );
  const eleven = Array.from({ length: 11 }, (_, i) => ({ type: "commit", url: `https://x.example/${i}` }));
  assert.equal(input.safeParse({ ...base, artifacts: eleven }).success, false);
  assert.equal(input.safeParse({ ...base, testResults: "x".repeat(501) }).success, false);
  assert.equal(input.safeParse({ moduleName: "m", summary: "s" }).success, false, "sessionId required");
});

test("MCP-072 svc_handoff of a ticket assigned to another agent fails with 403", async () => {
  const { m, sessionId } = await begun();
  await ok("svc_ledger_add", { type: "PROGRESS", content: "Did things", sessionId }, m.token);
  const other = await pairAgent(m.projectId);
  const theirs = await insertTicket(m.projectId, { status: "in_progress", assignee: other.agentId });
  const run = await runTool(
    "svc_handoff",
    { moduleName: "m", summary: "s", sessionId, ticketId: theirs.id },
    m.token,
  );
  assert.equal(run.status, 403);
  assert.equal(run.error.code, "FORBIDDEN");
});

test("MCP-010 a failure relays the upstream error object unchanged with its status", async () => {
  const m = await memberWithBrief();
  const t = await insertTicket(m.projectId);
  const rest = await call("PATCH", "/ticket", {
    token: m.token,
    body: { ticketId: t.id, status: "nonsense" },
  });
  const run = await runTool("svc_ticket_update", { ticketId: t.id, status: "nonsense" }, m.token);
  assert.equal(run.status, rest.status);
  assert.deepEqual(run.error, rest.body.error);
});

test("MCP-011 an invalid bearer comes back as status 401 UNAUTHORIZED", async () => {
  const run = await runTool("svc_status", {}, "not-a-token");
  assert.equal(run.status, 401);
  assert.equal(run.error.code, "UNAUTHORIZED");
});
