import assert from "node:assert/strict";
import { advanceClock, call, env, newProject, pairAgent, test } from "../helpers/mod.ts";
import { insertTicket } from "../helpers/fixtures.ts";
import { createSprint, sprintIn } from "./helpers.ts";

async function setup() {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  const sprint = await createSprint(agent.token);
  const ticket = await insertTicket(projectId);
  return { projectId, agent, sprint, ticket };
}

async function ticketSprint(id: string) {
  const { db } = await env();
  return (await db.selectFrom("tickets").select("sprint_id").where("id", "=", id).executeTakeFirstOrThrow())
    .sprint_id;
}

const assign = (token: string, body: Record<string, unknown>) =>
  call("POST", "/sprint/assign", { token, body });

test("SPRINT-042 assign answers { ticketId, sprintId, action: assigned }; null unassigns", async () => {
  const { agent, sprint, ticket } = await setup();
  const res = await assign(agent.token, { ticketId: ticket.id, sprintId: sprint.id });
  assert.equal(res.status, 200);
  assert.deepEqual(res.body.data, { ticketId: ticket.id, sprintId: sprint.id, action: "assigned" });
  assert.equal(await ticketSprint(ticket.id), sprint.id);
  const out = await assign(agent.token, { ticketId: ticket.id, sprintId: null });
  assert.deepEqual(out.body.data, { ticketId: ticket.id, sprintId: null, action: "unassigned" });
  assert.equal(await ticketSprint(ticket.id), null);
});

test("SPRINT-039 CONV-023 ticketId accepts the UUID or the key; both fields are required", async () => {
  const { agent, sprint, ticket } = await setup();
  const byKey = await assign(agent.token, { ticketId: ticket.ref, sprintId: sprint.id });
  assert.equal(byKey.status, 200);
  assert.equal(byKey.body.data.ticketId, ticket.id);
  for (const body of [{ ticketId: ticket.id }, { sprintId: sprint.id }, {}]) {
    const res = await assign(agent.token, body);
    assert.equal(res.status, 400, JSON.stringify(body));
    assert.equal(res.body.error.code, "VALIDATION_ERROR");
  }
});

test("SPRINT-043 already in the requested state answers idempotent: true, noop: true", async () => {
  const { agent, sprint, ticket } = await setup();
  await assign(agent.token, { ticketId: ticket.id, sprintId: sprint.id });
  const again = await assign(agent.token, { ticketId: ticket.id, sprintId: sprint.id });
  assert.equal(again.status, 200);
  assert.equal(again.body.data.idempotent, true);
  assert.equal(again.body.data.noop, true);
  assert.equal(again.body.data.action, "assigned");
  const { projectId } = await setup();
  const loose = await insertTicket(projectId);
  const agent2 = await pairAgent(projectId);
  const none = await assign(agent2.token, { ticketId: loose.id, sprintId: null });
  assert.equal(none.body.data.noop, true);
  assert.equal(none.body.data.idempotent, true);
  assert.equal(none.body.data.action, "unassigned");
});

test("SPRINT-040 idempotencyKey is at most 120 characters", async () => {
  const { agent, sprint, ticket } = await setup();
  const ok = await assign(agent.token, {
    ticketId: ticket.id,
    sprintId: sprint.id,
    idempotencyKey: "k".repeat(120),
  });
  assert.equal(ok.status, 200);
  const bad = await assign(agent.token, {
    ticketId: ticket.id,
    sprintId: sprint.id,
    idempotencyKey: "k".repeat(121),
  });
  assert.equal(bad.status, 400);
  assert.equal(bad.body.error.code, "VALIDATION_ERROR");
});

test("SPRINT-041 repeating an idempotencyKey within 60 seconds returns the earlier result and changes nothing", async () => {
  const { agent, sprint, ticket } = await setup();
  const first = await assign(agent.token, {
    ticketId: ticket.id,
    sprintId: sprint.id,
    idempotencyKey: "move-1",
  });
  assert.equal(first.status, 200);
  await assign(agent.token, { ticketId: ticket.id, sprintId: null });
  const replay = await assign(agent.token, {
    ticketId: ticket.id,
    sprintId: sprint.id,
    idempotencyKey: "move-1",
  });
  assert.equal(replay.status, 200);
  assert.deepEqual(replay.body.data, first.body.data);
  assert.equal(replay.headers.get("Idempotent-Replayed"), "true");
  assert.equal(await ticketSprint(ticket.id), null, "the replay wrote nothing");
  await advanceClock(61_000);
  const fresh = await assign(agent.token, {
    ticketId: ticket.id,
    sprintId: sprint.id,
    idempotencyKey: "move-1",
  });
  assert.equal(fresh.headers.get("Idempotent-Replayed"), null);
  assert.equal(await ticketSprint(ticket.id), sprint.id, "after 60 seconds the key is new again");
});

