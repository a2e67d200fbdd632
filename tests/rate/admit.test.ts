import assert from "node:assert/strict";
import { admin, call, env, newProject, pairAgent, test } from "../helpers/mod.ts";

const HOUR = 3600_000;

/** Sets an agent's hourly counter, as if it had already spent `count` units. */
async function spend(agentId: string, count: number): Promise<void> {
  const e = await env();
  const now = e.clock.now();
  const start = new Date(Math.floor(now.getTime() / HOUR) * HOUR);
  await e.db.insertInto("rate_counters")
    .values({
      key: `units:agent:${agentId}`,
      window_start: start,
      count,
      expires_at: new Date(start.getTime() + HOUR),
    })
    .onConflict((oc) => oc.columns(["key", "window_start"]).doUpdateSet({ count }))
    .execute();
}

// The one-statement admission (src/domain/auth/admit.ts) counts in the database: concurrent calls on one
// token see distinct counts and the limit admits exactly as many as remain, on PGlite and PostgreSQL.
test("RATE-011 RATE-020 concurrent calls are counted exactly: 20 units left, 30 calls at once, 20 admitted", async () => {
  const { projectId } = await newProject({ plan: "free" });
  const agent = await pairAgent(projectId);
  await spend(agent.agentId, 480);
  const answers = await Promise.all(
    Array.from({ length: 30 }, () => call("GET", "/me", { token: agent.token })),
  );
  const admitted = answers.filter((r) => r.status === 200);
  assert.equal(admitted.length, 20);
  assert.equal(answers.filter((r) => r.status === 429).length, 10);
  const remaining = admitted.map((r) => Number(r.headers.get("X-RateLimit-Remaining"))).sort((a, b) => a - b);
  assert.deepEqual(remaining, Array.from({ length: 20 }, (_, i) => i));
});

test("RATE-020 a call refused by its role is not charged; the next call is charged one unit", async () => {
  const { projectId } = await newProject({ plan: "free" });
  const gen = await pairAgent(projectId);
  const first = await call("GET", "/me", { token: gen.token });
  const before = Number(first.headers.get("X-RateLimit-Remaining"));
  const refused = await call("POST", "/subagent/session", {
    token: gen.token,
    body: { name: "w", role: "generator" },
  });
  assert.equal(refused.status, 403);
  const after = await call("GET", "/me", { token: gen.token });
  assert.equal(Number(after.headers.get("X-RateLimit-Remaining")), before - 1);
});

test("ROLE-007 an API key stops working at once when its agent is revoked (no cached admission)", async () => {
  const { projectId } = await newProject({ plan: "free" });
  const key = await admin("POST", `/projects/${projectId}/api-keys`, {
    agentName: "k-agent",
    role: "generator",
  });
  assert.equal((await call("GET", "/me", { token: key.key })).status, 200);
  const e = await env();
  await e.db.updateTable("agents").set({ status: "revoked" }).where("id", "=", key.agentId).execute();
  const refused = await call("GET", "/me", { token: key.key });
  assert.equal(refused.status, 401);
  assert.equal(refused.body.error.code, "UNAUTHORIZED");
});
