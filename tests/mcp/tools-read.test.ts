import assert from "node:assert/strict";
import { TOOLS } from "@/mcp/tools/index.ts";
import { env, test } from "../helpers/mod.ts";
import { insertTicket } from "../helpers/fixtures.ts";
import { member, memberWithBrief, ok, runTool, ticketArgs } from "./helpers.ts";

const SPEC_TOOLS = [
  "svc_status",
  "svc_board",
  "svc_tickets",
  "svc_ticket_get",
  "svc_brief_get",
  "svc_ticket_create",
  "svc_ticket_batch",
  "svc_ticket_begin",
  "svc_ticket_update",
  "svc_ticket_acknowledge",
  "svc_sprint_create",
  "svc_sprint_assign",
  "svc_brief_update",
  "svc_ledger_add",
  "svc_handoff",
];
const READ_TOOLS = ["svc_status", "svc_board", "svc_tickets", "svc_ticket_get", "svc_brief_get"];

test("MCP-001 the tool table holds exactly the 15 tools of the spec, each with a description", () => {
  assert.deepEqual(TOOLS.map((t) => t.name), SPEC_TOOLS);
  for (const tool of TOOLS) {
    assert.ok(tool.description.length > 40, tool.name);
    assert.ok(tool.title.length > 0, tool.name);
    assert.equal(tool.annotations.openWorldHint, false, tool.name);
  }
});

test("MCP-004 MCP-020..035 scope follows the Needs column: none for reads, write for every write", () => {
  for (const tool of TOOLS) {
    assert.equal(tool.scope, READ_TOOLS.includes(tool.name) ? "read" : "write", tool.name);
    // No tool takes a token parameter: the bearer is forwarded.
    const keys = Object.keys(tool.input.shape).map((k) => k.toLowerCase());
    assert.ok(!keys.some((k) => k.includes("token") || k === "authorization"), tool.name);
  }
});

test("MCP annotations are truthful: reads are read-only, writes are not, acknowledge and assign are idempotent", () => {
  const by = Object.fromEntries(TOOLS.map((t) => [t.name, t.annotations]));
  for (const name of ["svc_board", "svc_tickets", "svc_ticket_get", "svc_brief_get"]) {
    assert.equal(by[name]!.readOnlyHint, true, name);
    assert.equal(by[name]!.destructiveHint, false, name);
  }
  // svc_status marks the notifications it returns as read.
  assert.equal(by.svc_status!.readOnlyHint, false);
  for (const name of SPEC_TOOLS.filter((n) => !READ_TOOLS.includes(n))) {
    assert.equal(by[name]!.readOnlyHint, false, name);
  }
  for (const name of ["svc_ticket_acknowledge", "svc_sprint_assign", "svc_handoff"]) {
    assert.equal(by[name]!.idempotentHint, true, name);
  }
  for (const name of ["svc_ticket_create", "svc_ticket_batch", "svc_ledger_add", "svc_sprint_create"]) {
    assert.equal(by[name]!.idempotentHint, false, name);
    assert.equal(by[name]!.destructiveHint, false, name);
  }
  for (const name of ["svc_ticket_update", "svc_brief_update", "svc_sprint_assign"]) {
    assert.equal(by[name]!.destructiveHint, true, name);
  }
});

test("MCP-021 MCP-036 svc_status wraps GET /context?compact=true and returns the compact context data", async () => {
  const m = await memberWithBrief();
  const run = await runTool("svc_status", {}, m.token);
  assert.ok(run.outcome.ok, JSON.stringify(run.error));
  assert.deepEqual(run.calls, [{ method: "GET", path: "/context", query: { compact: "true" } }]);
  assert.equal(run.data.project.id, m.projectId);
  assert.equal(run.data.agent.platform, "oauth");
  // Compact: openClaims as { count, ticketIds }.
  assert.equal(typeof run.data.openClaims.count, "number");
});

test("MCP-017 MCP-019 svc_status on a brand-new project carries projectSetup", async () => {
  const m = await member();
  const data = await ok("svc_status", {}, m.token);
  assert.equal(data.projectSetup.needed, true);
  assert.equal(data.projectSetup.projectName, data.project.name);
  assert.equal(data.projectSetup.briefVersion, 0);
  assert.equal(typeof data.projectSetup.message, "string");
  assert.ok(Array.isArray(data.projectSetup.steps) && data.projectSetup.steps.length >= 2);
  assert.ok(data.projectSetup.steps.some((s: string) => s.includes("svc_brief_update")));
});

test("MCP-018 projectSetup disappears once the brief has content", async () => {
  const m = await member();
  assert.ok((await ok("svc_status", {}, m.token)).projectSetup);
  await ok("svc_brief_update", { scope: "A shop" }, m.token);
  const after = await ok("svc_status", {}, m.token);
  assert.equal(after.projectSetup, undefined);
});

