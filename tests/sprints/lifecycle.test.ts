import assert from "node:assert/strict";
import { call, env, newProject, pairAgent, test } from "../helpers/mod.ts";
import { insertTicket } from "../helpers/fixtures.ts";
import { createSprint, setStatus, sprintIn } from "./helpers.ts";

async function setup() {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  return { projectId, agent };
}

async function sprintRow(id: string) {
  const { db } = await env();
  return await db.selectFrom("sprints").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
}

async function ticketSprint(id: string) {
  const { db } = await env();
  return (await db.selectFrom("tickets").select("sprint_id").where("id", "=", id).executeTakeFirstOrThrow())
    .sprint_id;
}

test("SPRINT-007 SPRINT-008 planning → active sets the start date to now when absent", async () => {
  const { agent } = await setup();
  const sprint = await createSprint(agent.token);
  const res = await setStatus(agent.token, sprint.id, "active");
  assert.equal(res.status, 200);
  assert.equal(res.body.data.status, "active");
  const row = await sprintRow(sprint.id);
  assert.ok(row.start_date);
  const { clock } = await env();
  assert.ok(Math.abs(Date.parse(row.start_date!) - clock.now().getTime()) < 60_000);
  assert.ok(row.started_at);
});

test("SPRINT-008 activating keeps an existing start date", async () => {
  const { agent } = await setup();
  const sprint = await createSprint(agent.token, { startDate: "2026-04-01" });
  await setStatus(agent.token, sprint.id, "active");
  assert.equal((await sprintRow(sprint.id)).start_date, "2026-04-01");
});

test("SPRINT-009 SPRINT-004 active → complete sets completedAt", async () => {
  const { agent } = await setup();
  const sprint = await sprintIn(agent.token, "active");
  const res = await setStatus(agent.token, sprint.id, "complete");
  assert.equal(res.status, 200);
  assert.equal(res.body.data.status, "complete");
  const listed = (await call("GET", "/sprint", { token: agent.token })).body.data[0];
  assert.ok(listed.completedAt);
});

test("SPRINT-010 completing moves non-done tickets out; done tickets stay", async () => {
  const { agent, projectId } = await setup();
  const sprint = await sprintIn(agent.token, "active");
  const done = await insertTicket(projectId, { status: "done", sprintId: sprint.id });
  const open = await insertTicket(projectId, { status: "in_progress", sprintId: sprint.id });
  const cancelled = await insertTicket(projectId, { status: "cancelled", sprintId: sprint.id });
  const res = await setStatus(agent.token, sprint.id, "complete");
  assert.equal(res.status, 200);
  assert.equal(await ticketSprint(done.id), sprint.id);
  assert.equal(await ticketSprint(open.id), null);
  assert.equal(await ticketSprint(cancelled.id), null);
  assert.deepEqual([...res.body.data.removedTicketIds].sort(), [open.id, cancelled.id].sort());
});

test("SPRINT-011 SPRINT-013 SPRINT-037 completion returns releaseNotes built from the done tickets", async () => {
  const { agent, projectId } = await setup();
  const sprint = await sprintIn(agent.token, "active", { name: "Checkout", goal: "Pay" });
  const a = await insertTicket(projectId, {
    status: "done",
    sprintId: sprint.id,
    title: "Card form",
    assignee: agent.agentId,
  });
  const b = await insertTicket(projectId, { status: "done", sprintId: sprint.id, title: "Receipt" });
  const c = await insertTicket(projectId, { status: "review", sprintId: sprint.id, title: "Refunds" });
  const res = await setStatus(agent.token, sprint.id, "complete");
  const notes = res.body.data.releaseNotes;
  assert.ok(notes);
  assert.equal(notes.title, `Sprint ${sprint.number}: Checkout`);
  assert.deepEqual(notes.summary, { done: 2, carriedOver: 1, storyPointsDone: 0 });
  assert.deepEqual(notes.items.map((i: { ticketRef: string }) => i.ticketRef), [a.ref, b.ref]);
  assert.equal(notes.items[0].assigneeAgentName, agent.name);
  assert.deepEqual(notes.carriedOver.map((i: { ticketId: string }) => i.ticketId), [c.id]);
  assert.match(notes.markdown, /Card form/);
  assert.match(notes.markdown, /Carried over/);
  assert.ok("releasePublish" in res.body.data);
  assert.deepEqual((await sprintRow(sprint.id)).release_notes, notes);
});

