import assert from "node:assert/strict";
import { advanceClock, call, newProject, pairAgent, test } from "../helpers/mod.ts";
import { alignToWindow } from "./helpers.ts";

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

const me = (token: string) => call("GET", "/me", { token });

test("SESS-075 a session token lives at most 7 days, however often it is used", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  assert.match(a.token, /^svc_sess_/);
  // Used every 23 hours: the idle window never lapses, but the hard limit does not move.
  for (let elapsed = 0; elapsed + 23 * HOUR < 7 * DAY; elapsed += 23 * HOUR) {
    await advanceClock(23 * HOUR);
    assert.equal((await me(a.token)).status, 200);
  }
  // 7 * 23 h = 161 h; 7 days = 168 h.
  await advanceClock(7 * HOUR - MIN);
  assert.equal((await me(a.token)).status, 200);
  await advanceClock(MIN + 1000);
  const expired = await me(a.token);
  assert.equal(expired.status, 401);
  assert.equal(expired.body.error.code, "UNAUTHORIZED");
});

test("SESS-076 SESS-077 a session token expires after 24 idle hours; each call restarts the window", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const b = await pairAgent(projectId);
  await advanceClock(DAY - MIN);
  assert.equal((await me(a.token)).status, 200);
  await advanceClock(DAY - MIN);
  assert.equal((await me(a.token)).status, 200, "the call at 24 h restarted the window");
  assert.equal((await me(b.token)).status, 401, "b was idle for 48 h");
  await advanceClock(DAY + 1000);
  const idle = await me(a.token);
  assert.equal(idle.status, 401);
  assert.equal(idle.body.error.code, "UNAUTHORIZED");
});

test("SESS-078 a token answers 401 once its session is complete or canceled", async () => {
  const { projectId } = await newProject();
  const orch = await pairAgent(projectId, { role: "orchestrator" });
  const done = await pairAgent(projectId);
  const canceled = await pairAgent(projectId);
  await call("PATCH", `/session/${done.sessionId}`, { token: orch.token, body: { status: "complete" } });
  await call("PATCH", `/session/${canceled.sessionId}`, {
    token: canceled.token,
    body: { status: "canceled" },
  });
  for (const token of [done.token, canceled.token]) {
    const res = await me(token);
    assert.equal(res.status, 401);
    assert.equal(res.body.error.code, "UNAUTHORIZED");
  }
});

test("SESS-079 GET /context hands out meta.refreshedToken only within 30 minutes of the 7-day limit", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  for (let i = 0; i < 7; i++) {
    await advanceClock(23 * HOUR);
    await me(a.token);
  }
  // 161 h elapsed; the limit is at 168 h. At 167 h 29 min: no replacement yet.
  await advanceClock(6 * HOUR + 29 * MIN);
  const early = await call("GET", "/context", { token: a.token });
  assert.equal(early.status, 200);
  assert.equal("refreshedToken" in early.body.meta, false);
  await advanceClock(2 * MIN);
  const near = await call("GET", "/context", { token: a.token });
  assert.equal(near.status, 200);
  assert.match(near.body.meta.refreshedToken, /^svc_sess_/);
  const replaced = await me(near.body.meta.refreshedToken);
  assert.equal(replaced.status, 200);
  assert.equal(replaced.body.data.sessionId, a.sessionId);
});

test("SESS-080 after meta.refreshedToken the old token works until its limit; the new one has 7 fresh days", async () => {
  const { projectId } = await newProject();
  const orch = await pairAgent(projectId, { role: "orchestrator" });
  for (let i = 0; i < 7; i++) {
    await advanceClock(23 * HOUR);
    await me(orch.token);
  }
  await advanceClock(6 * HOUR + 40 * MIN);
  const sub = (await call("POST", "/subagent/session", {
    token: orch.token,
    body: { name: "late-worker", role: "generator" },
  })).body.data.subAgentToken;
  const first = (await call("GET", "/context", { token: orch.token })).body.meta.refreshedToken;
  const second = (await call("GET", "/context", { token: orch.token })).body.meta.refreshedToken;
  assert.notEqual(first, second);
  // Using a replacement does not revoke the old token or its sub-agents.
  assert.equal((await me(first)).status, 200);
  assert.equal((await me(orch.token)).status, 200);
  assert.equal((await me(sub)).status, 200);
  assert.equal((await me(second)).status, 200);
  // The old token stops at its own 7-day limit; the sub-agent token lives on to its own expiry.
  await advanceClock(21 * MIN);
  assert.equal((await me(orch.token)).status, 401);
  assert.equal((await me(sub)).status, 200);
  // The replacement keeps the session and lives 7 days from its issue (used daily against idleness).
  for (let i = 0; i < 7; i++) {
    await advanceClock(23 * HOUR);
    assert.equal((await me(first)).status, 200, `day ${i + 1}`);
  }
  // 21 min + 7 x 23 h = 161 h 21 min since issue; the limit falls at 168 h.
  await advanceClock(6 * HOUR + 38 * MIN);
  assert.equal((await me(first)).status, 200);
  await advanceClock(2 * MIN);
  assert.equal((await me(first)).status, 401);
});

test("SESS-080 refreshing the old token revokes its unused replacements", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  for (let i = 0; i < 7; i++) {
    await advanceClock(23 * HOUR);
    await me(a.token);
  }
  await advanceClock(6 * HOUR + 45 * MIN);
  const unused = (await call("GET", "/context", { token: a.token })).body.meta.refreshedToken;
  const refreshed = await call("POST", "/session/refresh", { body: { token: a.token } });
  assert.equal(refreshed.status, 200);
  assert.equal((await me(unused)).status, 401);
  assert.equal((await me(refreshed.body.data.sessionToken)).status, 200);
});

test("RATE-001 more than 200 requests in 5 minutes on one session token answers 401, not 429", async () => {
  await alignToWindow(5 * MIN);
  const { projectId } = await newProject({ plan: "enterprise" });
  const a = await pairAgent(projectId);
  for (let i = 0; i < 200; i++) {
    const res = await me(a.token);
    assert.equal(res.status, 200, `request ${i + 1}`);
  }
  const over = await me(a.token);
  assert.equal(over.status, 401);
  assert.equal(over.body.error.code, "UNAUTHORIZED");
  await advanceClock(5 * MIN);
  assert.equal((await me(a.token)).status, 200);
});

test("ROLE-007 unknown, revoked, expired and closed-session tokens answer one identical 401", async () => {
  const { projectId } = await newProject();
  const revoked = await pairAgent(projectId);
  await call("POST", "/session/refresh", { body: { token: revoked.token } });
  const canceled = await pairAgent(projectId);
  await call("PATCH", `/session/${canceled.sessionId}`, {
    token: canceled.token,
    body: { status: "canceled" },
  });
  const idle = await pairAgent(projectId);
  await advanceClock(DAY + 1000);
  const bodies = [];
  for (const token of ["svc_sess_unknown", "garbage", revoked.token, canceled.token, idle.token]) {
    const res = await me(token);
    assert.equal(res.status, 401);
    bodies.push(res.body);
  }
  for (const body of bodies) assert.deepEqual(body, bodies[0]);
  assert.equal(bodies[0].error.code, "UNAUTHORIZED");
  assert.equal(bodies[0].error.details.recovery.action, "REPAIR_OR_REFRESH");
});
