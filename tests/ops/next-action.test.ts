import assert from "node:assert/strict";
import { call, newProject, pairAgent, test } from "../helpers/mod.ts";

/** Fills the hint's `<placeholders>` the way an agent would. */
function fill(hint: Record<string, unknown> | null, sessionId: string): Record<string, unknown> {
  const text = JSON.stringify(hint ?? {})
    .replace(/"<sessionId>"/g, JSON.stringify(sessionId))
    .replace(/"<[^">]+>"/g, '"filled in by the agent"');
  return JSON.parse(text);
}

for (const reviewMode of ["medium", "strict", "light"]) {
  test(`TKT-120 a new ticket's nextAction chain (${reviewMode}) reaches in_progress without a refused call`, async () => {
    const { projectId } = await newProject({ reviewMode });
    const agent = await pairAgent(projectId);
    const brief = await call("PATCH", "/brief", {
      token: agent.token,
      body: { scope: "A small demo project" },
    });
    assert.equal(brief.status, 200, brief.text);
    const created = await call("POST", "/ticket", {
      token: agent.token,
      body: {
        title: "No criteria yet",
        expectedFiles: ["src/a.ts"],
        doneDefinition: "The module works as described",
        verificationCommand: "deno test src/a.test.ts",
        riskClass: "local",
      },
    });
    assert.equal(created.status, 201, created.text);
    let nextAction = created.body.data.nextAction;
    const followed: string[] = [];
    for (let step = 0; step < 4 && nextAction.endpoint; step++) {
      const [method, path] = nextAction.endpoint.split(" ");
      const res = await call(method, path, {
        token: agent.token,
        body: fill(nextAction.payloadHint, agent.sessionId),
      });
      followed.push(`${nextAction.action} ${res.status}`);
      assert.ok(res.status < 300, `${nextAction.action} ${nextAction.endpoint} was refused: ${res.text}`);
      if (res.body.data.ticket?.status === "in_progress") break;
      nextAction = res.body.data.nextAction;
    }
    const ticket = await call("GET", `/ticket?id=${created.body.data.id}`, { token: agent.token });
    assert.equal(ticket.body.data.status, "in_progress", followed.join(", "));
  });
}

test("HAND-043 after a handoff that closes the caller's token, nextAction says to pair again before any other call", async () => {
  const { projectId } = await newProject({ reviewMode: "medium" });
  const agent = await pairAgent(projectId);
  await call("PATCH", "/brief", { token: agent.token, body: { scope: "A small demo project" } });
  const ticket = (title: string) => ({
    title,
    expectedFiles: ["src/login.ts"],
    doneDefinition: "A user can sign in with email and password",
    verificationCommand: "deno test src/login.test.ts",
    riskClass: "local",
    acceptanceCriteria: [{ title: "Valid credentials sign in", requiresEvidence: false }],
  });
  const created = await call("POST", "/ticket", { token: agent.token, body: ticket("Login form") });
  assert.equal(created.status, 201, created.text);
  const ticketId = created.body.data.id;
  const begun = await call("POST", "/begin", {
    token: agent.token,
    body: { ticketId, files: ["src/login.ts"], acknowledgeCriteria: true },
  });
  assert.equal(begun.status, 200, begun.text);
  for (const type of ["PROGRESS", "TESTED"]) {
    const entry = await call("POST", "/ledger", {
      token: agent.token,
      body: { type, content: "Built and tested the form", sessionId: agent.sessionId, ticketId },
    });
    assert.equal(entry.status, 201, entry.text);
  }
  // Another open ticket, so that the suggestion is to pick it (a call that needs a working token).
  const other = await call("POST", "/ticket", { token: agent.token, body: ticket("Sign-out button") });
  assert.equal(other.status, 201, other.text);
  const handoff = await call("POST", "/handoff", {
    token: agent.token,
    body: { moduleName: "login", summary: "Login form", sessionId: agent.sessionId, ticketId },
  });
  assert.equal(handoff.status, 200, handoff.text);
  const next = handoff.body.data.nextAction;
  assert.equal(next.action, "PICK_TICKET");
  assert.match(next.message, /^This session is over .*POST \/pair\/connect/);
  assert.equal((await call("GET", "/board", { token: agent.token })).status, 401, "the old token is closed");
  const again = await pairAgent(projectId, { name: agent.name });
  assert.equal((await call("GET", "/board", { token: again.token })).status, 200);
});
