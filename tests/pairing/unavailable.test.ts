import assert from "node:assert/strict";
import { ADMIN_TOKEN, callOn, test } from "../helpers/mod.ts";
import { startTestEnv } from "../helpers/env.ts";

test("PAIR-035 with storage down, /pair/connect answers 503 SERVICE_UNAVAILABLE with RETRY_LATER", async () => {
  const e = await startTestEnv();
  const org = await callOn(e, "POST", "/admin/orgs", { token: ADMIN_TOKEN, body: { name: "Down" } });
  const project = await callOn(e, "POST", "/admin/projects", {
    token: ADMIN_TOKEN,
    body: { orgId: org.body.data.id, name: "Down", ticketPrefix: "DWN" },
  });
  const code = await callOn(e, "POST", `/admin/projects/${project.body.data.id}/pairing-codes`, {
    token: ADMIN_TOKEN,
    body: {},
  });
  await e.close();
  const res = await callOn(e, "POST", "/pair/connect", {
    body: { code: code.body.data.code, agentName: "x" },
  });
  assert.equal(res.status, 503);
  assert.equal(res.body.error.code, "SERVICE_UNAVAILABLE");
  assert.equal(res.body.error.details.recovery.action, "RETRY_LATER");
  assert.ok(Number(res.headers.get("Retry-After")) > 0);
});
