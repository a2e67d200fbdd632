import assert from "node:assert/strict";
import { admin, ADMIN_TOKEN, call, env, newProject, pairAgent, test } from "../helpers/mod.ts";
import { insertClaim } from "../helpers/fixtures.ts";
import { oauthFixture } from "../oauth/helpers.ts";
import { PASSWORD } from "../dashboard/helpers.ts";

/**
 * The operator undoes what it created: revoke an API key, revoke an agent, end a session, remove a
 * member. Each answers 200 with what it changed and takes effect on the very next request.
 */

const op = (method: string, path: string) => call(method, `/admin${path}`, { token: ADMIN_TOKEN });
const read = async (path: string) => (await op("GET", path)).body.data;
const UNKNOWN = "0f0e0d0c-0b0a-4999-8888-777766665555";

async function events(projectId: string, kind: string) {
  const { db } = await env();
  return await db.selectFrom("events").select(["entity_id", "data"]).where("project_id", "=", projectId)
    .where("kind", "=", kind).execute();
}

test("DELETE /admin/projects/:projectId/api-keys/:keyId revokes the key at once; a second call answers the same revokedAt", async () => {
  const { projectId } = await newProject();
  const key = await admin("POST", `/projects/${projectId}/api-keys`, { agentName: "ci-bot" });
  assert.equal((await call("GET", "/me", { token: key.key })).status, 200);

  const res = await op("DELETE", `/projects/${projectId}/api-keys/${key.id}`);
  assert.equal(res.status, 200, res.text);
  assert.deepEqual(res.body.meta, {});
  assert.equal(res.body.data.keyId, key.id);
  assert.equal(res.body.data.agentId, key.agentId);
  assert.equal(res.body.data.alreadyRevoked, false);
  assert.ok(Date.parse(res.body.data.revokedAt));

  const after = await call("GET", "/me", { token: key.key });
  assert.equal(after.status, 401);
  assert.equal(after.body.error.code, "UNAUTHORIZED");
  const stored = await read(`/projects/${projectId}/api-keys/${key.id}`);
  assert.equal(stored.revokedAt, res.body.data.revokedAt);
  assert.equal((await events(projectId, "api_key.revoked")).length, 1);

  const again = await op("DELETE", `/projects/${projectId}/api-keys/${key.id}`);
  assert.equal(again.status, 200);
  assert.equal(again.body.data.alreadyRevoked, true);
  assert.equal(again.body.data.revokedAt, res.body.data.revokedAt);
  assert.equal((await events(projectId, "api_key.revoked")).length, 1);
});

test("revoking an API key: 404 for an unknown project or key, a key of another project, or a session token's id; 401 without the admin token", async () => {
  const { projectId } = await newProject();
  const other = await newProject();
  const key = await admin("POST", `/projects/${projectId}/api-keys`, { agentName: "bot" });
  const agent = await pairAgent(projectId);
  const { db } = await env();
  const sessionTokenId = (await db.selectFrom("tokens").select("id").where("agent_id", "=", agent.agentId)
    .where("kind", "=", "session").executeTakeFirstOrThrow()).id;
  for (
    const path of [
      `/projects/${UNKNOWN}/api-keys/${key.id}`,
      `/projects/${projectId}/api-keys/${UNKNOWN}`,
      `/projects/${other.projectId}/api-keys/${key.id}`,
      `/projects/${projectId}/api-keys/${sessionTokenId}`,
    ]
  ) {
    const res = await op("DELETE", path);
    assert.equal(res.status, 404, path);
    assert.equal(res.body.error.code, "NOT_FOUND");
  }
  const anonymous = await call("DELETE", `/admin/projects/${projectId}/api-keys/${key.id}`);
  assert.equal(anonymous.status, 401);
  assert.equal(anonymous.body.error.code, "UNAUTHORIZED");
  const wrong = await call("DELETE", `/admin/projects/${projectId}/api-keys/${key.id}`, { token: "wrong" });
  assert.equal(wrong.status, 401);
  // Nothing was revoked by the refusals: the key and the session token still work.
  assert.equal((await call("GET", "/me", { token: key.key })).status, 200);
  assert.equal((await call("GET", "/me", { token: agent.token })).status, 200);
});

