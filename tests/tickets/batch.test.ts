import assert from "node:assert/strict";
import { call, env, newProject, pairAgent, test } from "../helpers/mod.ts";
import { setBrief } from "../helpers/fixtures.ts";
import { getTicket, setup, ticketBody } from "./_helpers.ts";

async function batch(token: string, tickets: unknown[]) {
  return await call("POST", "/ticket/batch", { token, body: { tickets } });
}

test("TKT-175 a batch takes 1 to 25 tickets; 0 or 26 answers 400 VALIDATION_ERROR", async () => {
  const s = await setup();
  const one = await batch(s.agent.token, [ticketBody()]);
  assert.equal(one.status, 200);
  const max = await batch(s.agent.token, Array.from({ length: 25 }, () => ticketBody()));
  assert.equal(max.status, 200);
  assert.equal(max.body.data.created.length, 25);
  for (const n of [0, 26]) {
    const res = await batch(s.agent.token, Array.from({ length: n }, () => ticketBody()));
    assert.equal(res.status, 400, `${n} rows`);
    assert.equal(res.body.error.code, "VALIDATION_ERROR");
  }
  const missing = await call("POST", "/ticket/batch", { token: s.agent.token, body: {} });
  assert.equal(missing.status, 400);
});

test("TKT-179 TKT-180 TKT-181 the response is { created[], errors[], total } with HTTP 200 even when rows fail", async () => {
  const s = await setup();
  const res = await batch(s.agent.token, [ticketBody({ title: "Good one" }), {
    title: "No agent-first fields",
  }]);
  assert.equal(res.status, 200);
  const d = res.body.data;
  assert.equal(d.total, 2);
  assert.equal(d.created.length, 1);
  const c = d.created[0];
  for (const key of ["id", "number", "ticketRef", "status", "createdAt", "url"]) assert.ok(key in c, key);
  assert.equal(c.index, 0);
  assert.equal(c.ticketRef, `${s.prefix}-${c.number}`);
  assert.equal(d.errors.length, 1);
  const e = d.errors[0];
  assert.equal(e.index, 1);
  assert.equal(e.title, "No agent-first fields");
  assert.equal(e.status, 400);
  assert.equal(e.error.code, "VALIDATION_ERROR");
  assert.equal(e.error.details.recovery.action, "ADD_REQUIRED_FIELDS");
});

test("TKT-176 each batch row is validated like a single create", async () => {
  const project = await newProject({ settings: { allowedTypes: ["bug"] } });
  await setBrief(project.projectId);
  const agent = await pairAgent(project.projectId);
  const res = await batch(agent.token, [
    ticketBody({ title: "t".repeat(201) }),
    ticketBody({ doneDefinition: "short" }),
    ticketBody({ type: "feature" }),
    ticketBody({ parentId: crypto.randomUUID() }),
    ticketBody({ branch: "refs/heads/x" }),
    ticketBody({ type: "bug" }),
  ]);
  assert.equal(res.status, 200);
  const byIndex = Object.fromEntries(
    res.body.data.errors.map((e: { index: number; status: number; error: { code: string } }) => [
      e.index,
      `${e.status} ${e.error.code}`,
    ]),
  );
  assert.deepEqual(byIndex, {
    0: "400 VALIDATION_ERROR",
    1: "400 VALIDATION_ERROR",
    2: "422 VALIDATION_ERROR",
    3: "404 TICKET_NOT_FOUND",
    4: "400 VALIDATION_ERROR",
  });
  assert.deepEqual(res.body.data.created.map((c: { index: number }) => c.index), [5]);
});

test("TKT-177 rows are independent: a failing row neither stops nor rolls back the others", async () => {
  const s = await setup();
  const res = await batch(s.agent.token, [
    ticketBody(),
    { title: "bad" },
    ticketBody(),
    "not a row",
    ticketBody(),
  ]);
  assert.equal(res.status, 200);
  assert.deepEqual(res.body.data.created.map((c: { number: number }) => c.number), [1, 2, 3]);
  assert.deepEqual(res.body.data.errors.map((e: { index: number }) => e.index), [1, 3]);
  const { db } = await env();
  const rows = await db.selectFrom("tickets").select("number").where("project_id", "=", s.projectId)
    .execute();
  assert.equal(rows.length, 3);
});

test("TKT-040 a batch row starts in backlog, or in claimed with assignToSelf (caller assigned)", async () => {
  const s = await setup();
  const res = await batch(s.agent.token, [ticketBody(), ticketBody({ assignToSelf: true })]);
  const [plain, claimed] = res.body.data.created;
  assert.equal(plain.status, "backlog");
  assert.equal(claimed.status, "claimed");
  const t = await getTicket(s.agent.token, claimed.id);
  assert.equal(t.status, "claimed");
  assert.equal(t.assignee.agentId, s.agent.agentId);
  const { db } = await env();
  const entries = await db.selectFrom("ledger_entries").select("type").where("ticket_id", "=", claimed.id)
    .execute();
  assert.deepEqual(entries.map((e) => e.type), ["AGENT_ASSIGNED"]);
});

test("TKT-178 acceptanceCriteria, branch and priority are accepted in a batch row but not applied", async () => {
  const s = await setup();
  const res = await batch(s.agent.token, [
    ticketBody({ acceptanceCriteria: [{ title: "c" }], branch: "feat/x", priority: "high", tags: ["ui"] }),
  ]);
  assert.equal(res.body.data.created.length, 1, JSON.stringify(res.body.data.errors));
  const t = await getTicket(s.agent.token, res.body.data.created[0].id);
  assert.deepEqual(t.acceptanceCriteria, []);
  assert.equal(t.branch, null);
  assert.equal(t.priority, "normal");
  assert.deepEqual(t.tags, ["ui"]);
});

test("TKT-181 the brief rule and idempotencyKey apply per row", async () => {
  const project = await newProject();
  const agent = await pairAgent(project.projectId);
  const refused = await batch(agent.token, [ticketBody(), ticketBody()]);
  assert.deepEqual(
    refused.body.data.errors.map((e: { index: number; error: { code: string } }) => [e.index, e.error.code]),
    [[0, "BRIEF_REQUIRED"], [1, "BRIEF_REQUIRED"]],
  );
  await setBrief(project.projectId);
  const res = await batch(agent.token, [
    ticketBody({ idempotencyKey: "row-key" }),
    ticketBody({ idempotencyKey: "row-key" }),
  ]);
  const [first, second] = res.body.data.created;
  assert.equal(second.id, first.id);
  assert.equal(second.idempotent, true);
  assert.equal(first.idempotent, undefined);
});

test("TKT-100 a batch without write:ticket answers 403", async () => {
  const s = await setup();
  const key = await call("POST", `/admin/projects/${s.projectId}/api-keys`, {
    token: "test-admin-token",
    body: { name: "ro", agentName: "reader2", role: "observer", scopes: ["read:board"] },
  });
  const res = await batch(key.body.data.key, [ticketBody()]);
  assert.equal(res.status, 403);
  assert.equal(res.body.error.code, "FORBIDDEN");
});

test("RATE-009 POST /ticket/batch costs 6 units", async () => {
  const s = await setup({ plan: "free" });
  const first = await batch(s.agent.token, [ticketBody()]);
  const second = await batch(s.agent.token, [ticketBody()]);
  assert.equal(first.body.meta.callsRemaining - second.body.meta.callsRemaining, 6);
});
