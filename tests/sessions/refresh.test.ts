import assert from "node:assert/strict";
import { admin, advanceClock, call, env, newProject, pairAgent, test } from "../helpers/mod.ts";
import { alignToWindow } from "./helpers.ts";

const HOUR = 3600_000;
const DAY = 24 * HOUR;

function refresh(body: unknown, headers: Record<string, string> = {}) {
  return call("POST", "/session/refresh", { body, headers });
}

test("SESS-021 /session/refresh takes no Authorization header", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const res = await refresh({ token: a.token });
  assert.equal(res.status, 200);
  // A bearer header is not read: the body's token is what is refreshed.
  const b = await pairAgent(projectId);
  const withHeader = await refresh({ token: res.body.data.sessionToken }, {
    Authorization: `Bearer ${b.token}`,
  });
  assert.equal(withHeader.status, 200);
  assert.equal(withHeader.body.data.agent.id, a.agentId);
});

test("SESS-022 the body must be exactly { token }", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  for (const body of [{}, { token: a.token, sessionId: a.sessionId }, { refresh: a.token }, { token: 42 }]) {
    const res = await refresh(body);
    assert.equal(res.status, 400, JSON.stringify(body));
    assert.equal(res.body.error.code, "VALIDATION_ERROR");
    assert.ok(Array.isArray(res.body.error.details.fields));
  }
  const malformed = await call("POST", "/session/refresh", {
    raw: "{",
    headers: { "Content-Type": "application/json" },
  });
  assert.equal(malformed.status, 400);
  assert.equal(malformed.body.error.code, "VALIDATION_ERROR");
  // None of the refusals touched the token.
  assert.equal((await call("GET", "/me", { token: a.token })).status, 200);
});

test("SESS-023 the refresh response has sessionToken, sessionId, agent, expiresAt, refreshMode, nextAction", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const res = await refresh({ token: a.token });
  const data = res.body.data;
  assert.deepEqual(
    Object.keys(data).sort(),
    ["agent", "expiresAt", "nextAction", "refreshMode", "sessionId", "sessionToken"],
  );
  assert.match(data.sessionToken, /^svc_sess_/);
  assert.equal(data.sessionId, a.sessionId);
  assert.deepEqual(data.agent, { id: a.agentId, name: a.name });
  const clock = Date.parse((await admin("POST", "/clock", { advanceMs: 0 })).now);
  const ttl = Date.parse(data.expiresAt) - clock;
  assert.ok(ttl > 7 * DAY - 60_000 && ttl <= 7 * DAY, String(ttl));
  assert.equal(data.nextAction.action, "RELOAD_CONTEXT");
  assert.equal(typeof data.nextAction.message, "string");
  const me = await call("GET", "/me", { token: data.sessionToken });
  assert.equal(me.body.data.sessionId, a.sessionId);
});

test("SESS-024 refreshMode is live for a valid token and grace for an expired one", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const b = await pairAgent(projectId);
  assert.equal((await refresh({ token: a.token })).body.data.refreshMode, "live");
  await advanceClock(DAY + 1000);
  assert.equal((await call("GET", "/me", { token: b.token })).status, 401);
  const grace = await refresh({ token: b.token });
  assert.equal(grace.status, 200);
  assert.equal(grace.body.data.refreshMode, "grace");
  assert.equal((await call("GET", "/me", { token: grace.body.data.sessionToken })).status, 200);
});

test("SESS-025 a refresh revokes the old token at once", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const res = await refresh({ token: a.token });
  const old = await call("GET", "/me", { token: a.token });
  assert.equal(old.status, 401);
  assert.equal(old.body.error.code, "UNAUTHORIZED");
  assert.equal((await call("GET", "/me", { token: res.body.data.sessionToken })).status, 200);
  // A second refresh of the revoked token is refused.
  assert.equal((await refresh({ token: a.token })).status, 401);
});

test("SESS-026 sub-agent tokens minted by the old token stop working after a refresh", async () => {
  const { projectId } = await newProject();
  const orch = await pairAgent(projectId, { role: "orchestrator" });
  const minted = await call("POST", "/subagent/session", {
    token: orch.token,
    body: { name: "worker-1", role: "generator" },
  });
  const sub = minted.body.data.subAgentToken;
  assert.equal((await call("GET", "/me", { token: sub })).status, 200);
  const rotated = await refresh({ token: orch.token });
  const after = await call("GET", "/me", { token: sub });
  assert.equal(after.status, 401);
  assert.equal(after.body.error.code, "UNAUTHORIZED");
  // The new parent token mints again, and that sub-agent token works.
  const again = await call("POST", "/subagent/session", {
    token: rotated.body.data.sessionToken,
    body: { name: "worker-1", role: "generator" },
  });
  assert.equal((await call("GET", "/me", { token: again.body.data.subAgentToken })).status, 200);
});

