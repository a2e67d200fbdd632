import assert from "node:assert/strict";
import { normalizeCode } from "@/domain/pairing/codes.ts";
import { hashPairingCode } from "@/domain/core/crypto.ts";
import { call, env, newProject, pairAgent, test } from "../helpers/mod.ts";
import { adminCode, connect } from "../pairing/helpers.ts";

/** Parallel redemptions of one pairing code and parallel uses of one refresh token (issue 8, item 4). */

async function codeRow(code: string) {
  const { db } = await env();
  return await db.selectFrom("pairing_codes").selectAll().where(
    "code_hash",
    "=",
    hashPairingCode(normalizeCode(code)),
  )
    .executeTakeFirstOrThrow();
}

async function openSessions(projectId: string) {
  const { db } = await env();
  return await db.selectFrom("sessions").select(["id", "agent_id"]).where("project_id", "=", projectId)
    .where("status", "in", ["active", "awaiting_input", "error"]).execute();
}

test("PAIR-003 ten agents redeem one pairing code at once: one connects, nine get 401 INVALID_CODE", async () => {
  const { projectId } = await newProject();
  const code = (await adminCode(projectId)).code as string;
  const results = await Promise.all(
    Array.from({ length: 10 }, (_, i) => connect({ code, agentName: `racer-${i}`, platform: "claude-code" })),
  );
  const statuses = results.map((r) => r.status);
  assert.equal(statuses.filter((s) => s === 200).length, 1, statuses.join(","));
  const winner = results.find((r) => r.status === 200)!;
  assert.equal(winner.body.data.status, "connected");
  for (const r of results.filter((r) => r.status !== 200)) {
    assert.equal(r.status, 401, r.text);
    assert.equal(r.body.error.code, "INVALID_CODE");
    assert.equal(r.body.error.details.recovery.action, "REQUEST_NEW_PAIRING_CODE");
  }
  // Invariants: one agent, consuming the code; one open session; one AGENT_JOINED entry.
  const { db } = await env();
  const agents = await db.selectFrom("agents").select(["id", "name"]).where("project_id", "=", projectId)
    .execute();
  assert.deepEqual(agents.map((a) => a.id), [winner.body.data.agent.id]);
  const row = await codeRow(code);
  assert.equal(row.consumed_by_agent_id, winner.body.data.agent.id);
  assert.deepEqual((await openSessions(projectId)).map((s) => s.id), [winner.body.data.sessionId]);
  const joined = await db.selectFrom("ledger_entries").select("id").where("project_id", "=", projectId)
    .where("type", "=", "AGENT_JOINED").execute();
  assert.equal(joined.length, 1);
  // PAIR-006: the nine other agents presenting the used code are strikes; three invalidate it, as when
  // they come one after another.
  assert.ok(row.strikes >= 3, String(row.strikes));
  assert.notEqual(row.invalidated_at, null);
  assert.equal((await call("GET", "/me", { token: winner.body.data.sessionToken })).status, 200);
});

test("PAIR-004 PAIR-036 one agent redeeming its code ten times at once: one connected, nine reconnected, one open session", async () => {
  const { projectId } = await newProject();
  const code = (await adminCode(projectId)).code as string;
  const results = await Promise.all(
    Array.from({ length: 10 }, () => connect({ code, agentName: "retrier", platform: "claude-code" })),
  );
  assert.deepEqual(results.map((r) => r.status), Array(10).fill(200), results.map((r) => r.text).join("\n"));
  const kinds = results.map((r) => r.body.data.status);
  assert.equal(kinds.filter((k) => k === "connected").length, 1, kinds.join(","));
  assert.equal(kinds.filter((k) => k === "reconnected").length, 9);
  const agentIds = new Set(results.map((r) => r.body.data.agent.id));
  assert.equal(agentIds.size, 1);
  const open = await openSessions(projectId);
  assert.equal(open.length, 1, "every pairing completed the sessions opened before it");
  // Only the token of the session still open works.
  const live = results.filter((r) => r.body.data.sessionId === open[0]!.id);
  assert.equal(live.length, 1);
  const answers = await Promise.all(
    results.map((r) => call("GET", "/me", { token: r.body.data.sessionToken })),
  );
  assert.deepEqual(answers.map((a) => a.status).sort(), [200, ...Array(9).fill(401)]);
  assert.equal((await codeRow(code)).strikes, 0);
});

test("SESS-025 SESS-026 ten refreshes of one session token at once: one succeeds, the old token and its sub-agent tokens stop", async () => {
  const { projectId } = await newProject();
  const orch = await pairAgent(projectId, { role: "orchestrator" });
  const minted = await call("POST", "/subagent/session", {
    token: orch.token,
    body: { name: "worker-1", role: "generator" },
  });
  assert.equal(minted.status, 201, minted.text);
  const sub = minted.body.data.subAgentToken as string;
  const results = await Promise.all(
    Array.from({ length: 10 }, () => call("POST", "/session/refresh", { body: { token: orch.token } })),
  );
  const statuses = results.map((r) => r.status);
  assert.equal(statuses.filter((s) => s === 200).length, 1, statuses.join(","));
  const winner = results.find((r) => r.status === 200)!;
  assert.equal(winner.body.data.refreshMode, "live");
  const refused = results.filter((r) => r.status !== 200);
  const unauthorized = refused.filter((r) => r.status === 401);
  for (const r of unauthorized) {
    assert.equal(r.body.error.code, "UNAUTHORIZED");
    assert.equal(r.body.error.details.recovery.action, "REPAIR");
    assert.equal(r.text, unauthorized[0]!.text, "SESS-029: one indistinguishable refusal");
  }
  for (const r of refused.filter((r) => r.status !== 401)) {
    // More than 5 refreshes of the agent in the hour (the losers counted as attempts).
    assert.equal(r.status, 429, r.text);
    assert.equal(r.body.error.code, "RATE_LIMITED");
  }
  // Invariants: one live session token for the session (the winner's), the old token and the sub-agent
  // token it minted refused, one session.refreshed event.
  const { db } = await env();
  const live = await db.selectFrom("tokens").select("id").where("session_id", "=", orch.sessionId)
    .where("kind", "=", "session").where("revoked_at", "is", null).execute();
  assert.equal(live.length, 1);
  for (const token of [orch.token, sub]) {
    const res = await call("GET", "/me", { token });
    assert.equal(res.status, 401);
    assert.equal(res.body.error.code, "UNAUTHORIZED");
  }
  const me = await call("GET", "/me", { token: winner.body.data.sessionToken });
  assert.equal(me.status, 200, "the losers' use of the old token does not revoke the new one");
  assert.equal(me.body.data.sessionId, orch.sessionId);
  const events = await db.selectFrom("events").select("kind").where("entity_id", "=", orch.sessionId)
    .where("kind", "=", "session.refreshed").execute();
  assert.equal(events.length, 1);
});
