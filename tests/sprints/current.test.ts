import assert from "node:assert/strict";
import { call, newProject, pairAgent, test } from "../helpers/mod.ts";
import { insertTicket } from "../helpers/fixtures.ts";
import { createSprint, setStatus, sprintIn } from "./helpers.ts";

test("SPRINT-051 GET /sprint/current without an active sprint answers 404 NO_ACTIVE_SPRINT", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  await createSprint(agent.token);
  const res = await call("GET", "/sprint/current", { token: agent.token });
  assert.equal(res.status, 404);
  assert.equal(res.body.error.code, "NO_ACTIVE_SPRINT");
  await sprintIn(agent.token, "complete");
  assert.equal(
    (await call("GET", "/sprint/current", { token: agent.token })).body.error.code,
    "NO_ACTIVE_SPRINT",
  );
});

test("SPRINT-048 SPRINT-005 current sprint and summary shapes; startedAt, not startDate", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  const other = await pairAgent(projectId);
  const sprint = await sprintIn(agent.token, "active", { name: "Now", goal: "Finish" });
  await insertTicket(projectId, { status: "done", sprintId: sprint.id, assignee: agent.agentId });
  await insertTicket(projectId, {
    status: "in_progress",
    sprintId: sprint.id,
    assignee: agent.agentId,
  });
  await insertTicket(projectId, { status: "in_review", sprintId: sprint.id, assignee: other.agentId });
  await insertTicket(projectId, { status: "backlog", sprintId: sprint.id });
  await insertTicket(projectId, { status: "cancelled", sprintId: sprint.id });
  await insertTicket(projectId, { status: "done" });
  const res = await call("GET", "/sprint/current", { token: agent.token });
  assert.equal(res.status, 200);
  const { sprint: s, summary } = res.body.data;
  assert.deepEqual(Object.keys(s).sort(), [
    "completedAt",
    "goal",
    "id",
    "name",
    "number",
    "startedAt",
    "status",
  ]);
  assert.equal(s.id, sprint.id);
  assert.equal(s.status, "active");
  assert.ok(s.startedAt);
  assert.equal(s.completedAt, null);
  assert.equal("startDate" in s, false);
  assert.equal(summary.total, 5);
  assert.deepEqual(summary.byStatus, { done: 1, in_progress: 1, in_review: 1, backlog: 1, cancelled: 1 });
  assert.equal(summary.completionPct, 25, "1 done of 4 non-cancelled");
  const byName = Object.fromEntries(
    summary.agentProgress.map((p: { agentName: string }) => [p.agentName, p]),
  );
  assert.equal(byName[agent.name].inProgress, 1);
  assert.equal(byName[agent.name].done, 1);
  assert.equal(byName[agent.name].inReview, 0);
  assert.equal(byName[other.name].inReview, 1);
  for (const p of summary.agentProgress) {
    for (const key of ["agentName", "inProgress", "inReview", "done"]) assert.ok(key in p, key);
  }
});

test("SPRINT-050 inReview counts only the literal status in_review", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  const sprint = await sprintIn(agent.token, "active");
  for (const status of ["review", "needs_review", "qa", "in_review"]) {
    await insertTicket(projectId, { status, sprintId: sprint.id, assignee: agent.agentId });
  }
  const res = await call("GET", "/sprint/current", { token: agent.token });
  assert.equal(res.body.data.summary.agentProgress[0].inReview, 1);
});

test("SPRINT-049 tickets only with include=tickets, as sprint rows with assigneeAgentId/Name", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  const sprint = await sprintIn(agent.token, "active");
  const t = await insertTicket(projectId, {
    status: "in_progress",
    sprintId: sprint.id,
    assignee: agent.agentId,
  });
  const plain = await call("GET", "/sprint/current", { token: agent.token });
  assert.equal("tickets" in plain.body.data, false);
  const withTickets = await call("GET", "/sprint/current?include=tickets", { token: agent.token });
  assert.equal(withTickets.status, 200);
  const rows = withTickets.body.data.tickets;
  assert.equal(rows.length, 1);
  assert.equal(rows[0].id, t.id);
  assert.equal(rows[0].ticketRef, t.ref);
  assert.equal(rows[0].assigneeAgentId, agent.agentId);
  assert.equal(rows[0].assigneeAgentName, agent.name);
  assert.equal("assignee" in rows[0], false);
  const bad = await call("GET", "/sprint/current?include=tickts", { token: agent.token });
  assert.equal(bad.status, 400);
});

test("SPRINT-048 an empty active sprint reports zero totals and completionPct 0", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  const sprint = await createSprint(agent.token);
  await setStatus(agent.token, sprint.id, "active");
  const res = await call("GET", "/sprint/current", { token: agent.token });
  assert.deepEqual(res.body.data.summary, { total: 0, byStatus: {}, completionPct: 0, agentProgress: [] });
});

test("SPRINT-011 GET /sprint/{sprintId} returns the sprint with its stored release notes", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  const sprint = await sprintIn(agent.token, "active");
  await insertTicket(projectId, { status: "done", sprintId: sprint.id, title: "Shipped" });
  const before = await call("GET", `/sprint/${sprint.id}`, { token: agent.token });
  assert.equal(before.status, 200);
  assert.equal(before.body.data.releaseNotes, null);
  const completed = await setStatus(agent.token, sprint.id, "complete");
  const after = await call("GET", `/sprint/${sprint.id}`, { token: agent.token });
  assert.deepEqual(after.body.data.releaseNotes, completed.body.data.releaseNotes);
  assert.equal(after.body.data.status, "complete");
  const unknown = await call("GET", `/sprint/${crypto.randomUUID()}`, { token: agent.token });
  assert.equal(unknown.status, 404);
  assert.equal(unknown.body.error.code, "NOT_FOUND");
  const malformed = await call("GET", "/sprint/12", { token: agent.token });
  assert.equal(malformed.status, 400);
  assert.equal(malformed.body.error.details.recovery.action, "LIST_SPRINTS");
  assert.equal(
    (await call("GET", "/sprint/current", { token: agent.token })).body.error.code,
    "NO_ACTIVE_SPRINT",
  );
});

test("SPRINT-005 SPRINT-008 startedAt is the start date the sprint was planned with, else the activation time", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  const planned = await sprintIn(agent.token, "active", { startDate: "2026-01-05", endDate: "2026-01-19" });
  const res = await call("GET", "/sprint/current", { token: agent.token });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.data.sprint.id, planned.id);
  assert.equal(
    res.body.data.sprint.startedAt,
    "2026-01-05",
    "the planned startDate, not the activation time",
  );
  assert.equal((await setStatus(agent.token, planned.id, "complete")).status, 200);

  const unplanned = await sprintIn(agent.token, "active");
  const now = await call("GET", "/sprint/current", { token: agent.token });
  const stored = await call("GET", `/sprint/${unplanned.id}`, { token: agent.token });
  assert.equal(stored.status, 200, stored.text);
  const startDate = stored.body.data.startDate ?? stored.body.data.sprint?.startDate;
  assert.ok(startDate, "activation set the start date");
  assert.equal(now.body.data.sprint.startedAt, startDate);
  assert.ok(Date.parse(now.body.data.sprint.startedAt) >= Date.parse(unplanned.createdAt));
});