test("MCP-018 projectSetup disappears once a ticket exists, brief still blank", async () => {
  const m = await member();
  await insertTicket(m.projectId);
  const data = await ok("svc_status", {}, m.token);
  assert.equal(data.projectSetup, undefined);
});

test("MCP-017 a brief whose fields were all written empty still counts as no brief content", async () => {
  const m = await member();
  await ok("svc_brief_update", { scope: "  ", goals: "" }, m.token);
  const data = await ok("svc_status", {}, m.token);
  assert.equal(data.projectSetup?.needed, true);
  assert.equal(data.projectSetup.briefVersion, 1);
});

test("MCP-025 MCP-046..048 svc_brief_get: no brief → brief omitted, briefUpdatedAt null", async () => {
  const m = await member();
  const run = await runTool("svc_brief_get", {}, m.token);
  assert.ok(run.outcome.ok);
  assert.equal(run.calls[0]!.path, "/context");
  assert.deepEqual(run.data, { briefVersion: 0, briefUpdatedAt: null });
  assert.ok(!("brief" in run.data));
});

test("MCP-046 MCP-047 svc_brief_get returns the brief object, its version and briefUpdatedAt null", async () => {
  const m = await member();
  await ok("svc_brief_update", { scope: "A shop", stack: "Deno" }, m.token);
  const data = await ok("svc_brief_get", {}, m.token);
  assert.deepEqual(data, {
    brief: { scope: "A shop", stack: "Deno" },
    briefVersion: 1,
    briefUpdatedAt: null,
  });
});

test("svc_brief_get delivers no notification (updates_limit=0)", async () => {
  const m = await member();
  const run = await runTool("svc_brief_get", {}, m.token);
  assert.equal(run.calls[0]!.query?.updates_limit, 0);
});

test("MCP-022 MCP-037..039 svc_board: columns of at most 10 summaries with more, counts, sprints", async () => {
  const m = await memberWithBrief();
  for (let i = 0; i < 12; i++) await insertTicket(m.projectId, { title: `Backlog ${i}` });
  await insertTicket(m.projectId, { status: "in_progress", title: "Working" });
  const sprint = await ok("svc_sprint_create", { name: "Sprint A" }, m.token);
  const run = await runTool("svc_board", {}, m.token);
  assert.ok(run.outcome.ok, JSON.stringify(run.error));
  assert.deepEqual(run.calls.map((c) => `${c.method} ${c.path}`).sort(), ["GET /board", "GET /sprint"]);
  assert.equal(run.calls.find((c) => c.path === "/board")!.query!.limit, 50);
  const { board, sprints } = run.data;
  assert.equal(board.columns.backlog.count, 12);
  assert.equal(board.columns.backlog.tickets.length, 10);
  assert.equal(board.columns.backlog.more, true);
  assert.equal(board.columns.in_progress.count, 1);
  assert.equal(board.columns.in_progress.tickets.length, 1);
  assert.ok(!("more" in board.columns.in_progress));
  assert.equal(board.columns.done.count, 0);
  assert.equal(board.total, 13);
  assert.equal(board.returned, 13);
  assert.equal(board.hasMore, false);
  assert.equal(board.nextCursor, null);
  assert.equal(board.columns.backlog.tickets[0].ticketRef.endsWith("-1"), true);
  assert.equal(board.columns.backlog.tickets[0].description, undefined, "summaries, not whole tickets");
  assert.deepEqual(sprints.map((s: { id: string }) => s.id), [sprint.id]);
});

test("MCP-037 svc_board limit is 1 to 200, default 50, and passes limit and cursor on", async () => {
  const m = await memberWithBrief();
  for (let i = 0; i < 3; i++) await insertTicket(m.projectId);
  const tool = TOOLS.find((t) => t.name === "svc_board")!;
  assert.equal(tool.input.safeParse({ limit: 201 }).success, false);
  assert.equal(tool.input.safeParse({ limit: 0 }).success, false);
  assert.equal(tool.input.safeParse({ limit: 200 }).success, true);
  const first = await ok("svc_board", { limit: 2 }, m.token);
  assert.equal(first.board.returned, 2);
  assert.equal(first.board.hasMore, true);
  assert.equal(first.board.columns.backlog.count, 3);
  assert.equal(first.board.columns.backlog.more, true);
  const second = await ok("svc_board", { limit: 2, cursor: first.board.nextCursor }, m.token);
  assert.equal(second.board.returned, 1);
  assert.equal(second.board.hasMore, false);
});

test("svc_board relays a REST refusal (unknown status) unchanged with its status", async () => {
  const m = await member();
  const run = await runTool("svc_board", { status: "nonsense" }, m.token);
  assert.equal(run.status, 400);
  assert.equal(run.error.code, "VALIDATION_ERROR");
  assert.ok(run.error.details.validStatuses);
});

