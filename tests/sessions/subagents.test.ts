import assert from "node:assert/strict";
import { admin, advanceClock, call, env, newProject, pairAgent, test } from "../helpers/mod.ts";

function mint(token: string, body: unknown, headers: Record<string, string> = {}) {
  return call("POST", "/subagent/session", { token, body, headers });
}

async function orchestrator() {
  const { projectId } = await newProject();
  return { projectId, orch: await pairAgent(projectId, { role: "orchestrator" }) };
}

test("SUB-013 SUB-014 minting answers subAgentToken (svc_sub_), sessionId, expiresAt, role and scopes", async () => {
  const { projectId, orch } = await orchestrator();
  const res = await mint(orch.token, { name: "worker_1", role: "evaluator", ttlHours: 5 });
  assert.equal(res.status, 201);
  const data = res.body.data;
  for (const key of ["subAgentToken", "sessionId", "expiresAt", "role", "scopes"]) {
    assert.ok(key in data, key);
  }
  assert.match(data.subAgentToken, /^svc_sub_/);
  assert.equal(data.role, "evaluator");
  assert.deepEqual(data.scopes.sort(), [
    "read:board",
    "read:brief",
    "read:ledger",
    "write:claim",
    "write:handoff",
    "write:ledger",
    "write:threads",
    "write:ticket",
  ]);
  const now = Date.parse((await admin("POST", "/clock", { advanceMs: 0 })).now);
  const ttl = Date.parse(data.expiresAt) - now;
  assert.ok(ttl > 5 * 3600_000 - 60_000 && ttl <= 5 * 3600_000, String(ttl));
  // AGENT_SPAWNED is written to the ledger.
  const { db } = await env();
  const entry = await db.selectFrom("ledger_entries").select(["type", "sub_agent_name", "session_id"])
    .where("project_id", "=", projectId).where("type", "=", "AGENT_SPAWNED").executeTakeFirstOrThrow();
  assert.equal(entry.sub_agent_name, "worker_1");
  assert.equal(entry.session_id, data.sessionId);
});

test("SUB-023 each sub-agent has its own session, readable with its token", async () => {
  const { orch } = await orchestrator();
  const data = (await mint(orch.token, { name: "own-session", role: "generator" })).body.data;
  assert.notEqual(data.sessionId, orch.sessionId);
  const me = (await call("GET", "/me", { token: data.subAgentToken })).body.data;
  assert.equal(me.sessionId, data.sessionId);
  assert.equal(me.role, "generator");
  assert.equal(me.agent.subAgentName, "own-session");
  const session = await call("GET", `/session/${data.sessionId}`, { token: data.subAgentToken });
  assert.equal(session.status, 200);
  assert.equal(session.body.data.session.source, "subagent");
  assert.equal(session.body.data.session.agent.subAgentName, "own-session");
  // The parent's session is not the sub-agent's own.
  assert.equal((await call("GET", `/session/${orch.sessionId}`, { token: data.subAgentToken })).status, 404);
  const post = await call("POST", `/session/${data.sessionId}/activity`, {
    token: data.subAgentToken,
    body: { type: "thought", body: "working" },
  });
  assert.equal(post.status, 201);
});

test("SUB-006 only orchestrators mint sub-agents (403 FORBIDDEN)", async () => {
  const { projectId } = await newProject();
  const gen = await pairAgent(projectId);
  const res = await mint(gen.token, { name: "w", role: "generator" });
  assert.equal(res.status, 403);
  assert.equal(res.body.error.code, "FORBIDDEN");
});

test("SUB-007 SUB-008 minting needs write:agents and a live svc_sess_ bearer", async () => {
  const { projectId, orch } = await orchestrator();
  const noScope = await admin("POST", `/projects/${projectId}/api-keys`, {
    agentName: "orch-key-ro",
    role: "orchestrator",
    scopes: ["read:board"],
  });
  const scoped = await mint(noScope.key, { name: "w", role: "generator" });
  assert.equal(scoped.status, 403);
  assert.equal(scoped.body.error.details.requiredScope, "write:agents");
  const apiKey = await admin("POST", `/projects/${projectId}/api-keys`, {
    agentName: "orch-key",
    role: "orchestrator",
    scopes: [],
  });
  const byKey = await mint(apiKey.key, { name: "w", role: "generator" });
  assert.equal(byKey.status, 403);
  assert.equal(byKey.body.error.code, "FORBIDDEN");
  assert.match(byKey.body.error.message, /svc_sess_/);
  const sub = (await mint(orch.token, { name: "parent-made", role: "generator" })).body.data.subAgentToken;
  const bySub = await mint(sub, { name: "grandchild", role: "generator" });
  assert.equal(bySub.status, 403);
});

