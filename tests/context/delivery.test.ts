import assert from "node:assert/strict";
import { sql } from "kysely";
import { setBrief } from "../helpers/fixtures.ts";
import { type AgentFixture, call, env, newProject, pairAgent, test } from "../helpers/mod.ts";
import { insertNotification, minutesAgo, now } from "./fixtures.ts";

/**
 * GET /context delivers (marks read) notifications only in the statement that also records the call, and
 * only after every read of the answer succeeded: a failure anywhere in the call delivers nothing.
 */

const ctxOf = (token: string, query = "") => call("GET", `/context${query}`, { token });

async function notify(agent: AgentFixture, count: number): Promise<string[]> {
  const { db } = await env();
  const base = await now();
  for (let i = 0; i < count; i++) {
    await insertNotification(agent.projectId, agent.agentId, `mention ${i}`, minutesAgo(base, count - i));
  }
  const rows = await db.selectFrom("notifications").select("id").where(
    "recipient_agent_id",
    "=",
    agent.agentId,
  )
    .execute();
  return rows.map((r) => r.id).sort();
}

async function readIds(agentId: string): Promise<string[]> {
  const { db } = await env();
  const rows = await db.selectFrom("notifications").select("id").where("recipient_agent_id", "=", agentId)
    .where("read_at", "is not", null).execute();
  return rows.map((r) => r.id).sort();
}

function notificationIds(res: { body: { data: { updates: Array<{ id: string; source: string }> } } }) {
  return res.body.data.updates.filter((u) => u.source === "notification").map((u) => u.id);
}

/** A trigger that makes every write of `table` matching `when` fail; returns the function that drops it. */
async function failWrites(table: string, when: string): Promise<() => Promise<void>> {
  const { db } = await env();
  const name = `fail_${crypto.randomUUID().replace(/-/g, "").slice(0, 16)}`;
  await sql`CREATE FUNCTION ${sql.raw(name)}() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      RAISE EXCEPTION 'injected failure';
    END $$`.execute(db);
  await sql`CREATE TRIGGER ${sql.raw(name)} BEFORE INSERT OR UPDATE ON ${sql.raw(table)}
    FOR EACH ROW WHEN (${sql.raw(when)}) EXECUTE FUNCTION ${sql.raw(name)}()`.execute(db);
  return async () => {
    await sql`DROP TRIGGER ${sql.raw(name)} ON ${sql.raw(table)}`.execute(db);
    await sql`DROP FUNCTION ${sql.raw(name)}()`.execute(db);
  };
}

test("CTX-009 when the call's other write fails, no notification is delivered; the next call delivers them", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  const ids = await notify(agent, 3);
  const { db } = await env();
  // The write that records what the caller has seen fails (the same statement delivers the notifications).
  const restore = await failWrites("agent_context_state", `NEW.agent_id = '${agent.agentId}'::uuid`);
  const failed = await ctxOf(agent.token);
  await restore();
  assert.equal(failed.status, 500, failed.text);
  assert.equal(failed.body.error.code, "INTERNAL");
  assert.deepEqual(await readIds(agent.agentId), [], "nothing was marked read");
  const state = await db.selectFrom("agent_context_state").select("context_calls")
    .where("agent_id", "=", agent.agentId).executeTakeFirst();
  assert.equal(state, undefined, "the call was not recorded either");

  const next = await ctxOf(agent.token);
  assert.equal(next.status, 200, next.text);
  assert.deepEqual(notificationIds(next).sort(), ids);
  assert.deepEqual(await readIds(agent.agentId), ids);
  const again = await ctxOf(agent.token);
  assert.deepEqual(notificationIds(again), [], "delivered once");
});

test("CTX-009 SESS-079 a failure after the notifications were read (issuing meta.refreshedToken) delivers none", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  const ids = await notify(agent, 2);
  const { db } = await env();
  // The token is 20 minutes from its 7-day limit, so the call also issues a replacement token.
  const token = await db.selectFrom("tokens").select("id").where("session_id", "=", agent.sessionId)
    .where("kind", "=", "session").executeTakeFirstOrThrow();
  await db.updateTable("tokens").set({ expires_at: new Date((await now()).getTime() + 20 * 60_000) })
    .where("id", "=", token.id).execute();
  const restore = await failWrites("token_rotations", `NEW.old_token_id = '${token.id}'::uuid`);
  const failed = await ctxOf(agent.token);
  await restore();
  assert.equal(failed.status, 500, failed.text);
  assert.equal(failed.body.error.code, "INTERNAL");
  assert.deepEqual(await readIds(agent.agentId), [], "nothing was marked read");

  const next = await ctxOf(agent.token);
  assert.equal(next.status, 200, next.text);
  assert.match(next.body.meta.refreshedToken, /^svc_sess_/);
  assert.deepEqual(notificationIds(next).sort(), ids);
  assert.deepEqual(await readIds(agent.agentId), ids);
});

test("CTX-009 CTX-031 when the brief item takes a slot of updates, no notification is marked read unshown", async () => {
  const { projectId } = await newProject();
  await setBrief(projectId);
  const agent = await pairAgent(projectId);
  assert.equal((await ctxOf(agent.token)).status, 200);
  await setBrief(projectId, { scope: "Changed" }, 2);
  const ids = await notify(agent, 3);
  const first = await ctxOf(agent.token, "?updates_limit=2");
  assert.equal(first.status, 200, first.text);
  assert.deepEqual(first.body.data.updates.map((u: { kind: string }) => u.kind), [
    "brief.updated",
    "mention",
  ]);
  const shown = notificationIds(first);
  assert.deepEqual(await readIds(agent.agentId), shown, "only the notification shown is marked read");
  const second = await ctxOf(agent.token, "?updates_limit=2");
  const third = await ctxOf(agent.token, "?updates_limit=2");
  assert.deepEqual([...shown, ...notificationIds(second), ...notificationIds(third)].sort(), ids);
  assert.deepEqual(await readIds(agent.agentId), ids);
});

test("CTX-009 concurrent context calls never deliver one notification twice, and deliver each one shown", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  const ids = await notify(agent, 30);
  const calls = await Promise.all(Array.from({ length: 8 }, () => ctxOf(agent.token, "?updates_limit=10")));
  assert.deepEqual(calls.map((r) => r.status), Array(8).fill(200));
  const delivered = calls.flatMap(notificationIds);
  assert.equal(new Set(delivered).size, delivered.length, "no notification delivered twice");
  // Every notification marked read is in exactly one answer.
  assert.deepEqual(await readIds(agent.agentId), [...delivered].sort());
  // The rest (if any call found fewer than 10 free) comes with later calls, still once each.
  const rest: string[] = [];
  for (let i = 0; i < 3; i++) rest.push(...notificationIds(await ctxOf(agent.token, "?updates_limit=50")));
  const all = [...delivered, ...rest];
  assert.equal(new Set(all).size, all.length);
  assert.deepEqual(all.sort(), ids);
});