test("MCP-023 MCP-040..042 svc_tickets without q lists the board as an array (limit default 20)", async () => {
  const m = await memberWithBrief();
  const sprint = await ok("svc_sprint_create", { name: "S" }, m.token);
  const inSprint = await insertTicket(m.projectId, { sprintId: sprint.id, title: "In sprint" });
  await insertTicket(m.projectId, { title: "Elsewhere" });
  const run = await runTool("svc_tickets", { sprintId: sprint.id }, m.token);
  assert.ok(run.outcome.ok);
  assert.equal(run.calls[0]!.path, "/board");
  assert.equal(run.calls[0]!.query!.limit, 20);
  assert.equal(run.calls[0]!.query!.sprintId, sprint.id);
  assert.ok(Array.isArray(run.data));
  assert.deepEqual(run.data.map((t: { id: string }) => t.id), [inSprint.id]);
});

test("MCP-041 svc_tickets with q searches and ignores sprintId", async () => {
  const m = await memberWithBrief();
  const sprint = await ok("svc_sprint_create", { name: "S" }, m.token);
  const hit = await insertTicket(m.projectId, { title: "Checkout payment flow" });
  await insertTicket(m.projectId, { title: "Unrelated thing" });
  const run = await runTool("svc_tickets", { q: "payment", sprintId: sprint.id }, m.token);
  assert.ok(run.outcome.ok, JSON.stringify(run.error));
  assert.equal(run.calls[0]!.path, "/search");
  assert.equal(run.calls[0]!.query!.sprintId, undefined);
  assert.ok(Array.isArray(run.data));
  assert.deepEqual(run.data.map((t: { id: string }) => t.id), [hit.id]);
});

test("MCP-040 svc_tickets q needs at least 2 characters", () => {
  const tool = TOOLS.find((t) => t.name === "svc_tickets")!;
  assert.equal(tool.input.safeParse({ q: "a" }).success, false);
  assert.equal(tool.input.safeParse({ q: "ab" }).success, true);
  assert.equal(tool.input.parse({}).limit, 20);
});

test("MCP-024 MCP-043 svc_ticket_get defaults: ledger included, comments not", async () => {
  const m = await memberWithBrief();
  const t = await insertTicket(m.projectId);
  const run = await runTool("svc_ticket_get", { id: t.id }, m.token);
  assert.ok(run.outcome.ok, JSON.stringify(run.error));
  assert.deepEqual(run.calls[0]!.query, { id: t.id, include: "ledger" });
  assert.ok(Array.isArray(run.data.ledger));
  assert.equal(run.data.comments, undefined);
  const both = await runTool("svc_ticket_get", { id: t.id, includeComments: true }, m.token);
  assert.deepEqual(both.calls[0]!.query, { id: t.id, include: "ledger,comments" });
  assert.ok(Array.isArray(both.data.comments));
  const none = await runTool("svc_ticket_get", { id: t.id, includeLedger: false }, m.token);
  assert.deepEqual(none.calls[0]!.query, { id: t.id });
  assert.equal(none.data.ledger, undefined);
});

test("MCP-044 svc_ticket_get uses key in preference to id", async () => {
  const m = await memberWithBrief();
  const a = await insertTicket(m.projectId);
  const b = await insertTicket(m.projectId);
  const run = await runTool("svc_ticket_get", { key: b.key, id: a.id }, m.token);
  assert.ok(run.outcome.ok);
  assert.equal(run.data.id, b.id);
  assert.equal(run.calls[0]!.query!.id, undefined);
});

test("MCP-045 svc_ticket_get without key or id is 400 VALIDATION_ERROR in the error shape, no REST call", async () => {
  const m = await member();
  const run = await runTool("svc_ticket_get", {}, m.token);
  assert.equal(run.outcome.ok, false);
  assert.equal(run.status, 400);
  assert.equal(run.error.code, "VALIDATION_ERROR");
  assert.equal(typeof run.error.message, "string");
  assert.ok(run.error.details.fields.length >= 1);
  assert.equal(run.calls.length, 0);
});

test("svc_ticket_get of an unknown key relays 404 TICKET_NOT_FOUND", async () => {
  const m = await member();
  const run = await runTool("svc_ticket_get", { key: "ZZ-999" }, m.token);
  assert.equal(run.status, 404);
  assert.equal(run.error.code, "TICKET_NOT_FOUND");
});

test("MCP-006 tool calls to GET /context never fail with IDENTITY_MISMATCH", async () => {
  const m = await memberWithBrief();
  for (let i = 0; i < 2; i++) {
    const run = await runTool("svc_status", {}, m.token);
    assert.ok(run.outcome.ok, JSON.stringify(run.error));
  }
  const { db } = await env();
  const agent = await db.selectFrom("agents").select("platform").where("project_id", "=", m.projectId)
    .executeTakeFirstOrThrow();
  assert.equal(agent.platform, "oauth");
  void ticketArgs;
});
