import assert from "node:assert/strict";
import { call, test } from "../helpers/mod.ts";
import { setup } from "../tickets/_helpers.ts";

test("SUB-021 a sub-agent token cannot write the brief or sprints (403 FORBIDDEN)", async () => {
  const s = await setup({ role: "orchestrator" });
  const minted = await call("POST", "/subagent/session", {
    token: s.agent.token,
    body: { name: "worker-1", role: "generator" },
  });
  assert.equal(minted.status, 201, minted.text);
  const sub = minted.body.data.subAgentToken;
  const brief = await call("PATCH", "/brief", { token: sub, body: { scope: "New scope" } });
  assert.equal(brief.status, 403);
  assert.equal(brief.body.error.code, "FORBIDDEN");
  const sprint = await call("POST", "/sprint", { token: sub, body: { name: "S" } });
  assert.equal(sprint.status, 403);
  assert.equal(sprint.body.error.details.recovery.action, "REPAIR_OR_REFRESH");
});
