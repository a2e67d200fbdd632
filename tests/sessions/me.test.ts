import assert from "node:assert/strict";
import { admin, advanceClock, call, newProject, pairAgent, test } from "../helpers/mod.ts";

test("SESS-030 GET /me returns agent, project, org, scopes, sessionId, session, plan, role, cachedAt", async () => {
  const { projectId, orgId } = await newProject({ plan: "builder" });
  const a = await pairAgent(projectId, { platform: "claude-code" });
  const res = await call("GET", "/me", { token: a.token });
  assert.equal(res.status, 200);
  const data = res.body.data;
  assert.deepEqual(
    Object.keys(data).sort(),
    ["agent", "cachedAt", "org", "plan", "project", "role", "scopes", "session", "sessionId"],
  );
  assert.deepEqual(data.agent, {
    id: a.agentId,
    name: a.name,
    platform: "claude-code",
    model: null,
    company: "Anthropic",
  });
  assert.deepEqual(Object.keys(data.project).sort(), ["id", "name", "phase", "subphase"]);
  assert.equal(data.project.id, projectId);
  assert.deepEqual(data.org, { id: orgId, plan: "builder" });
  assert.equal(data.sessionId, a.sessionId);
  assert.equal(data.role, "generator");
  assert.deepEqual(Object.keys(data.plan).sort(), ["callsLimit", "callsRemaining", "tier"]);
  assert.equal(data.plan.tier, "builder");
  assert.equal(data.plan.callsLimit, 1500);
});

test("SESS-031 /me scopes is an array; an empty array means unrestricted", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const scopes = (await call("GET", "/me", { token: a.token })).body.data.scopes;
  assert.ok(Array.isArray(scopes) && scopes.includes("write:ledger"));
  const key = await admin("POST", `/projects/${projectId}/api-keys`, {
    agentName: "unrestricted",
    scopes: [],
  });
  const keyed = await call("GET", "/me", { token: key.key });
  assert.deepEqual(keyed.body.data.scopes, []);
  // Unrestricted really passes a scope check (write:agents is needed here; the role check still runs).
  const orchKey = await admin("POST", `/projects/${projectId}/api-keys`, {
    agentName: "unrestricted-orch",
    role: "orchestrator",
    scopes: [],
  });
  const minted = await call("POST", "/pair/code", { token: orchKey.key, body: { agentName: "via-key" } });
  assert.equal(minted.status, 201);
});

test("SESS-032 /me session is { id, status, startedAt }, or null without a session", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const session = (await call("GET", "/me", { token: a.token })).body.data.session;
  assert.deepEqual(Object.keys(session).sort(), ["id", "startedAt", "status"]);
  assert.equal(session.id, a.sessionId);
  assert.equal(session.status, "active");
  const key = await admin("POST", `/projects/${projectId}/api-keys`, { agentName: "sessionless" });
  const keyed = (await call("GET", "/me", { token: key.key })).body.data;
  assert.equal(keyed.session, null);
  assert.equal(keyed.sessionId, null);
});

test("SESS-033 SESS-035 /me is cached 30 seconds: same body and cachedAt (epoch ms)", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const first = (await call("GET", "/me", { token: a.token })).body.data;
  const clock = Date.parse((await admin("POST", "/clock", { advanceMs: 0 })).now);
  assert.ok(Number.isInteger(first.cachedAt));
  assert.ok(Math.abs(clock - first.cachedAt) < 10_000, "cachedAt is epoch milliseconds of the service clock");
  // A change within the window is not visible yet.
  await call("POST", `/session/${a.sessionId}/activity`, {
    token: a.token,
    body: { type: "error", body: "x" },
  });
  await advanceClock(29_000);
  const cached = (await call("GET", "/me", { token: a.token })).body.data;
  assert.equal(cached.cachedAt, first.cachedAt);
  assert.equal(cached.session.status, "active");
  const { plan: _p1, ...restFirst } = first;
  const { plan: _p2, ...restCached } = cached;
  assert.deepEqual(restCached, restFirst);
  await advanceClock(2_000);
  const rebuilt = (await call("GET", "/me", { token: a.token })).body.data;
  assert.ok(rebuilt.cachedAt > first.cachedAt);
  assert.equal(rebuilt.session.status, "error");
});

test("SESS-034 plan.callsRemaining is current on every call, never cached", async () => {
  const { projectId } = await newProject({ plan: "free" });
  const a = await pairAgent(projectId);
  const first = await call("GET", "/me", { token: a.token });
  const second = await call("GET", "/me", { token: a.token });
  assert.equal(second.body.data.cachedAt, first.body.data.cachedAt);
  assert.equal(second.body.data.plan.callsRemaining, first.body.data.plan.callsRemaining - 1);
  assert.equal(second.body.data.plan.callsRemaining, second.body.meta.callsRemaining);
  const enterprise = await newProject({ plan: "enterprise" });
  const b = await pairAgent(enterprise.projectId);
  const unlimited = (await call("GET", "/me", { token: b.token })).body.data.plan;
  assert.deepEqual(unlimited, { tier: "enterprise", callsRemaining: null, callsLimit: null });
});
