import assert from "node:assert/strict";
import { normalizeCode } from "@/domain/pairing/codes.ts";
import { hashPairingCode } from "@/domain/core/crypto.ts";
import { sql } from "kysely";
import { toJson } from "@/db/tables/types.ts";
import { pruneTables } from "@/domain/maintenance/prune.ts";
import { hashToken } from "@/domain/core/crypto.ts";
import { admin, advanceClock, call, env, newProject, pairAgent, test } from "../helpers/mod.ts";

const MINUTE = 60_000;
const HOUR = 3600_000;
const DAY = 24 * HOUR;

async function prune() {
  const e = await env();
  return await pruneTables({ db: e.db, clock: e.clock });
}

async function counterKeys(like: string): Promise<string[]> {
  const { db } = await env();
  const rows = await db.selectFrom("rate_counters").select("key").where("key", "like", like).execute();
  return rows.map((r) => r.key).sort();
}

test("rate counters: windows that ended are pruned, the current windows every limit reads are kept", async () => {
  const { projectId } = await newProject({ plan: "team" });
  const agent = await pairAgent(projectId);
  // Start just after an hour boundary, so the hourly window stays current through the test.
  const { clock } = await env();
  await advanceClock(HOUR - (clock.now().getTime() % HOUR) + 1000);
  const first = await call("GET", "/me", { token: agent.token });
  const second = await call("GET", "/me", { token: agent.token });
  assert.equal(second.status, 200);
  const meCost = first.body.data.plan.callsRemaining - second.body.data.plan.callsRemaining;
  assert.ok(meCost >= 1, String(meCost));
  assert.ok((await counterKeys(`burst:agent:${agent.agentId}`)).length >= 1);

  await advanceClock(7 * MINUTE);
  const pruned = await prune();
  assert.ok(pruned.rateCounters >= 2, JSON.stringify(pruned));
  // The one-minute burst windows ended more than 5 minutes ago: gone. The hourly window is current: kept.
  assert.deepEqual(await counterKeys(`burst:agent:${agent.agentId}`), []);
  assert.deepEqual(await counterKeys(`units:agent:${agent.agentId}`), [`units:agent:${agent.agentId}`]);
  const third = await call("GET", "/me", { token: agent.token });
  assert.equal(third.status, 200);
  assert.equal(third.body.data.plan.callsRemaining, second.body.data.plan.callsRemaining - meCost);
});

test("pending jobs: done jobs go after a day, jobs that gave up after a week, open jobs stay", async () => {
  const { db, clock } = await env();
  const now = clock.now();
  const job = (id: string, attempts: number, done: boolean) => ({
    id,
    kind: "prune-test",
    payload: toJson({}),
    created_at: now,
    attempts,
    done_at: done ? now : null,
  });
  const done = crypto.randomUUID();
  const open = crypto.randomUUID();
  const dead = crypto.randomUUID();
  await db.insertInto("pending_jobs").values([job(done, 1, true), job(open, 0, false), job(dead, 5, false)])
    .execute();
  const left = async () =>
    (await db.selectFrom("pending_jobs").select("id").where("id", "in", [done, open, dead]).execute())
      .map((r) => r.id).sort();

  await prune();
  assert.deepEqual(await left(), [done, open, dead].sort(), "nothing is due yet");
  await advanceClock(DAY + MINUTE);
  await prune();
  assert.deepEqual(await left(), [open, dead].sort());
  await advanceClock(6 * DAY);
  await prune();
  assert.deepEqual(await left(), [open]);
  await db.deleteFrom("pending_jobs").where("id", "=", open).execute();
});