test("SPRINT-041 concurrent requests with one idempotencyKey apply once", async () => {
  const { agent, sprint, ticket } = await setup();
  const results = await Promise.all(
    Array.from(
      { length: 10 },
      () => assign(agent.token, { ticketId: ticket.id, sprintId: sprint.id, idempotencyKey: "same" }),
    ),
  );
  assert.ok(results.every((r) => r.status === 200), results.map((r) => r.text).join("\n"));
  // The same answer everywhere: the first result, replayed (header) to every other request.
  for (const r of results) {
    assert.deepEqual(r.body.data, { ticketId: ticket.id, sprintId: sprint.id, action: "assigned" });
  }
  assert.equal(results.filter((r) => r.headers.get("Idempotent-Replayed") === null).length, 1);
  const { db } = await env();
  const events = await db.selectFrom("events").select("kind").where("entity_id", "=", ticket.id)
    .where("kind", "=", "sprint.ticket_assigned").execute();
  assert.equal(events.length, 1);
  assert.equal(await ticketSprint(ticket.id), sprint.id);
  const records = await db.selectFrom("idempotency_records").select("key").where("key", "=", "same")
    .where("scope", "like", `%${agent.agentId}`).execute();
  assert.equal(records.length, 1);
});

test("SPRINT-044 CONV-029 a malformed sprintId (or a sprint number) answers 400 with recovery LIST_SPRINTS", async () => {
  const { agent, sprint, ticket } = await setup();
  for (const sprintId of ["not-a-uuid", sprint.number, String(sprint.number)]) {
    const res = await assign(agent.token, { ticketId: ticket.id, sprintId });
    assert.equal(res.status, 400, String(sprintId));
    assert.equal(res.body.error.code, "VALIDATION_ERROR");
    assert.equal(res.body.error.details.recovery.action, "LIST_SPRINTS");
  }
});

test("SPRINT-045 a malformed ticket reference answers 400 with recovery RESOLVE_TICKET_REF", async () => {
  const { agent, sprint } = await setup();
  for (const ticketId of ["#12", "pa-1", "", "not a ref"]) {
    const res = await assign(agent.token, { ticketId, sprintId: sprint.id });
    assert.equal(res.status, 400, ticketId);
    assert.equal(res.body.error.details.recovery.action, "RESOLVE_TICKET_REF");
  }
});

test("SPRINT-046 an unknown ticket answers 404 TICKET_NOT_FOUND", async () => {
  const { agent, sprint } = await setup();
  for (const ticketId of [crypto.randomUUID(), "ZZZ-999"]) {
    const res = await assign(agent.token, { ticketId, sprintId: sprint.id });
    assert.equal(res.status, 404);
    assert.equal(res.body.error.code, "TICKET_NOT_FOUND");
    assert.equal(res.body.error.details.recovery.action, "RESOLVE_TICKET_REF");
  }
});

test("SPRINT-047 an unknown sprint answers 404 NOT_FOUND", async () => {
  const { agent, ticket } = await setup();
  const res = await assign(agent.token, { ticketId: ticket.id, sprintId: crypto.randomUUID() });
  assert.equal(res.status, 404);
  assert.equal(res.body.error.code, "NOT_FOUND");
  assert.equal(res.body.error.details.recovery.action, "LIST_SPRINTS");
  const elsewhere = await setup();
  const foreign = await assign(agent.token, { ticketId: ticket.id, sprintId: elsewhere.sprint.id });
  assert.equal(foreign.status, 404);
});

test("SPRINT-042 assigning into a finished sprint answers 422 VALIDATION_ERROR (design)", async () => {
  const { agent, ticket } = await setup();
  for (const status of ["complete", "archived", "cancelled"]) {
    const closed = await sprintIn(agent.token, status);
    const res = await assign(agent.token, { ticketId: ticket.id, sprintId: closed.id });
    assert.equal(res.status, 422, status);
    assert.equal(res.body.error.code, "VALIDATION_ERROR");
  }
  assert.equal(await ticketSprint(ticket.id), null);
});
