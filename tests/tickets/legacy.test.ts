import assert from "node:assert/strict";
import { advanceClock, call, env, pairAgent, test } from "../helpers/mod.ts";
import { setup } from "./_helpers.ts";

// This file moves the service clock past the sunset, so it has its own service (one per test file).

const legacyBody = { title: "Created by an old client", description: "No agent-first fields" };

test("TKT-108 TKT-109 an older client (X-Svc-Legacy-Create) is accepted without agent-first fields, with Deprecation", async () => {
  const s = await setup();
  const res = await call("POST", "/ticket", {
    token: s.agent.token,
    body: legacyBody,
    headers: { "X-Svc-Legacy-Create": "1" },
  });
  assert.equal(res.status, 201, res.text);
  assert.match(res.headers.get("Deprecation") ?? "", /^@\d+$/);
  assert.ok(res.headers.get("Sunset"));
  const d = res.body.data;
  assert.deepEqual(d.deprecation.missing, [
    "expectedFiles",
    "doneDefinition",
    "verificationCommand",
    "riskClass",
  ]);
  assert.equal(d.deprecation.sunset, "2027-07-01T00:00:00.000Z");
  assert.equal(d.status, "backlog");
  assert.deepEqual(d.expectedFiles, []);
  assert.equal(d.riskClass, null);
  const invalid = await call("POST", "/ticket", {
    token: s.agent.token,
    body: { ...legacyBody, title: "t".repeat(201) },
    headers: { "X-Svc-Legacy-Create": "1" },
  });
  assert.equal(invalid.status, 400, "other fields are still validated");
  const modern = await call("POST", "/ticket", { token: s.agent.token, body: legacyBody });
  assert.equal(modern.status, 400);
  assert.equal(modern.headers.get("Deprecation"), null);
});

test("TKT-109 after the sunset the legacy header is ignored: 400 ADD_REQUIRED_FIELDS", async () => {
  const s = await setup();
  const { clock } = await env();
  await advanceClock(new Date("2027-07-01T00:00:01Z").getTime() - clock.now().getTime());
  const agent = await pairAgent(s.projectId);
  const res = await call("POST", "/ticket", {
    token: agent.token,
    body: legacyBody,
    headers: { "X-Svc-Legacy-Create": "1" },
  });
  assert.equal(res.status, 400);
  assert.equal(res.body.error.details.recovery.action, "ADD_REQUIRED_FIELDS");
});
