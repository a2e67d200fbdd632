import assert from "node:assert/strict";
import { sql } from "kysely";
import { createApp } from "@/app.ts";
import { systemClock } from "@/clock.ts";
import { contractChecked } from "../helpers/contract-check.ts";
import { oauthFixture } from "../oauth/helpers.ts";
import {
  admin,
  ADMIN_TOKEN,
  call,
  callOn,
  env,
  newProject,
  pairAgent,
  test,
  type TestEnv,
} from "../helpers/mod.ts";

/**
 * Two instances in one test: a second app (its own clock, as a second process would have) on the same
 * database as the test file's service. Nothing that changes an answer may live in one process only.
 */
function tokenId(agent: { agentId: string }) {
  return sql<string>`(SELECT id FROM tokens WHERE agent_id = ${agent.agentId} AND kind = 'session')`;
}

async function secondInstance(): Promise<TestEnv> {
  const e = await env();
  const app = createApp({ db: e.db, engine: e.engine, clock: systemClock(), config: e.config });
  return {
    ...e,
    fetch: contractChecked((path: string, init?: RequestInit) =>
      Promise.resolve(app.fetch(new Request(`http://localhost:8787${path}`, init)))
    ),
    close: () => Promise.resolve(),
  };
}

test("SESS-033 SESS-035 two instances answer /me with the same body and the same cachedAt within 30 seconds", async () => {
  const one = await env();
  const two = await secondInstance();
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  const a = await callOn(two, "GET", "/api/me", { token: agent.token });
  assert.equal(a.status, 200, a.text);
  const b = await callOn(one, "GET", "/api/me", { token: agent.token });
  const c = await callOn(two, "GET", "/api/me", { token: agent.token });
  for (const res of [b, c]) {
    assert.equal(res.status, 200);
    assert.equal(res.body.data.cachedAt, a.body.data.cachedAt);
    const { plan: _p, ...rest } = res.body.data;
    const { plan: _q, ...first } = a.body.data;
    assert.deepEqual(rest, first);
  }
  // The entry lives in the database (shared by every process), not in a process's memory.
  const row = await one.db.selectFrom("me_cache").select("cached_at").where("token_id", "=", tokenId(agent))
    .executeTakeFirst();
  assert.equal(row?.cached_at.getTime(), a.body.data.cachedAt);
  // SESS-034: the budget is current on each instance.
  assert.ok(c.body.data.plan.callsRemaining < a.body.data.plan.callsRemaining);

  // After 30 seconds (the clock moved through one instance) both rebuild to one new cachedAt.
  await callOn(one, "POST", "/admin/clock", { token: ADMIN_TOKEN, body: { advanceMs: 30_001 } });
  const d = await callOn(one, "GET", "/api/me", { token: agent.token });
  const e = await callOn(two, "GET", "/api/me", { token: agent.token });
  assert.ok(d.body.data.cachedAt > a.body.data.cachedAt);
  assert.equal(e.body.data.cachedAt, d.body.data.cachedAt);
});

test("POST /admin/clock on one instance moves the clock of the other: a pairing code expires there too", async () => {
  const two = await secondInstance();
  const { projectId } = await newProject();
  const code = await admin("POST", `/projects/${projectId}/pairing-codes`, { role: "generator" });
  const before = await callOn(two, "GET", `/api/pair/prompt?code=${code.code}`);
  assert.equal(before.status, 200, before.text);
  // Advanced through the test file's instance only (the helper calls it), seen by the second one.
  const moved = await admin("POST", "/clock", { advanceMs: 6 * 60_000 });
  const after = await callOn(two, "GET", `/api/pair/prompt?code=${code.code}`);
  assert.equal(after.status, 404);
  const connect = await callOn(two, "POST", "/api/pair/connect", {
    body: { code: code.code, agentName: "late" },
    headers: { "X-Forwarded-For": "10.77.0.1" },
  });
  assert.equal(connect.status, 401);
  assert.equal(connect.body.error.code, "INVALID_CODE");
  // Both instances report the same time through the operator API.
  const there = await callOn(two, "POST", "/admin/clock", { token: ADMIN_TOKEN, body: { advanceMs: 0 } });
  const drift = Date.parse(there.body.data.now) - Date.parse(moved.now);
  assert.ok(drift >= 0 && drift < 5_000, String(drift));
});

test("ROLE-007 an operator revocation on one instance is refused by the other on its very next request", async () => {
  const two = await secondInstance();
  const { projectId } = await newProject();
  const keyed = await admin("POST", `/projects/${projectId}/api-keys`, { agentName: "x-key" });
  const revokedAgent = await pairAgent(projectId);
  const ended = await pairAgent(projectId);
  const f = await oauthFixture({ memberRole: "member" });
  const accessToken = await f.mint("write");
  const credentials = [keyed.key, revokedAgent.token, ended.token, accessToken];
  // Each works on the second instance first (and fills its /me cache entry), so a cache would show.
  for (const token of credentials) assert.equal((await callOn(two, "GET", "/api/me", { token })).status, 200);

  const undo = [
    ["DELETE", `/admin/projects/${projectId}/api-keys/${keyed.id}`],
    ["POST", `/admin/projects/${projectId}/agents/${revokedAgent.agentId}/revoke`],
    ["DELETE", `/admin/sessions/${ended.sessionId}`],
    ["DELETE", `/admin/projects/${f.projectId}/members/${f.userId}`],
  ] as const;
  for (const [i, [method, path]] of undo.entries()) {
    const res = await call(method, path, { token: ADMIN_TOKEN });
    assert.equal(res.status, 200, `${method} ${path}: ${res.text}`);
    for (const route of ["/api/me", "/api/context"]) {
      const next = await callOn(two, "GET", route, { token: credentials[i] });
      assert.equal(next.status, 401, `${route} after ${method} ${path}: ${next.text}`);
      assert.equal(next.body.error.code, "UNAUTHORIZED");
    }
  }
});
