import assert from "node:assert/strict";
import { call, env, newProject, pairAgent, test } from "../helpers/mod.ts";

const HOUR = 3600_000;
const MINUTE = 60_000;

/** Sets an agent's counter in the current window, as if it had already spent `count` units. */
async function spend(key: string, windowMs: number, count: number): Promise<void> {
  const e = await env();
  const now = e.clock.now();
  const start = new Date(Math.floor(now.getTime() / windowMs) * windowMs);
  await e.db.insertInto("rate_counters")
    .values({ key, window_start: start, count, expires_at: new Date(start.getTime() + windowMs) })
    .onConflict((oc) => oc.columns(["key", "window_start"]).doUpdateSet({ count }))
    .execute();
}

test("RATE-011 RATE-020 RATE-021 RATE-026 free plan: the 501st unit in the hour answers 429 RATE_LIMITED", async () => {
  const { projectId } = await newProject({ plan: "free" });
  const agent = await pairAgent(projectId);
  await spend(`units:agent:${agent.agentId}`, HOUR, 499);
  const last = await call("GET", "/me", { token: agent.token });
  assert.equal(last.status, 200);
  assert.equal(last.body.meta.callsRemaining, 0);
  assert.equal(last.headers.get("X-RateLimit-Limit"), "500");
  const refused = await call("GET", "/me", { token: agent.token });
  assert.equal(refused.status, 429);
  assert.deepEqual(Object.keys(refused.body.error).sort(), ["code", "message"]);
  assert.equal(refused.body.error.code, "RATE_LIMITED");
  assert.ok(Number(refused.headers.get("Retry-After")) >= 1);
});

test("RATE-012 RATE-013 RATE-014 plan limits appear in X-RateLimit-Limit", async () => {
  for (const [plan, limit] of [["builder", "1500"], ["growth", "4000"], ["team", "15000"]] as const) {
    const { projectId } = await newProject({ plan });
    const agent = await pairAgent(projectId);
    const res = await call("GET", "/me", { token: agent.token });
    assert.equal(res.headers.get("X-RateLimit-Limit"), limit, plan);
  }
});

test("RATE-015 RATE-027 enterprise: unlimited, no X-RateLimit-Remaining, burst still reported", async () => {
  const { projectId } = await newProject({ plan: "enterprise" });
  const agent = await pairAgent(projectId);
  await spend(`units:agent:${agent.agentId}`, HOUR, 1_000_000);
  const res = await call("GET", "/me", { token: agent.token });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("X-RateLimit-Limit"), "unlimited");
  assert.equal(res.headers.get("X-RateLimit-Remaining"), null);
  assert.ok(res.headers.get("X-Burst-Remaining"));
});

test("RATE-016 RATE-025 the one-minute burst window of 240 units per agent", async () => {
  const { projectId } = await newProject({ plan: "enterprise" });
  const agent = await pairAgent(projectId);
  await spend(`burst:agent:${agent.agentId}`, MINUTE, 239);
  const ok = await call("GET", "/me", { token: agent.token });
  assert.equal(ok.status, 200);
  assert.equal(ok.headers.get("X-Burst-Remaining"), "0");
  const refused = await call("GET", "/me", { token: agent.token });
  assert.equal(refused.status, 429);
  assert.equal(refused.body.error.code, "RATE_LIMITED");
  assert.ok(refused.headers.get("Retry-After"));
});

test("RATE-017 RATE-018 RATE-023 the project window is three times the agent limit and Remaining is the lower", async () => {
  const { projectId } = await newProject({ plan: "free" });
  const a = await pairAgent(projectId);
  await spend(`units:project:${projectId}`, HOUR, 1400);
  const res = await call("GET", "/me", { token: a.token });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("X-RateLimit-Remaining"), String(1500 - 1401));
  await spend(`units:project:${projectId}`, HOUR, 1500);
  const refused = await call("GET", "/me", { token: a.token });
  assert.equal(refused.status, 429, "the project's hourly window is 3 x 500");
});

test("RATE-019 the project burst window is 720 units", async () => {
  const { projectId } = await newProject({ plan: "enterprise" });
  const a = await pairAgent(projectId);
  await spend(`burst:project:${projectId}`, MINUTE, 720);
  const refused = await call("GET", "/me", { token: a.token });
  assert.equal(refused.status, 429);
});

test("RATE-003 RATE-024 a light read costs 1 unit and X-RateLimit-Reset is Unix seconds of the window end", async () => {
  const { projectId } = await newProject({ plan: "free" });
  const a = await pairAgent(projectId);
  const first = await call("GET", "/me", { token: a.token });
  const second = await call("GET", "/me", { token: a.token });
  assert.equal(
    Number(first.headers.get("X-RateLimit-Remaining")) - Number(second.headers.get("X-RateLimit-Remaining")),
    1,
  );
  const reset = Number(second.headers.get("X-RateLimit-Reset"));
  const now = (await env()).clock.now().getTime() / 1000;
  assert.ok(reset > now && reset <= now + 3600, `reset ${reset} within the hour`);
});

test("RATE-001 more than 200 requests in 5 minutes on one session token answers 401, not 429", async () => {
  const { projectId } = await newProject({ plan: "enterprise" });
  const a = await pairAgent(projectId);
  const e = await env();
  const row = await e.db.selectFrom("tokens").select("id").where("session_id", "=", a.sessionId)
    .executeTakeFirstOrThrow();
  await spend(`sess:${row.id}`, 5 * MINUTE, 199);
  assert.equal((await call("GET", "/me", { token: a.token })).status, 200);
  const refused = await call("GET", "/me", { token: a.token });
  assert.equal(refused.status, 401);
  assert.equal(refused.body.error.code, "UNAUTHORIZED");
});

test("RATE-040 more than 10 pairing attempts from one IP in 5 minutes answers 429 RATE_LIMITED", async () => {
  const headers = { "X-Forwarded-For": "203.0.113.77" };
  for (let i = 0; i < 10; i++) {
    const res = await call("POST", "/pair/connect", { body: { code: "NOPE0000" }, headers });
    assert.equal(res.status, 401);
  }
  const refused = await call("POST", "/pair/connect", { body: { code: "NOPE0000" }, headers });
  assert.equal(refused.status, 429);
  assert.equal(refused.body.error.code, "RATE_LIMITED");
  assert.ok(refused.headers.get("Retry-After"));
  const other = await call("POST", "/pair/connect", {
    body: { code: "NOPE0000" },
    headers: { "X-Forwarded-For": "203.0.113.78" },
  });
  assert.equal(other.status, 401, "another address is not limited");
});