test("SPRINT-012 SPRINT-013 a sprint with done work publishes its release to the ledger and events", async () => {
  const { agent, projectId } = await setup();
  const sprint = await sprintIn(agent.token, "active");
  await insertTicket(projectId, { status: "done", sprintId: sprint.id });
  const res = await setStatus(agent.token, sprint.id, "complete");
  const publish = res.body.data.releasePublish;
  assert.equal(publish.published, true);
  assert.equal(publish.channel, "ledger");
  assert.equal(publish.version, `sprint-${sprint.number}`);
  assert.equal(publish.eventKind, "sprint.released");
  const { db } = await env();
  const entry = await db.selectFrom("ledger_entries").select(["type", "source"]).where(
    "id",
    "=",
    publish.ledgerEntryId,
  )
    .executeTakeFirstOrThrow();
  assert.deepEqual(entry, { type: "STATUS", source: "system" });
  const event = await db.selectFrom("events").select("kind").where("project_id", "=", projectId)
    .where("kind", "=", "sprint.released").execute();
  assert.equal(event.length, 1);
});

test("SPRINT-012 SPRINT-013 a sprint with nothing done publishes nothing (reason no_done_tickets)", async () => {
  const { agent, projectId } = await setup();
  const sprint = await sprintIn(agent.token, "active");
  await insertTicket(projectId, { status: "backlog", sprintId: sprint.id });
  const res = await setStatus(agent.token, sprint.id, "complete");
  assert.deepEqual(res.body.data.releasePublish, {
    published: false,
    reason: "no_done_tickets",
    channel: null,
    ledgerEntryId: null,
    eventKind: null,
    version: null,
  });
  assert.equal(res.body.data.releaseNotes.summary.done, 0);
});

test("SPRINT-014 complete → archived", async () => {
  const { agent } = await setup();
  const sprint = await sprintIn(agent.token, "complete");
  const res = await setStatus(agent.token, sprint.id, "archived");
  assert.equal(res.status, 200);
  assert.equal(res.body.data.status, "archived");
});

test("SPRINT-015 planning → cancelled", async () => {
  const { agent } = await setup();
  const sprint = await createSprint(agent.token);
  const res = await setStatus(agent.token, sprint.id, "cancelled");
  assert.equal(res.status, 200);
  assert.equal(res.body.data.status, "cancelled");
});

test("SPRINT-016 SPRINT-017 active → cancelled moves non-done tickets out", async () => {
  const { agent, projectId } = await setup();
  const sprint = await sprintIn(agent.token, "active");
  const done = await insertTicket(projectId, { status: "done", sprintId: sprint.id });
  const open = await insertTicket(projectId, { status: "backlog", sprintId: sprint.id });
  const res = await setStatus(agent.token, sprint.id, "cancelled");
  assert.equal(res.status, 200);
  assert.equal(res.body.data.status, "cancelled");
  assert.equal(await ticketSprint(open.id), null);
  assert.equal(await ticketSprint(done.id), sprint.id);
  assert.equal(res.body.data.releaseNotes, undefined);
});

test("SPRINT-017 cancelling a planning sprint also moves its non-done tickets out", async () => {
  const { agent, projectId } = await setup();
  const sprint = await createSprint(agent.token);
  const open = await insertTicket(projectId, { status: "in_progress", sprintId: sprint.id });
  await setStatus(agent.token, sprint.id, "cancelled");
  assert.equal(await ticketSprint(open.id), null);
});

test("SPRINT-018 activating a second sprint answers 422 VALIDATION_ERROR", async () => {
  const { agent } = await setup();
  await sprintIn(agent.token, "active");
  const second = await createSprint(agent.token);
  const res = await setStatus(agent.token, second.id, "active");
  assert.equal(res.status, 422);
  assert.equal(res.body.error.code, "VALIDATION_ERROR");
  assert.equal((await sprintRow(second.id)).status, "planning");
  const elsewhere = await setup();
  const other = await createSprint(elsewhere.agent.token);
  assert.equal((await setStatus(elsewhere.agent.token, other.id, "active")).status, 200, "per project");
});

test("SPRINT-018 two sprints activated at once: exactly one succeeds", async () => {
  const { agent, projectId } = await setup();
  const sprints = [];
  for (let i = 0; i < 3; i++) sprints.push(await createSprint(agent.token));
  const results = await Promise.all(sprints.map((s) => setStatus(agent.token, s.id, "active")));
  assert.deepEqual(results.map((r) => r.status).sort(), [200, 422, 422]);
  for (const r of results.filter((r) => r.status === 422)) {
    assert.equal(r.body.error.code, "VALIDATION_ERROR");
  }
  const { db } = await env();
  const active = await db.selectFrom("sprints").select("id").where("project_id", "=", projectId)
    .where("status", "=", "active").execute();
  assert.equal(active.length, 1);
});

