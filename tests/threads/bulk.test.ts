import assert from "node:assert/strict";
import { call, env, newProject, pairAgent, test } from "../helpers/mod.ts";
import { subAgentToken } from "../brief/helpers.ts";

async function open(token: string, intent = "topic") {
  const res = await call("POST", "/thread", { token, body: { intent } });
  assert.equal(res.status, 201, res.text);
  return res.body.data.id as string;
}

async function statusOf(id: string) {
  const { db } = await env();
  const row = await db.selectFrom("threads").select(["status", "outcome"]).where("id", "=", id)
    .executeTakeFirstOrThrow();
  return row;
}

async function alerts(projectId: string) {
  const { db } = await env();
  return await db.selectFrom("ledger_entries").select(["type", "source", "payload", "content"])
    .where("project_id", "=", projectId).where("type", "=", "ALERT").execute();
}

test("THREAD-034 close-bulk requires outcome 1 to 2000 and validates its filters", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  for (
    const body of [
      { mine: true },
      { mine: true, outcome: "" },
      { mine: true, outcome: "x".repeat(2001) },
      { outcome: "x", mine: "yes" },
      { outcome: "x", agentId: "not-a-uuid" },
      { outcome: "x", mine: true, subAgentName: "s".repeat(65) },
    ]
  ) {
    const res = await call("POST", "/thread/close-bulk", { token: agent.token, body });
    assert.equal(res.status, 400, JSON.stringify(body));
    assert.equal(res.body.error.code, "VALIDATION_ERROR");
  }
  for (const outcome of ["x", "y".repeat(2000)]) {
    const res = await call("POST", "/thread/close-bulk", {
      token: agent.token,
      body: { outcome, mine: true, subAgentName: "s".repeat(64) },
    });
    assert.equal(res.status, 200);
  }
});

test("THREAD-035 a non-orchestrator must scope the bulk close (403 SCOPE_BULK_CLOSE)", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  const id = await open(agent.token);
  for (const body of [{ outcome: "x" }, { outcome: "x", mine: false }, { outcome: "x", subAgentName: "w" }]) {
    const res = await call("POST", "/thread/close-bulk", { token: agent.token, body });
    assert.equal(res.status, 403, JSON.stringify(body));
    assert.equal(res.body.error.code, "FORBIDDEN");
    assert.equal(res.body.error.details.recovery.action, "SCOPE_BULK_CLOSE");
  }
  assert.equal((await statusOf(id)).status, "open");
});

test("THREAD-035 THREAD-038 mine: true closes only your own threads; own agentId works too", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  const other = await pairAgent(projectId);
  const mine = [await open(agent.token), await open(agent.token)];
  const theirs = await open(other.token);
  const res = await call("POST", "/thread/close-bulk", {
    token: agent.token,
    body: { outcome: "wrap", mine: true },
  });
  assert.equal(res.status, 200);
  assert.equal(res.body.data.closed, 2);
  assert.deepEqual([...res.body.data.threadIds].sort(), [...mine].sort());
  assert.deepEqual(Object.keys(res.body.data).sort(), ["closed", "threadIds"]);
  assert.equal((await statusOf(theirs)).status, "open");
  assert.equal((await statusOf(mine[0]!)).outcome, "wrap");
  const third = await open(agent.token);
  const byId = await call("POST", "/thread/close-bulk", {
    token: agent.token,
    body: { outcome: "again", agentId: agent.agentId },
  });
  assert.equal(byId.status, 200);
  assert.deepEqual(byId.body.data, { closed: 1, threadIds: [third] });
});

test("THREAD-036 a non-orchestrator passing another agent's agentId answers 403 SCOPE_BULK_CLOSE", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  const other = await pairAgent(projectId);
  const theirs = await open(other.token);
  for (
    const body of [{ outcome: "x", agentId: other.agentId }, {
      outcome: "x",
      mine: true,
      agentId: other.agentId,
    }]
  ) {
    const res = await call("POST", "/thread/close-bulk", { token: agent.token, body });
    assert.equal(res.status, 403);
    assert.equal(res.body.error.details.recovery.action, "SCOPE_BULK_CLOSE");
  }
  assert.equal((await statusOf(theirs)).status, "open");
});

test("THREAD-037 an orchestrator may bulk-close unfiltered: every open thread of the project", async () => {
  const { projectId } = await newProject();
  const boss = await pairAgent(projectId, { role: "orchestrator" });
  const a = await pairAgent(projectId);
  const b = await pairAgent(projectId);
  const ids = [await open(a.token), await open(b.token), await open(boss.token)];
  const elsewhere = await newProject();
  const stranger = await pairAgent(elsewhere.projectId);
  const foreign = await open(stranger.token);
  const res = await call("POST", "/thread/close-bulk", {
    token: boss.token,
    body: { outcome: "sprint over" },
  });
  assert.equal(res.status, 200);
  assert.equal(res.body.data.closed, 3);
  assert.deepEqual([...res.body.data.threadIds].sort(), [...ids].sort());
  assert.equal((await statusOf(foreign)).status, "open");
  const filtered = await open(a.token);
  const other = await open(b.token);
  const byAgent = await call("POST", "/thread/close-bulk", {
    token: boss.token,
    body: { outcome: "only a", agentId: a.agentId },
  });
  assert.deepEqual(byAgent.body.data, { closed: 1, threadIds: [filtered] });
  assert.equal((await statusOf(other)).status, "open");
});

test("THREAD-039 closing more than 5 threads in one call records an ALERT; 5 does not", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  for (let i = 0; i < 5; i++) await open(agent.token);
  const five = await call("POST", "/thread/close-bulk", {
    token: agent.token,
    body: { outcome: "five", mine: true },
  });
  assert.equal(five.body.data.closed, 5);
  assert.equal((await alerts(projectId)).length, 0);
  for (let i = 0; i < 6; i++) await open(agent.token);
  const six = await call("POST", "/thread/close-bulk", {
    token: agent.token,
    body: { outcome: "six", mine: true },
  });
  assert.equal(six.body.data.closed, 6);
  const rows = await alerts(projectId);
  assert.equal(rows.length, 1);
  assert.equal(rows[0]!.source, "system");
  assert.equal(rows[0]!.payload?.closed, 6);
  assert.deepEqual(
    [...(rows[0]!.payload?.threadIds as string[])].sort(),
    [...six.body.data.threadIds].sort(),
  );
});

test("THREAD-035 a sub-agent's mine: true closes only the threads that sub-agent opened", async () => {
  const { projectId } = await newProject();
  const parent = await pairAgent(projectId);
  const sub = await subAgentToken(parent, "worker");
  const parentThread = await open(parent.token);
  const subThread = await open(sub);
  const res = await call("POST", "/thread/close-bulk", { token: sub, body: { outcome: "done", mine: true } });
  assert.deepEqual(res.body.data, { closed: 1, threadIds: [subThread] });
  assert.equal((await statusOf(parentThread)).status, "open");
});

test("THREAD-001 a thread opened by a sub-agent records subAgentName on the thread and its messages", async () => {
  const { projectId } = await newProject();
  const parent = await pairAgent(projectId);
  const sub = await subAgentToken(parent, "scout");
  const id = await open(sub);
  await call("POST", `/thread/${id}/reply`, { token: sub, body: { content: "found it" } });
  const thread = (await call("GET", `/thread/${id}`, { token: parent.token })).body.data;
  assert.equal(thread.agentId, parent.agentId);
  assert.equal(thread.subAgentName, "scout");
  assert.equal(thread.messages[0].subAgentName, "scout");
  assert.equal(thread.messages[0].authorName, parent.name);
});
