import assert from "node:assert/strict";
import { call, env, newProject, pairAgent, test } from "../helpers/mod.ts";
import { apiKey, subAgentToken } from "../brief/helpers.ts";
import { createSprint } from "./helpers.ts";

async function setup() {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  return { projectId, agent };
}

test("SPRINT-030 SPRINT-006 SPRINT-024 POST /sprint with no field answers 201 { id, number, name, status: planning, createdAt }", async () => {
  const { agent } = await setup();
  const res = await call("POST", "/sprint", { token: agent.token, body: {} });
  assert.equal(res.status, 201);
  assert.deepEqual(Object.keys(res.body.data).sort(), ["createdAt", "id", "name", "number", "status"]);
  assert.equal(res.body.data.status, "planning");
  assert.equal(res.body.data.number, 1);
  assert.match(res.body.data.id, /^[0-9a-f-]{36}$/);
});

test("SPRINT-025 name defaults to `Sprint N`; up to 200 characters", async () => {
  const { agent } = await setup();
  assert.equal((await createSprint(agent.token)).name, "Sprint 1");
  assert.equal((await createSprint(agent.token, { name: "Checkout" })).name, "Checkout");
  assert.equal((await createSprint(agent.token)).name, "Sprint 3");
  assert.equal((await createSprint(agent.token, { name: "n".repeat(200) })).name.length, 200);
  for (const name of ["n".repeat(201), ""]) {
    const res = await call("POST", "/sprint", { token: agent.token, body: { name } });
    assert.equal(res.status, 400);
    assert.equal(res.body.error.details.recovery.action, "FIX_SPRINT_FIELDS");
  }
});

test("SPRINT-026 goal is at most 2000 characters", async () => {
  const { agent } = await setup();
  await createSprint(agent.token, { goal: "g".repeat(2000) });
  const res = await call("POST", "/sprint", { token: agent.token, body: { goal: "g".repeat(2001) } });
  assert.equal(res.status, 400);
  assert.equal(res.body.error.code, "VALIDATION_ERROR");
  assert.equal(res.body.error.details.recovery.action, "FIX_SPRINT_FIELDS");
});

test("SPRINT-027 dates: ISO date or date-time with offset; anything else 400 FIX_SPRINT_FIELDS", async () => {
  const { agent } = await setup();
  for (
    const startDate of [
      "2026-03-01",
      "2026-03-01T09:00:00Z",
      "2026-03-01T09:00:00.123+02:00",
      "2026-03-01T09:00Z",
    ]
  ) {
    const res = await call("POST", "/sprint", { token: agent.token, body: { startDate } });
    assert.equal(res.status, 201, startDate);
  }
  for (
    const bad of [
      "2026-03-01T09:00:00",
      "03/01/2026",
      "2026-02-30",
      "tomorrow",
      "2026-3-1",
      "2026-03-01T25:00:00Z",
      "",
    ]
  ) {
    for (const field of ["startDate", "endDate"]) {
      const res = await call("POST", "/sprint", { token: agent.token, body: { [field]: bad } });
      assert.equal(res.status, 400, `${field}=${bad}`);
      assert.equal(res.body.error.code, "VALIDATION_ERROR");
      assert.equal(res.body.error.details.recovery.action, "FIX_SPRINT_FIELDS");
    }
  }
});

test("SPRINT-028 endDate earlier than startDate answers 400 FIX_SPRINT_FIELDS; equal dates are fine", async () => {
  const { agent } = await setup();
  const res = await call("POST", "/sprint", {
    token: agent.token,
    body: { startDate: "2026-03-10", endDate: "2026-03-09" },
  });
  assert.equal(res.status, 400);
  assert.equal(res.body.error.details.recovery.action, "FIX_SPRINT_FIELDS");
  const timed = await call("POST", "/sprint", {
    token: agent.token,
    body: { startDate: "2026-03-10T12:00:00Z", endDate: "2026-03-10T11:59:59Z" },
  });
  assert.equal(timed.status, 400);
  await createSprint(agent.token, { startDate: "2026-03-10", endDate: "2026-03-10" });
  await createSprint(agent.token, { startDate: "2026-03-10T15:00:00Z", endDate: "2026-03-10" });
});

