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