test("SUB-009 name is 1 to 64 letters, digits, underscore or dash", async () => {
  const { orch } = await orchestrator();
  assert.equal((await mint(orch.token, { name: "a".repeat(64), role: "generator" })).status, 201);
  assert.equal((await mint(orch.token, { name: "Z", role: "generator" })).status, 201);
  for (const name of ["", "a".repeat(65), "has space", "dot.name", "ümlaut", 7]) {
    const res = await mint(orch.token, { name, role: "generator" });
    assert.equal(res.status, 400, String(name));
    assert.equal(res.body.error.code, "VALIDATION_ERROR");
    assert.equal(res.body.error.details.fields[0].path, "name");
  }
  assert.equal((await mint(orch.token, { role: "generator" })).status, 400);
});

test("SUB-010 SUB-011 role is required: generator or evaluator; orchestrator answers 422", async () => {
  const { orch } = await orchestrator();
  for (const role of [undefined, "observer", "boss"]) {
    const res = await mint(orch.token, { name: "w", role });
    assert.equal(res.status, 400, String(role));
    assert.equal(res.body.error.code, "VALIDATION_ERROR");
  }
  const orchRole = await mint(orch.token, { name: "w", role: "orchestrator" });
  assert.equal(orchRole.status, 422);
  assert.equal(orchRole.body.error.code, "VALIDATION_ERROR");
  assert.equal(orchRole.body.error.details.fields[0].path, "role");
});

test("SUB-012 ttlHours is an integer from 1 to 72, default 24", async () => {
  const { orch } = await orchestrator();
  const now = async () => Date.parse((await admin("POST", "/clock", { advanceMs: 0 })).now);
  const hoursLeft = async (expiresAt: string) => Math.round((Date.parse(expiresAt) - await now()) / 3600_000);
  assert.equal(
    await hoursLeft((await mint(orch.token, { name: "d", role: "generator" })).body.data.expiresAt),
    24,
  );
  assert.equal(
    await hoursLeft(
      (await mint(orch.token, { name: "one", role: "generator", ttlHours: 1 })).body.data.expiresAt,
    ),
    1,
  );
  assert.equal(
    await hoursLeft(
      (await mint(orch.token, { name: "max", role: "generator", ttlHours: 72 })).body.data.expiresAt,
    ),
    72,
  );
  for (const ttlHours of [0, 73, 1.5, "24"]) {
    const res = await mint(orch.token, { name: "bad", role: "generator", ttlHours });
    assert.equal(res.status, 400, String(ttlHours));
    assert.equal(res.body.error.details.fields[0].path, "ttlHours");
  }
});

test("SUB-015 a sub-agent token stops working at its expiresAt", async () => {
  const { orch } = await orchestrator();
  const sub =
    (await mint(orch.token, { name: "short", role: "generator", ttlHours: 1 })).body.data.subAgentToken;
  await advanceClock(59 * 60_000);
  assert.equal((await call("GET", "/me", { token: sub })).status, 200);
  await advanceClock(60_000 + 1000);
  const expired = await call("GET", "/me", { token: sub });
  assert.equal(expired.status, 401);
  assert.equal(expired.body.error.code, "UNAUTHORIZED");
});

test("SUB-016 SUB-017 SUB-018 DELETE /subagent/session revokes the token and completes the session", async () => {
  const { orch } = await orchestrator();
  const data = (await mint(orch.token, { name: "finished", role: "generator" })).body.data;
  const res = await call("DELETE", "/subagent/session", { token: orch.token, body: { name: "finished" } });
  assert.equal(res.status, 200);
  assert.deepEqual(res.body.data, {
    ok: true,
    name: "finished",
    completedSessionIds: [data.sessionId],
    revokedTokens: 1,
  });
  assert.equal((await call("GET", "/me", { token: data.subAgentToken })).status, 401);
  const session = await call("GET", `/session/${data.sessionId}`, { token: orch.token });
  assert.equal(session.body.data.session.status, "complete");
  // Deleting again, or a name never minted: 404 NOT_FOUND.
  for (const name of ["finished", "never-minted"]) {
    const again = await call("DELETE", "/subagent/session", { token: orch.token, body: { name } });
    assert.equal(again.status, 404);
    assert.equal(again.body.error.code, "NOT_FOUND");
  }
  // The name is unregistered: acting as it through the header is refused.
  const header = await call("GET", "/me", { token: orch.token, headers: { "X-Svc-SubAgent": "finished" } });
  assert.equal(header.status, 401);
});