test("SPRINT-029 SPRINT-003 capacityPoints 0 to 9999; outside answers 400 FIX_SPRINT_FIELDS", async () => {
  const { agent } = await setup();
  await createSprint(agent.token, { capacityPoints: 0 });
  await createSprint(agent.token, { capacityPoints: 9999 });
  for (const capacityPoints of [-1, 10000, 1.5, "10"]) {
    const res = await call("POST", "/sprint", { token: agent.token, body: { capacityPoints } });
    assert.equal(res.status, 400, String(capacityPoints));
    assert.equal(res.body.error.details.recovery.action, "FIX_SPRINT_FIELDS");
  }
});

test("SPRINT-001 SPRINT-002 SPRINT-004 a sprint carries every field; completedAt null until complete", async () => {
  const { agent } = await setup();
  await createSprint(agent.token, {
    name: "Full",
    goal: "Ship",
    startDate: "2026-03-01",
    endDate: "2026-03-14",
    capacityPoints: 40,
  });
  const list = await call("GET", "/sprint", { token: agent.token });
  const sprint = list.body.data[0];
  for (
    const key of [
      "id",
      "number",
      "name",
      "goal",
      "status",
      "startDate",
      "endDate",
      "capacityPoints",
      "createdAt",
      "completedAt",
    ]
  ) {
    assert.ok(key in sprint, key);
  }
  assert.equal(sprint.goal, "Ship");
  assert.equal(sprint.startDate, "2026-03-01");
  assert.equal(sprint.endDate, "2026-03-14");
  assert.equal(sprint.capacityPoints, 40);
  assert.equal(sprint.completedAt, null);
  assert.ok(["planning", "active", "complete", "archived", "cancelled"].includes(sprint.status));
});

test("SPRINT-023 SPRINT-022 GET /sprint lists sprints highest number first, with any valid token", async () => {
  const { agent, projectId } = await setup();
  for (let i = 0; i < 3; i++) await createSprint(agent.token);
  const reader = await apiKey(projectId, ["read:board"]);
  const res = await call("GET", "/sprint", { token: reader.token });
  assert.equal(res.status, 200);
  assert.ok(Array.isArray(res.body.data));
  assert.deepEqual(res.body.data.map((s: { number: number }) => s.number), [3, 2, 1]);
  const other = await setup();
  assert.deepEqual((await call("GET", "/sprint", { token: other.agent.token })).body.data, []);
});

test("SPRINT-020 sprint writes need write:sprint: 403 FORBIDDEN", async () => {
  const { agent, projectId } = await setup();
  const sprint = await createSprint(agent.token);
  const noSprint = await apiKey(projectId, ["write:ticket", "write:threads"]);
  const cases: [string, string, unknown][] = [
    ["POST", "/sprint", {}],
    ["PATCH", `/sprint/${sprint.id}`, { name: "x" }],
    ["POST", "/sprint/assign", { ticketId: crypto.randomUUID(), sprintId: sprint.id }],
  ];
  for (const [method, path, body] of cases) {
    const res = await call(method, path, { token: noSprint.token, body });
    assert.equal(res.status, 403, `${method} ${path}`);
    assert.equal(res.body.error.code, "FORBIDDEN");
  }
  assert.equal((await call("GET", "/sprint", { token: noSprint.token })).status, 200);
});

test("SPRINT-021 a sub-agent token gets 403 FORBIDDEN with recovery REPAIR_OR_REFRESH on sprint writes", async () => {
  const { agent } = await setup();
  const sprint = await createSprint(agent.token);
  const sub = await subAgentToken(agent);
  const cases: [string, string, unknown][] = [
    ["POST", "/sprint", {}],
    ["PATCH", `/sprint/${sprint.id}`, { status: "active" }],
    ["POST", "/sprint/assign", { ticketId: crypto.randomUUID(), sprintId: null }],
  ];
  for (const [method, path, body] of cases) {
    const res = await call(method, path, { token: sub, body });
    assert.equal(res.status, 403, `${method} ${path}`);
    assert.equal(res.body.error.code, "FORBIDDEN");
    assert.equal(res.body.error.details.recovery.action, "REPAIR_OR_REFRESH");
  }
  assert.equal((await call("GET", "/sprint", { token: sub })).status, 200);
});