test("POST /admin/projects/:projectId/agents/:agentId/revoke revokes the agent's keys and sessions and releases its claims", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId, { name: "rogue" });
  const key = await admin("POST", `/projects/${projectId}/api-keys`, { agentName: "rogue" });
  assert.equal(key.agentId, agent.agentId);
  const bystander = await pairAgent(projectId);
  await insertClaim(projectId, { agentId: agent.agentId, files: ["src/a.ts", "src/b.ts"] });

  const res = await op("POST", `/projects/${projectId}/agents/${agent.agentId}/revoke`);
  assert.equal(res.status, 200, res.text);
  const data = res.body.data;
  assert.equal(data.agentId, agent.agentId);
  assert.equal(data.name, "rogue");
  assert.equal(data.status, "revoked");
  assert.equal(data.alreadyRevoked, false);
  assert.deepEqual(data.revokedKeyIds, [key.id]);
  assert.ok(data.revokedTokens >= 2, res.text);
  assert.deepEqual(data.canceledSessionIds, [agent.sessionId]);
  assert.deepEqual([...data.releasedFiles].sort(), ["src/a.ts", "src/b.ts"]);

  for (const token of [agent.token, key.key]) {
    const after = await call("GET", "/me", { token });
    assert.equal(after.status, 401);
    assert.equal(after.body.error.code, "UNAUTHORIZED");
  }
  assert.equal((await call("GET", "/me", { token: bystander.token })).status, 200);
  const { db } = await env();
  const session = await db.selectFrom("sessions").select("status").where("id", "=", agent.sessionId)
    .executeTakeFirstOrThrow();
  assert.equal(session.status, "canceled");
  assert.equal((await read(`/projects/${projectId}/agents/${agent.agentId}`)).status, "revoked");
  const revokedEvents = await events(projectId, "agent.revoked");
  assert.equal(revokedEvents.length, 1);
  assert.equal(revokedEvents[0]!.entity_id, agent.agentId);

  const again = await op("POST", `/projects/${projectId}/agents/${agent.agentId}/revoke`);
  assert.equal(again.status, 200);
  assert.equal(again.body.data.alreadyRevoked, true);
  assert.deepEqual(again.body.data.canceledSessionIds, []);
  assert.equal((await events(projectId, "agent.revoked")).length, 1);
});

test("revoking an agent: 404 for an unknown project or agent and for an agent of another project; 401 without the admin token", async () => {
  const { projectId } = await newProject();
  const other = await newProject();
  const agent = await pairAgent(projectId);
  for (
    const path of [
      `/projects/${UNKNOWN}/agents/${agent.agentId}/revoke`,
      `/projects/${projectId}/agents/${UNKNOWN}/revoke`,
      `/projects/${other.projectId}/agents/${agent.agentId}/revoke`,
    ]
  ) {
    const res = await op("POST", path);
    assert.equal(res.status, 404, path);
    assert.equal(res.body.error.code, "NOT_FOUND");
  }
  assert.equal(
    (await call("POST", `/admin/projects/${projectId}/agents/${agent.agentId}/revoke`)).status,
    401,
  );
  assert.equal((await call("GET", "/me", { token: agent.token })).status, 200);
});