test("SUB-018 DELETE /subagent/session is for orchestrators with write:agents; body { name }", async () => {
  const { projectId, orch } = await orchestrator();
  const sub = (await mint(orch.token, { name: "kept", role: "generator" })).body.data.subAgentToken;
  const gen = await pairAgent(projectId);
  const byGenerator = await call("DELETE", "/subagent/session", { token: gen.token, body: { name: "kept" } });
  assert.equal(byGenerator.status, 403);
  const bySub = await call("DELETE", "/subagent/session", { token: sub, body: { name: "kept" } });
  assert.equal(bySub.status, 403);
  const badBody = await call("DELETE", "/subagent/session", {
    token: orch.token,
    body: { name: "bad name" },
  });
  assert.equal(badBody.status, 400);
  assert.equal((await call("GET", "/me", { token: sub })).status, 200);
});

test("SUB-002 SUB-005 X-Svc-SubAgent acts as the registered sub-agent with session tokens only", async () => {
  const { projectId, orch } = await orchestrator();
  const data = (await mint(orch.token, { name: "helper", role: "evaluator" })).body.data;
  const asSub =
    (await call("GET", "/me", { token: orch.token, headers: { "X-Svc-SubAgent": "helper" } })).body.data;
  assert.equal(asSub.agent.subAgentName, "helper");
  assert.equal(asSub.role, "evaluator");
  assert.equal(asSub.sessionId, data.sessionId);
  assert.ok(!asSub.scopes.includes("write:agents"));
  // Ignored with a sub-agent token, even for an unregistered name.
  const subToken = await call("GET", "/me", {
    token: data.subAgentToken,
    headers: { "X-Svc-SubAgent": "nobody" },
  });
  assert.equal(subToken.status, 200);
  assert.equal(subToken.body.data.agent.subAgentName, "helper");
  // Ignored with API keys (documented design).
  const key = await admin("POST", `/projects/${projectId}/api-keys`, { agentName: "keyed" });
  const keyed = await call("GET", "/me", { token: key.key, headers: { "X-Svc-SubAgent": "nobody" } });
  assert.equal(keyed.status, 200);
  assert.equal(keyed.body.data.agent.subAgentName, undefined);
  // Acting as a sub-agent cannot mint.
  const minting = await mint(orch.token, { name: "x", role: "generator" }, { "X-Svc-SubAgent": "helper" });
  assert.equal(minting.status, 403);
});

test("SUB-003 SUB-004 a malformed or unregistered X-Svc-SubAgent answers 401", async () => {
  const { orch } = await orchestrator();
  await mint(orch.token, { name: "real", role: "generator" });
  for (const name of ["ghost", "a".repeat(65), "bad name", ""]) {
    const res = await call("GET", "/me", { token: orch.token, headers: { "X-Svc-SubAgent": name } });
    assert.equal(res.status, 401, JSON.stringify(name));
    assert.equal(res.body.error.code, "UNAUTHORIZED");
  }
});

test("SUB-020 a sub-agent token cannot mint sub-agents or pairing codes", async () => {
  const { orch } = await orchestrator();
  const sub = (await mint(orch.token, { name: "minter", role: "generator" })).body.data.subAgentToken;
  assert.equal((await mint(sub, { name: "child", role: "generator" })).status, 403);
  assert.equal((await call("POST", "/pair/code", { token: sub, body: { agentName: "child" } })).status, 403);
});

test("SUB-022 revoking the parent session token invalidates its sub-agent tokens", async () => {
  const { orch } = await orchestrator();
  const sub = (await mint(orch.token, { name: "orphan", role: "generator" })).body.data.subAgentToken;
  await call("PATCH", `/session/${orch.sessionId}`, { token: orch.token, body: { status: "canceled" } });
  const res = await call("GET", "/me", { token: sub });
  assert.equal(res.status, 401);
});

test("SUB-018 minting an existing name again replaces it", async () => {
  const { orch } = await orchestrator();
  const first = (await mint(orch.token, { name: "again", role: "generator" })).body.data;
  const second = (await mint(orch.token, { name: "again", role: "evaluator" })).body.data;
  assert.notEqual(second.sessionId, first.sessionId);
  assert.equal((await call("GET", "/me", { token: first.subAgentToken })).status, 401);
  const me = (await call("GET", "/me", { token: second.subAgentToken })).body.data;
  assert.equal(me.role, "evaluator");
  const old = await call("GET", `/session/${first.sessionId}`, { token: orch.token });
  assert.equal(old.body.data.session.status, "complete");
});
