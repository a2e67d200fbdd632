import assert from "node:assert/strict";
import { call, env, test } from "../helpers/mod.ts";
import { create, setup } from "../tickets/_helpers.ts";

async function begun(reviewMode = "medium") {
  const s = await setup({ reviewMode });
  const ticket = await create(s.agent.token, {
    acceptanceCriteria: [{ title: "It works" }],
    expectedFiles: ["src/a.ts"],
  });
  const begin = await call("POST", "/begin", {
    token: s.agent.token,
    body: { ticketId: ticket.id, files: ["src/a.ts"], acknowledgeCriteria: true },
  });
  assert.equal(begin.status, 200, begin.text);
  return { s, ticket };
}

async function sessionStatus(sessionId: string): Promise<string> {
  const { db } = await env();
  const row = await db.selectFrom("sessions").select("status").where("id", "=", sessionId)
    .executeTakeFirstOrThrow();
  return row.status;
}

test("SESS-017 a successful handoff completes the session and revokes its token", async () => {
  const { s, ticket } = await begun();
  const log = (type: string, content: string) =>
    call("POST", "/ledger", { token: s.agent.token, body: { type, content, ticketId: ticket.id } });
  assert.equal((await log("PROGRESS", "Implemented the change")).status, 201);
  assert.equal((await log("TESTED", "deno test -A passed")).status, 201);
  const handoff = await call("POST", "/handoff", {
    token: s.agent.token,
    body: { moduleName: "a", summary: "Done", sessionId: s.agent.sessionId, ticketId: ticket.id },
  });
  assert.equal(handoff.status, 200, handoff.text);
  assert.equal(await sessionStatus(s.agent.sessionId), "complete");
  assert.equal((await call("GET", "/me", { token: s.agent.token })).status, 401);
});

test("SESS-016 session complete with closeout satisfied completes the session and revokes its token", async () => {
  const { s, ticket } = await begun();
  const log = (type: string, content: string) =>
    call("POST", "/ledger", { token: s.agent.token, body: { type, content, ticketId: ticket.id } });
  await log("PROGRESS", "Implemented the change");
  await log("TESTED", "deno test -A passed");
  const report = await call("POST", `/session/${s.agent.sessionId}/report`, {
    token: s.agent.token,
    body: { git_branch: "main", platform: "claude-code" },
  });
  assert.equal(report.status, 200, report.text);
  const done = await call("POST", "/session/complete", {
    token: s.agent.token,
    body: { sessionId: s.agent.sessionId },
  });
  assert.equal(done.status, 200, done.text);
  assert.deepEqual(done.body.data, { ok: true, sessionId: s.agent.sessionId });
  assert.equal(await sessionStatus(s.agent.sessionId), "complete");
  assert.equal((await call("GET", "/me", { token: s.agent.token })).status, 401);
});

test("TKT-027 reviewHandoff is { summary, changedFiles, branch, prUrl? }", async () => {
  const { s, ticket } = await begun();
  await call("POST", "/ledger", {
    token: s.agent.token,
    body: { type: "TESTED", content: "ok", ticketId: ticket.id },
  });
  const reviewHandoff = {
    summary: "Ready",
    changedFiles: ["src/a.ts"],
    branch: "feat/a",
    prUrl: "https://x.io/pr/1",
  };
  const moved = await call("PATCH", "/ticket", {
    token: s.agent.token,
    body: { ticketId: ticket.id, action: "submit_for_review", reviewHandoff },
  });
  assert.equal(moved.status, 200, moved.text);
  const read = await call("GET", `/ticket?id=${ticket.id}`, { token: s.agent.token });
  const stored = read.body.data.reviewHandoff;
  assert.equal(stored.summary, "Ready");
  assert.deepEqual(stored.changedFiles, ["src/a.ts"]);
  assert.equal(stored.branch, "feat/a");
  assert.equal(stored.prUrl, "https://x.io/pr/1");
});

test("TKT-024 sprint rows carry assigneeAgentId and assigneeAgentName, not assignee", async () => {
  const s = await setup();
  const ticket = await create(s.agent.token, { assignToSelf: true });
  const sprint = await call("POST", "/sprint", { token: s.agent.token, body: { name: "S1" } });
  await call("POST", "/sprint/assign", {
    token: s.agent.token,
    body: { ticketId: ticket.id, sprintId: sprint.body.data.id },
  });
  const active = await call("PATCH", `/sprint/${sprint.body.data.id}`, {
    token: s.agent.token,
    body: { status: "active" },
  });
  assert.equal(active.status, 200, active.text);
  const current = await call("GET", "/sprint/current?include=tickets", { token: s.agent.token });
  assert.equal(current.status, 200, current.text);
  const row = current.body.data.tickets.find((t: { id: string }) => t.id === ticket.id);
  assert.equal(row.assigneeAgentId, s.agent.agentId);
  assert.equal(row.assigneeAgentName, s.agent.name);
  assert.equal("assignee" in row, false);
});