test("SPRINT-031 racing creates get distinct numbers (or a 409 RETRY that creates nothing)", async () => {
  const { agent, projectId } = await setup();
  const results = await Promise.all(
    Array.from({ length: 6 }, () => call("POST", "/sprint", { token: agent.token, body: {} })),
  );
  const created = results.filter((r) => r.status === 201);
  for (const r of results.filter((r) => r.status !== 201)) {
    assert.equal(r.status, 409, r.text);
    assert.equal(r.body.error.code, "CONFLICT");
    assert.equal(r.body.error.details.recovery.action, "RETRY");
  }
  const numbers = created.map((r) => r.body.data.number);
  assert.equal(new Set(numbers).size, numbers.length);
  const { db } = await env();
  const rows = await db.selectFrom("sprints").select("number").where("project_id", "=", projectId).execute();
  assert.equal(rows.length, created.length);
});

test("SPRINT-031 a number taken by a concurrent create answers 409 CONFLICT, recovery RETRY, nothing created", async () => {
  const e = await env();
  if (e.engine !== "postgres") return; // needs a second connection to hold the number mid-transaction
  const { agent, projectId } = await setup();
  const now = e.clock.now();
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let inserted!: () => void;
  const holding = new Promise<void>((resolve) => (inserted = resolve));
  const blocker = e.db.transaction().execute(async (trx) => {
    await trx.insertInto("sprints").values({
      id: crypto.randomUUID(),
      project_id: projectId,
      number: 1,
      name: "held",
      goal: null,
      start_date: null,
      end_date: null,
      capacity_points: null,
      release_notes: null,
      created_at: now,
      updated_at: now,
      started_at: null,
      completed_at: null,
    }).execute();
    inserted();
    await held;
  });
  await holding;
  const pending = call("POST", "/sprint", { token: agent.token, body: { name: "racer" } });
  await new Promise((r) => setTimeout(r, 300));
  release();
  await blocker;
  const res = await pending;
  assert.equal(res.status, 409, res.text);
  assert.equal(res.body.error.code, "CONFLICT");
  assert.equal(res.body.error.details.recovery.action, "RETRY");
  const rows = await e.db.selectFrom("sprints").select("name").where("project_id", "=", projectId).execute();
  assert.deepEqual(rows.map((r) => r.name), ["held"]);
});

test("SPRINT-032 POST /sprint answers 429 RATE_LIMITED past the plan's units", async () => {
  const { projectId } = await newProject({ plan: "free" });
  const agent = await pairAgent(projectId);
  const { db, clock } = await env();
  const hour = 3_600_000;
  const start = new Date(Math.floor(clock.now().getTime() / hour) * hour);
  await db.insertInto("rate_counters").values({
    key: `units:agent:${agent.agentId}`,
    window_start: start,
    count: 499,
    expires_at: new Date(start.getTime() + hour),
  }).onConflict((oc) => oc.columns(["key", "window_start"]).doUpdateSet({ count: 499 })).execute();
  const res = await call("POST", "/sprint", { token: agent.token, body: {} });
  assert.equal(res.status, 429);
  assert.equal(res.body.error.code, "RATE_LIMITED");
  assert.ok(res.headers.get("Retry-After"));
});

test("SPRINT-021 a session acting as a sub-agent (X-Svc-SubAgent) cannot write sprints", async () => {
  const { projectId } = await newProject();
  const parent = await pairAgent(projectId, { role: "orchestrator" });
  await subAgentToken(parent, "helper");
  const res = await call("POST", "/sprint", {
    token: parent.token,
    body: {},
    headers: { "X-Svc-SubAgent": "helper" },
  });
  assert.equal(res.status, 403);
  assert.equal(res.body.error.details.recovery.action, "REPAIR_OR_REFRESH");
});

test("SPRINT-030 creating and updating record sprint.created and sprint.updated events", async () => {
  const { agent } = await setup();
  const sprint = await createSprint(agent.token);
  await call("PATCH", `/sprint/${sprint.id}`, { token: agent.token, body: { status: "active" } });
  const { db } = await env();
  const kinds = await db.selectFrom("events").select("kind").where("entity_id", "=", sprint.id).orderBy("seq")
    .execute();
  assert.deepEqual(kinds.map((k) => k.kind), ["sprint.created", "sprint.updated"]);
});