test("DELETE /admin/sessions/:sessionId cancels the session and revokes its token; a second call reports it already ended", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  const res = await op("DELETE", `/sessions/${agent.sessionId}`);
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.data.sessionId, agent.sessionId);
  assert.equal(res.body.data.projectId, projectId);
  assert.equal(res.body.data.agentId, agent.agentId);
  assert.equal(res.body.data.status, "canceled");
  assert.equal(res.body.data.alreadyEnded, false);
  assert.ok(Date.parse(res.body.data.endedAt));

  const after = await call("GET", "/me", { token: agent.token });
  assert.equal(after.status, 401);
  const { db } = await env();
  const session = await db.selectFrom("sessions").select("status").where("id", "=", agent.sessionId)
    .executeTakeFirstOrThrow();
  assert.equal(session.status, "canceled");
  const canceled = await events(projectId, "session.canceled");
  assert.equal(canceled.length, 1);
  assert.equal((canceled[0]!.data as { reason: string }).reason, "ended_by_operator");
  // The agent itself is not revoked: it can pair again.
  assert.equal((await read(`/projects/${projectId}/agents/${agent.agentId}`)).status, "active");

  const again = await op("DELETE", `/sessions/${agent.sessionId}`);
  assert.equal(again.status, 200);
  assert.equal(again.body.data.alreadyEnded, true);
  assert.equal(again.body.data.status, "canceled");
  assert.equal(again.body.data.endedAt, res.body.data.endedAt);

  const unknown = await op("DELETE", `/sessions/${UNKNOWN}`);
  assert.equal(unknown.status, 404);
  assert.equal(unknown.body.error.code, "NOT_FOUND");
  assert.equal((await call("DELETE", `/admin/sessions/${agent.sessionId}`)).status, 401);
});

/** Signs in to the dashboard; answers the Cookie header of the signed-in browser. */
async function signIn(email: string): Promise<string> {
  const e = await env();
  const form = await e.fetch("/", { redirect: "manual" });
  const cookies = form.headers.getSetCookie().map((c) => c.split(";")[0]!);
  const csrf = /name="csrf_token" value="([^"]+)"/.exec(await form.text())?.[1] ?? "";
  const res = await e.fetch("/signin", {
    method: "POST",
    redirect: "manual",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: cookies.join("; ") },
    body: new URLSearchParams({ csrf_token: csrf, email, password: PASSWORD }).toString(),
  });
  await res.body?.cancel();
  return [...cookies, ...res.headers.getSetCookie().map((c) => c.split(";")[0]!)].join("; ");
}

/** Signs in to the dashboard and answers the status of the project's page. */
async function dashboardStatus(email: string, projectId: string): Promise<number> {
  const e = await env();
  const page = await e.fetch(`/projects/${projectId}`, {
    redirect: "manual",
    headers: { Cookie: await signIn(email) },
  });
  await page.body?.cancel();
  return page.status;
}

test("DELETE /admin/projects/:projectId/members/:userId: the user loses the project at once (OAuth token 401, dashboard 404)", async () => {
  const f = await oauthFixture({ memberRole: "member" });
  const user = await read(`/users/${f.userId}`);
  const accessToken = await f.mint("write");
  assert.equal((await call("GET", "/me", { token: accessToken })).status, 200);
  assert.equal(await dashboardStatus(user.email, f.projectId), 200);

  const res = await op("DELETE", `/projects/${f.projectId}/members/${f.userId}`);
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.data.projectId, f.projectId);
  assert.equal(res.body.data.userId, f.userId);
  assert.equal(res.body.data.role, "member");
  assert.ok(Date.parse(res.body.data.removedAt));
  assert.equal(res.body.data.revokedRefreshTokens, 0);

  const after = await call("GET", "/me", { token: accessToken });
  assert.equal(after.status, 401);
  assert.equal(after.body.error.code, "UNAUTHORIZED");
  assert.equal(await dashboardStatus(user.email, f.projectId), 404);
  assert.equal((await op("GET", `/projects/${f.projectId}/members/${f.userId}`)).status, 404);
  assert.equal((await events(f.projectId, "member.removed")).length, 1);

  // A second removal finds no membership: 404, like reading it.
  const again = await op("DELETE", `/projects/${f.projectId}/members/${f.userId}`);
  assert.equal(again.status, 404);
  assert.equal(again.body.error.code, "NOT_FOUND");
  for (
    const path of [`/projects/${UNKNOWN}/members/${f.userId}`, `/projects/${f.projectId}/members/${UNKNOWN}`]
  ) {
    const res = await op("DELETE", path);
    assert.equal(res.status, 404, path);
  }
  assert.equal((await call("DELETE", `/admin/projects/${f.projectId}/members/${f.userId}`)).status, 401);
});