test("SPRINT-019 every transition not in the table answers 422 VALIDATION_ERROR", async () => {
  const { agent } = await setup();
  const illegal: [string, string][] = [
    ["planning", "planning"],
    ["planning", "complete"],
    ["planning", "archived"],
    ["active", "active"],
    ["active", "planning"],
    ["active", "archived"],
    ["complete", "active"],
    ["complete", "planning"],
    ["complete", "cancelled"],
    ["complete", "complete"],
    ["archived", "complete"],
    ["archived", "active"],
    ["archived", "cancelled"],
    ["cancelled", "planning"],
    ["cancelled", "active"],
  ];
  for (const [from, to] of illegal) {
    const sprint = await sprintIn(agent.token, from);
    const res = await setStatus(agent.token, sprint.id, to);
    assert.equal(res.status, 422, `${from} → ${to}: ${res.text}`);
    assert.equal(res.body.error.code, "VALIDATION_ERROR");
    assert.equal((await sprintRow(sprint.id)).status, from);
    if (from === "active") await setStatus(agent.token, sprint.id, "cancelled");
  }
});

test("SPRINT-033 SPRINT-036 PATCH edits fields and answers { id, status, name, updatedFields }", async () => {
  const { agent } = await setup();
  const sprint = await createSprint(agent.token, { goal: "old", startDate: "2026-05-01", capacityPoints: 5 });
  const res = await call("PATCH", `/sprint/${sprint.id}`, {
    token: agent.token,
    body: { name: "Renamed", startDate: null, endDate: "2026-05-20", capacityPoints: null },
  });
  assert.equal(res.status, 200);
  assert.deepEqual(Object.keys(res.body.data).sort(), ["id", "name", "status", "updatedFields"]);
  assert.equal(res.body.data.name, "Renamed");
  assert.equal(res.body.data.status, "planning");
  assert.deepEqual([...res.body.data.updatedFields].sort(), [
    "capacityPoints",
    "endDate",
    "name",
    "startDate",
  ]);
  const row = await sprintRow(sprint.id);
  assert.equal(row.start_date, null);
  assert.equal(row.end_date, "2026-05-20");
  assert.equal(row.capacity_points, null);
  assert.equal(row.goal, "old");
  const bad = await call("PATCH", `/sprint/${sprint.id}`, {
    token: agent.token,
    body: { capacityPoints: 10000 },
  });
  assert.equal(bad.status, 400);
  const early = await call("PATCH", `/sprint/${sprint.id}`, {
    token: agent.token,
    body: { startDate: "2026-05-21" },
  });
  assert.equal(early.status, 400, "the new start would follow the stored end");
  assert.equal(early.body.error.details.recovery.action, "FIX_SPRINT_FIELDS");
});

test("SPRINT-034 an empty goal string clears the goal", async () => {
  const { agent } = await setup();
  const sprint = await createSprint(agent.token, { goal: "Something" });
  const res = await call("PATCH", `/sprint/${sprint.id}`, { token: agent.token, body: { goal: "" } });
  assert.equal(res.status, 200);
  assert.equal((await sprintRow(sprint.id)).goal, null);
});

test("SPRINT-035 a PATCH with no field answers 400", async () => {
  const { agent } = await setup();
  const sprint = await createSprint(agent.token);
  const res = await call("PATCH", `/sprint/${sprint.id}`, { token: agent.token, body: {} });
  assert.equal(res.status, 400);
  assert.equal(res.body.error.code, "VALIDATION_ERROR");
});

test("SPRINT-038 PATCH of an unknown sprint answers 404 NOT_FOUND; a malformed id 400", async () => {
  const { agent } = await setup();
  const res = await call("PATCH", `/sprint/${crypto.randomUUID()}`, {
    token: agent.token,
    body: { name: "x" },
  });
  assert.equal(res.status, 404);
  assert.equal(res.body.error.code, "NOT_FOUND");
  assert.equal(res.body.error.details.recovery.action, "LIST_SPRINTS");
  const elsewhere = await setup();
  const foreign = await createSprint(elsewhere.agent.token);
  assert.equal(
    (await call("PATCH", `/sprint/${foreign.id}`, { token: agent.token, body: { name: "x" } })).status,
    404,
  );
  const malformed = await call("PATCH", "/sprint/7", { token: agent.token, body: { name: "x" } });
  assert.equal(malformed.status, 400);
  assert.equal(malformed.body.error.details.recovery.action, "LIST_SPRINTS");
});