test("PAIR pairing codes: pruned a day after they stop working (expiry, or the end of the reuse window once used)", async () => {
  const { projectId } = await newProject();
  const { db } = await env();
  const unused = await admin("POST", `/projects/${projectId}/pairing-codes`, { role: "generator" });
  const used = await admin("POST", `/projects/${projectId}/pairing-codes`, { agentName: "reuser" });
  const paired = await call("POST", "/pair/connect", {
    body: { code: used.code, platform: "claude-code" },
    headers: { "X-Forwarded-For": "10.200.1.1" },
  });
  assert.equal(paired.status, 200, paired.text);
  const codes = async () =>
    (await db.selectFrom("pairing_codes").select("code_hash").where("project_id", "=", projectId).execute())
      .map((r) => r.code_hash).sort();
  const both = [unused.code, used.code].map((c: string) => hashPairingCode(normalizeCode(c))).sort();
  assert.deepEqual(await codes(), both);

  // Within the reuse window the used code still reconnects its agent after pruning runs.
  await advanceClock(50 * MINUTE);
  await prune();
  assert.deepEqual(await codes(), both);
  const again = await call("POST", "/pair/connect", {
    body: { code: used.code, platform: "claude-code" },
    headers: { "X-Forwarded-For": "10.200.1.2" },
  });
  assert.equal(again.status, 200, again.text);
  assert.equal(again.body.data.status, "reconnected");

  // A day after the unused code expired it goes; the used one stays until a day after its reuse window.
  await advanceClock(DAY - 40 * MINUTE);
  await prune();
  assert.deepEqual(await codes(), [
    hashPairingCode(normalizeCode(used.code)),
  ]);
  await advanceClock(HOUR);
  await prune();
  assert.deepEqual(await codes(), []);
  // Either way the answer to the code is the same as before pruning: unknown.
  const gone = await call("POST", "/pair/connect", {
    body: { code: unused.code, agentName: "late" },
    headers: { "X-Forwarded-For": "10.200.1.3" },
  });
  assert.equal(gone.status, 401);
  assert.equal(gone.body.error.code, "INVALID_CODE");
  // A fresh code is untouched.
  const fresh = await admin("POST", `/projects/${projectId}/pairing-codes`, { role: "generator" });
  await prune();
  assert.ok((await codes()).includes(hashPairingCode(normalizeCode(fresh.code))));
});

test("SESS-028 tokens: a session token expired less than 7 days ago is kept by pruning and still refreshes; long-dead and long-revoked tokens go", async () => {
  const { projectId } = await newProject();
  const { db } = await env();
  const recent = await pairAgent(projectId);
  const old = await pairAgent(projectId);
  const rowOf = (agentId: string) =>
    db.selectFrom("tokens").select(["id", "revoked_at"]).where("agent_id", "=", agentId)
      .where("kind", "=", "session").execute();
  // `old` is never used again (idle expiry t0 + 24 h); `recent` is used at t0 + 20 h and t0 + 40 h
  // (idle expiry t0 + 64 h). At t0 + 9 d 8 h, `old` expired 8 d 8 h ago (beyond the 7-day grace and the
  // day of margin), `recent` 6 d 16 h ago (still refreshable).
  for (let i = 0; i < 2; i++) {
    await advanceClock(20 * HOUR);
    assert.equal((await call("GET", "/me", { token: recent.token })).status, 200);
  }
  await advanceClock(9 * DAY + 8 * HOUR - 40 * HOUR);
  assert.equal((await call("GET", "/me", { token: recent.token })).status, 401);
  const pruned = await prune();
  assert.ok(pruned.tokens >= 1, JSON.stringify(pruned));
  assert.equal((await rowOf(old.agentId)).length, 0, "expired 8 days ago (beyond the 7-day grace + 1 day)");
  assert.equal((await rowOf(recent.agentId)).length, 1, "expired 7 days - 1 hour ago: still refreshable");

  const refreshed = await call("POST", "/session/refresh", { body: { token: recent.token } });
  assert.equal(refreshed.status, 200, refreshed.text);
  assert.equal(refreshed.body.data.refreshMode, "grace");
  const oldRefresh = await call("POST", "/session/refresh", { body: { token: old.token } });
  assert.equal(oldRefresh.status, 401);
  assert.equal(oldRefresh.body.error.details.recovery.action, "REPAIR");

  // A revoked token goes a week after its revocation even when it has not expired: refresh the new token
  // while it lives (it is revoked at once), then watch its row.
  const second = refreshed.body.data.sessionToken;
  const third = await call("POST", "/session/refresh", { body: { token: second } });
  assert.equal(third.status, 200, third.text);
  assert.equal(third.body.data.refreshMode, "live");
  const byToken = async (token: string) =>
    await db.selectFrom("tokens").select(["id", "revoked_at"]).where(
      "token_hash",
      "=",
      hashToken(token),
    )
      .executeTakeFirst();
  assert.ok((await byToken(second))?.revoked_at);
  await advanceClock(7 * DAY - HOUR);
  await prune();
  assert.ok(await byToken(second), "revoked 7 days - 1 hour ago: kept");
  await advanceClock(2 * HOUR);
  await prune();
  assert.equal(await byToken(second), undefined, "revoked 7 days + 1 hour ago: pruned");
  // The latest token idled out 6 days ago: still within its refresh grace, kept, and it refreshes.
  assert.equal((await byToken(third.body.data.sessionToken))?.revoked_at, null);
  const last = await call("POST", "/session/refresh", { body: { token: third.body.data.sessionToken } });
  assert.equal(last.status, 200, last.text);
  assert.equal(last.body.data.refreshMode, "grace");
});