test("removing a project's last admin answers 409 LAST_ADMIN with recovery ADD_ANOTHER_ADMIN and changes nothing", async () => {
  const f = await oauthFixture({ memberRole: "admin" });
  const res = await op("DELETE", `/projects/${f.projectId}/members/${f.userId}`);
  assert.equal(res.status, 409, res.text);
  assert.equal(res.body.error.code, "LAST_ADMIN");
  assert.equal(res.body.error.details.recovery.action, "ADD_ANOTHER_ADMIN");
  assert.equal(res.body.error.details.recovery.endpoint, `POST /admin/projects/${f.projectId}/members`);
  assert.equal((await read(`/projects/${f.projectId}/members/${f.userId}`)).role, "admin");

  // With a second admin, the first can go.
  const second = await admin("POST", "/users", {
    email: `second-${crypto.randomUUID().slice(0, 8)}@example.com`,
    password: PASSWORD,
    name: "Second admin",
  });
  await admin("POST", `/projects/${f.projectId}/members`, { userId: second.id, role: "admin" });
  const removed = await op("DELETE", `/projects/${f.projectId}/members/${f.userId}`);
  assert.equal(removed.status, 200, removed.text);
  assert.equal(removed.body.data.role, "admin");
  const last = await op("DELETE", `/projects/${f.projectId}/members/${second.id}`);
  assert.equal(last.status, 409);
  assert.equal(last.body.error.code, "LAST_ADMIN");
});

test("removing a member revokes the user's OAuth refresh tokens for that project only", async () => {
  const f = await oauthFixture({ memberRole: "viewer" });
  const other = await newProject();
  await admin("POST", `/projects/${other.projectId}/members`, { userId: f.userId, role: "member" });
  const { db, clock } = await env();
  const row = (projectId: string) => ({
    id: crypto.randomUUID(),
    family_id: crypto.randomUUID(),
    code_id: null,
    token_hash: crypto.randomUUID(),
    client_id: "client-test",
    user_id: f.userId,
    project_id: projectId,
    scope: "read" as const,
    access_jti: null,
    access_expires_at: null,
    created_at: clock.now(),
    family_expires_at: new Date(clock.now().getTime() + 86_400_000),
  });
  const here = row(f.projectId);
  const there = row(other.projectId);
  await db.insertInto("oauth_refresh_tokens").values([here, there]).execute();
  const res = await op("DELETE", `/projects/${f.projectId}/members/${f.userId}`);
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.data.revokedRefreshTokens, 1);
  const rows = await db.selectFrom("oauth_refresh_tokens").select(["id", "revoked_at"])
    .where("id", "in", [here.id, there.id]).execute();
  assert.ok(rows.find((r) => r.id === here.id)?.revoked_at);
  assert.equal(rows.find((r) => r.id === there.id)?.revoked_at, null);
  assert.equal((await read(`/projects/${other.projectId}/members/${f.userId}`)).role, "member");
});

test("removing a member ends their open dashboard event stream at once, without sending another event", async () => {
  const f = await oauthFixture({ memberRole: "member" });
  const user = await read(`/users/${f.userId}`);
  const e = await env();
  const abort = new AbortController();
  const res = await e.fetch(`/projects/${f.projectId}/events`, {
    headers: { Cookie: await signIn(user.email) },
    signal: abort.signal,
  });
  assert.equal(res.status, 200);
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  assert.match((await reader.read()).value ?? "", /retry: 1000/);
  const removed = await op("DELETE", `/projects/${f.projectId}/members/${f.userId}`);
  assert.equal(removed.status, 200, removed.text);
  let received = "";
  let ended = false;
  const deadline = Date.now() + 5_000;
  while (Date.now() < deadline) {
    const next = await Promise.race([
      reader.read(),
      new Promise<null>((resolve) => setTimeout(() => resolve(null), Math.max(0, deadline - Date.now()))),
    ]);
    if (next === null) break;
    if (next.done) {
      ended = true;
      break;
    }
    received += next.value;
  }
  await reader.cancel().catch(() => {});
  abort.abort();
  assert.ok(ended, `the stream should end: ${received}`);
  assert.doesNotMatch(received, /member\.removed|^data:/m);
});