test("SESS-027 a refresh recomputes the scopes to the role's default", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const { db } = await env();
  await db.updateTable("tokens").set({ scopes: JSON.stringify(["read:board"]) }).where(
    "session_id",
    "=",
    a.sessionId,
  )
    .execute();
  await db.updateTable("agents").set({ role: "orchestrator" }).where("id", "=", a.agentId).execute();
  assert.deepEqual((await call("GET", "/me", { token: a.token })).body.data.scopes, ["read:board"]);
  const res = await refresh({ token: a.token });
  const me = await call("GET", "/me", { token: res.body.data.sessionToken });
  assert.deepEqual(me.body.data.scopes.sort(), [
    "read:board",
    "read:brief",
    "read:ledger",
    "write:agents",
    "write:claim",
    "write:handoff",
    "write:ledger",
    "write:sprint",
    "write:threads",
    "write:ticket",
  ]);
});

test("SESS-028 a token expired at most 7 days ago can still be refreshed", async () => {
  const { projectId } = await newProject();
  const inside = await pairAgent(projectId);
  const outside = await pairAgent(projectId);
  // Both stop at their idle expiry (24 h); 7 days later, less a minute, the grace still holds.
  await advanceClock(DAY + 7 * DAY - 60_000);
  const ok = await refresh({ token: inside.token });
  assert.equal(ok.status, 200);
  assert.equal(ok.body.data.refreshMode, "grace");
  await advanceClock(2 * 60_000);
  const late = await refresh({ token: outside.token });
  assert.equal(late.status, 401);
  assert.equal(late.body.error.details.recovery.action, "REPAIR");
});

test("SESS-029 every ineligible refresh answers one identical 401 with recovery REPAIR", async () => {
  const { db } = await env();
  const bodies: unknown[] = [];
  const expectRefused = async (token: string, label: string) => {
    const res = await refresh({ token });
    assert.equal(res.status, 401, label);
    assert.equal(res.body.error.code, "UNAUTHORIZED", label);
    assert.equal(res.body.error.details.recovery.action, "REPAIR", label);
    bodies.push(res.body);
  };
  await expectRefused("svc_sess_unknown-token", "unknown");
  await expectRefused("not-even-a-session-token", "wrong prefix");

  const { projectId } = await newProject();
  const revoked = await pairAgent(projectId);
  await refresh({ token: revoked.token });
  await expectRefused(revoked.token, "revoked");

  const closed = await pairAgent(projectId);
  await call("PATCH", `/session/${closed.sessionId}`, { token: closed.token, body: { status: "canceled" } });
  await expectRefused(closed.token, "closed session");

  const agentGone = await pairAgent(projectId);
  await db.updateTable("agents").set({ status: "revoked" }).where("id", "=", agentGone.agentId).execute();
  await expectRefused(agentGone.token, "revoked agent");

  const archived = await newProject();
  const inArchived = await pairAgent(archived.projectId);
  await admin("PATCH", `/projects/${archived.projectId}`, { status: "archived" });
  await expectRefused(inArchived.token, "archived project");

  const suspended = await newProject();
  const inSuspended = await pairAgent(suspended.projectId);
  await admin("PATCH", `/orgs/${suspended.orgId}`, { status: "suspended" });
  await expectRefused(inSuspended.token, "suspended org");

  const old = await pairAgent(projectId);
  await advanceClock(DAY + 7 * DAY + 60_000);
  await expectRefused(old.token, "beyond the 7-day grace");

  for (const body of bodies) assert.deepEqual(body, bodies[0]);
});

test("RATE-041 more than 5 refreshes per agent per hour answers 429 with retryAfterSeconds", async () => {
  await alignToWindow(HOUR);
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  let token = a.token;
  for (let i = 0; i < 5; i++) {
    const res = await refresh({ token });
    assert.equal(res.status, 200, `refresh ${i + 1}`);
    token = res.body.data.sessionToken;
  }
  const limited = await refresh({ token });
  assert.equal(limited.status, 429);
  assert.equal(limited.body.error.code, "RATE_LIMITED");
  const retry = limited.body.error.details.retryAfterSeconds;
  assert.ok(Number.isInteger(retry) && retry > 0 && retry <= 3600);
  assert.equal(limited.headers.get("Retry-After"), String(retry));
  // The refused refresh did not revoke the token.
  assert.equal((await call("GET", "/me", { token })).status, 200);
  await advanceClock(HOUR);
  assert.equal((await refresh({ token })).status, 200);
});