test("SUB tokens: a dead session token whose sub-agent token still lives is kept (the delete would cascade)", async () => {
  const { projectId } = await newProject();
  const { db } = await env();
  const orch = await pairAgent(projectId, { role: "orchestrator" });
  const minted = await call("POST", "/subagent/session", {
    token: orch.token,
    body: { name: "keeper", role: "generator", ttlHours: 72 },
  });
  assert.equal(minted.status, 201, minted.text);
  const parent = await db.selectFrom("tokens").select("id").where("agent_id", "=", orch.agentId)
    .where("kind", "=", "session").executeTakeFirstOrThrow();
  // The parent's idle expiry pushed far into the past (as after a long outage); the child still lives.
  await db.updateTable("tokens").set({ idle_expires_at: new Date(0) }).where("id", "=", parent.id).execute();
  await prune();
  assert.ok(await db.selectFrom("tokens").select("id").where("id", "=", parent.id).executeTakeFirst());
  assert.equal((await call("GET", "/me", { token: minted.body.data.subAgentToken })).status, 200);
  // Once the child is dead beyond the grace too, both go.
  await advanceClock(72 * HOUR + 8 * DAY + HOUR);
  await prune();
  assert.equal(
    (await db.selectFrom("tokens").select("id").where("agent_id", "=", orch.agentId).execute()).length,
    0,
  );
});

test("pruning is bounded per batch and safe when several instances run it at once", async () => {
  const { db, clock } = await env();
  const past = new Date(clock.now().getTime() - DAY);
  const rows = Array.from({ length: 1200 }, (_, i) => ({
    key: `prune-test:${i}`,
    window_start: past,
    count: 1,
    expires_at: past,
  }));
  await db.insertInto("rate_counters").values(rows).execute();
  const e = await env();
  // One run with small batches stops after its last batch.
  const partial = await pruneTables({ db: e.db, clock: e.clock }, { batch: 100, maxBatches: 3 });
  assert.equal(partial.rateCounters, 300);
  const results = await Promise.all([prune(), prune(), prune()]);
  assert.equal(results.reduce((sum, r) => sum + r.rateCounters, 0), 900);
  const left = await sql<
    { n: number }
  >`SELECT count(*)::int AS n FROM rate_counters WHERE key LIKE 'prune-test:%'`
    .execute(db);
  assert.equal(left.rows[0]!.n, 0);
});
