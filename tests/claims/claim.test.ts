import assert from "node:assert/strict";
import { admin, advanceClock, call, env, newProject, pairAgent, test } from "../helpers/mod.ts";
import { insertSubAgent, insertTicket } from "../helpers/fixtures.ts";

const MIN = 60_000;

async function claim(token: string, body: Record<string, unknown>, headers: Record<string, string> = {}) {
  return await call("POST", "/claim", { token, body, headers });
}

async function claimRow(projectId: string, file: string) {
  const { db } = await env();
  return await db.selectFrom("claim_files as f").innerJoin("claims as c", "c.id", "f.claim_id")
    .selectAll("c").where("f.project_id", "=", projectId).where("f.file", "=", file)
    .where("f.released_at", "is", null).executeTakeFirst();
}

test("CLAIM-001 CLAIM-014 a claim answers { claims[] { file, claimedAt, expiresAt }, nextAction }", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const res = await claim(a.token, { files: ["src/a.ts", "src/b.ts"] });
  assert.equal(res.status, 200, res.text);
  const data = res.body.data;
  assert.deepEqual(data.claims.map((c: { file: string }) => c.file), ["src/a.ts", "src/b.ts"]);
  for (const c of data.claims) {
    // The spec's three fields, plus the documented extension `fence` (issue 25: fencing tokens).
    assert.deepEqual(Object.keys(c).filter((k) => k !== "fence").sort(), ["claimedAt", "expiresAt", "file"]);
    assert.ok(Number.isInteger(c.fence));
    assert.ok(Date.parse(c.claimedAt) < Date.parse(c.expiresAt));
  }
  assert.equal(typeof data.nextAction.action, "string");
  assert.equal(typeof data.nextAction.message, "string");
  assert.equal(data.idempotent, undefined);
});

test("CLAIM-002 CLAIM-013 CLAIM-004 the claim records ticket, commitSha, allowSubAgents, agent, sub-agent and session", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const ticket = await insertTicket(projectId);
  const res = await claim(a.token, {
    files: ["src/x.ts"],
    ticketId: ticket.key,
    commitSha: "abc1234def",
    allowSubAgents: true,
  });
  assert.equal(res.status, 200, res.text);
  const row = await claimRow(projectId, "src/x.ts");
  assert.ok(row);
  assert.equal(row.ticket_id, ticket.id);
  assert.equal(row.commit_sha, "abc1234def");
  assert.equal(row.allow_sub_agents, true);
  assert.equal(row.agent_id, a.agentId);
  assert.equal(row.sub_agent_name, null);
  assert.equal(row.session_id, a.sessionId);
  assert.equal(row.released_at, null);

  await insertSubAgent(projectId, a.agentId, "worker-1");
  const sub = await claim(a.token, { files: ["src/sub.ts"] }, { "X-Svc-SubAgent": "worker-1" });
  assert.equal(sub.status, 200, sub.text);
  assert.equal((await claimRow(projectId, "src/sub.ts"))?.sub_agent_name, "worker-1");
});

test("CLAIM-013 a malformed commitSha answers 400", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const res = await claim(a.token, { files: ["src/x.ts"], commitSha: "not a sha" });
  assert.equal(res.status, 400);
  assert.equal(res.body.error.code, "VALIDATION_ERROR");
});

test("CLAIM-005 POST /claim needs scope write:claim", async () => {
  const { projectId } = await newProject();
  const key = await admin("POST", `/projects/${projectId}/api-keys`, {
    agentName: "reader",
    scopes: ["read:board", "write:ledger"],
  });
  const res = await claim(key.key, { files: ["src/a.ts"] });
  assert.equal(res.status, 403);
  assert.equal(res.body.error.code, "FORBIDDEN");
  const full = await admin("POST", `/projects/${projectId}/api-keys`, {
    agentName: "writer",
    scopes: ["write:claim"],
  });
  assert.equal((await claim(full.key, { files: ["src/a.ts"] })).status, 200);
});

test("CLAIM-006 only generators claim: other roles get 403 with guidance, requiredRole, actualRole", async () => {
  const { projectId } = await newProject();
  for (const role of ["evaluator", "observer", "orchestrator"]) {
    const agent = await pairAgent(projectId, { role });
    const res = await claim(agent.token, { files: ["src/a.ts"] });
    assert.equal(res.status, 403, `${role}: ${res.text}`);
    assert.equal(res.body.error.code, "FORBIDDEN");
    assert.equal(res.body.error.details.requiredRole, "generator");
    assert.equal(res.body.error.details.actualRole, role);
    assert.equal(typeof res.body.error.details.guidance, "string");
  }
  const gen = await pairAgent(projectId, { role: "generator" });
  assert.equal((await claim(gen.token, { files: ["src/a.ts"] })).status, 200);
});

test("CLAIM-007 files is required, 1 to 20 entries", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  for (const body of [{}, { files: [] }, { files: Array.from({ length: 21 }, (_, i) => `f${i}.ts`) }]) {
    const res = await claim(a.token, body);
    assert.equal(res.status, 400, JSON.stringify(body));
    assert.equal(res.body.error.code, "VALIDATION_ERROR");
  }
  assert.equal((await claim(a.token, { files: ["one.ts"] })).status, 200);
  const twenty = await claim(a.token, { files: Array.from({ length: 20 }, (_, i) => `t${i}.ts`) });
  assert.equal(twenty.status, 200);
  assert.equal(twenty.body.data.claims.length, 20);
});

test("CLAIM-008 ticketId links the claim to the ticket; an unknown ticket answers 404 RESOLVE_TICKET_REF", async () => {
  const { projectId, prefix } = await newProject();
  const a = await pairAgent(projectId);
  const ticket = await insertTicket(projectId);
  assert.equal((await claim(a.token, { files: ["src/t.ts"], ticketId: ticket.id })).status, 200);
  assert.equal((await claimRow(projectId, "src/t.ts"))?.ticket_id, ticket.id);
  const missing = await claim(a.token, { files: ["src/u.ts"], ticketId: `${prefix}-999` });
  assert.equal(missing.status, 404);
  assert.equal(missing.body.error.details.recovery.action, "RESOLVE_TICKET_REF");
  assert.equal(await claimRow(projectId, "src/u.ts"), undefined);
});

test("CLAIM-009 estimatedSeconds sets expiresAt = claimedAt + seconds; zero, negative, fractional answer 400", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const res = await claim(a.token, { files: ["src/e.ts"], estimatedSeconds: 90 });
  assert.equal(res.status, 200);
  const c = res.body.data.claims[0];
  assert.equal(Date.parse(c.expiresAt) - Date.parse(c.claimedAt), 90_000);
  for (const estimatedSeconds of [0, -5, 1.5, "60", 86_401]) {
    const bad = await claim(a.token, { files: ["src/f.ts"], estimatedSeconds });
    assert.equal(bad.status, 400, String(estimatedSeconds));
    assert.equal(bad.body.error.code, "VALIDATION_ERROR");
  }
  const max = await claim(a.token, { files: ["src/g.ts"], estimatedSeconds: 86_400 });
  assert.equal(max.status, 200);
  const m = max.body.data.claims[0];
  assert.equal(Date.parse(m.expiresAt) - Date.parse(m.claimedAt), 86_400_000);
});

test("CLAIM-011 a first claim without estimatedSeconds expires 30 minutes after it was made", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const res = await claim(a.token, { files: ["src/d.ts"] });
  const c = res.body.data.claims[0];
  assert.equal(Date.parse(c.expiresAt) - Date.parse(c.claimedAt), 30 * MIN);
});

test("CLAIM-010 CLAIM-015 re-claiming held files moves expiry 30 minutes ahead, idempotent and renewed", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const first = await claim(a.token, { files: ["src/r.ts", "src/s.ts"], estimatedSeconds: 120 });
  assert.equal(first.status, 200);
  await advanceClock(60_000);
  const again = await claim(a.token, { files: ["src/s.ts", "src/r.ts"] });
  assert.equal(again.status, 200, again.text);
  assert.equal(again.body.data.idempotent, true);
  assert.equal(again.body.data.renewed, true);
  const before = first.body.data.claims[0];
  const after = again.body.data.claims.find((c: { file: string }) => c.file === "src/r.ts");
  assert.equal(after.claimedAt, before.claimedAt);
  // The service clock runs in real time too: allow a few seconds of test runtime.
  const delta = Date.parse(after.expiresAt) - Date.parse(before.claimedAt) - (60_000 + 30 * MIN);
  assert.ok(delta >= 0 && delta < 5_000, String(delta));
  // A partial re-claim (one new file) renews and claims, but is not idempotent.
  const partial = await claim(a.token, { files: ["src/r.ts", "src/new.ts"] });
  assert.equal(partial.status, 200);
  assert.equal(partial.body.data.idempotent, undefined);
  assert.equal(partial.body.data.renewed, undefined);
});

test("CLAIM-012 CLAIM-016 a sub-agent claiming its parent's files held with allowSubAgents gets inherited", async () => {
  const { projectId } = await newProject();
  const parent = await pairAgent(projectId);
  await insertSubAgent(projectId, parent.agentId, "helper");
  assert.equal((await claim(parent.token, { files: ["src/p.ts"], allowSubAgents: true })).status, 200);
  const res = await claim(parent.token, { files: ["src/p.ts"] }, { "X-Svc-SubAgent": "helper" });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.data.inherited, true);
  assert.equal(res.body.data.claims[0].file, "src/p.ts");
  // Still the parent's claim: one holder.
  assert.equal((await claimRow(projectId, "src/p.ts"))?.sub_agent_name, null);
});

test("CLAIM-012 CLAIM-020 without allowSubAgents the sub-agent conflicts with recovery release", async () => {
  const { projectId } = await newProject();
  const parent = await pairAgent(projectId);
  await insertSubAgent(projectId, parent.agentId, "helper");
  assert.equal((await claim(parent.token, { files: ["src/q.ts"] })).status, 200);
  const res = await claim(parent.token, { files: ["src/q.ts"] }, { "X-Svc-SubAgent": "helper" });
  assert.equal(res.status, 409);
  assert.equal(res.body.error.code, "CONFLICT");
  assert.equal(res.body.error.details.conflicts[0].recovery.action, "release");
  assert.equal(res.body.error.details.conflicts[0].claimantName, parent.name);
});

test("CLAIM-020 an own-agent conflict's recovery names the real holder: the parent, a sub-agent or a sibling sub-agent", async () => {
  const { projectId } = await newProject();
  const parent = await pairAgent(projectId);
  await insertSubAgent(projectId, parent.agentId, "left");
  await insertSubAgent(projectId, parent.agentId, "right");
  const left = { "X-Svc-SubAgent": "left" };
  const right = { "X-Svc-SubAgent": "right" };
  assert.equal((await claim(parent.token, { files: ["src/parent.ts"] })).status, 200);
  assert.equal((await claim(parent.token, { files: ["src/left.ts"] }, left)).status, 200);
  const cases: Array<[Record<string, string>, string, RegExp]> = [
    [
      left,
      "src/parent.ts",
      new RegExp(`^Your parent agent ${parent.name} holds src/parent.ts without allowSubAgents`),
    ],
    [{}, "src/left.ts", new RegExp(`^Your sub-agent ${parent.name}/left holds src/left.ts`)],
    [right, "src/left.ts", new RegExp(`^Your sibling sub-agent ${parent.name}/left holds src/left.ts`)],
  ];
  for (const [headers, file, hint] of cases) {
    const res = await claim(parent.token, { files: [file] }, headers);
    assert.equal(res.status, 409, res.text);
    const conflict = res.body.error.details.conflicts[0];
    assert.equal(conflict.recovery.action, "release");
    assert.match(conflict.recovery.hint, hint);
    assert.match(conflict.warning, /another identity of your own agent/);
  }
});

test("CLAIM-019 CLAIM-020 a file held by another agent answers 409 CONFLICT with conflict details (wait)", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const b = await pairAgent(projectId);
  await claim(a.token, { files: ["src/c.ts"] });
  await advanceClock(3 * MIN);
  const res = await claim(b.token, { files: ["src/c.ts"] });
  assert.equal(res.status, 409);
  assert.equal(res.body.error.code, "CONFLICT");
  const [conflict] = res.body.error.details.conflicts;
  assert.equal(conflict.file, "src/c.ts");
  assert.equal(conflict.claimantName, a.name);
  assert.equal(typeof conflict.claimedAt, "string");
  assert.equal(conflict.claimAgeMinutes, 3);
  assert.equal(conflict.isStale, false);
  assert.equal(typeof conflict.warning, "string");
  assert.equal(conflict.recovery.action, "wait");
  assert.equal(conflict.status, "active");
});

test("CLAIM-003 CLAIM-020 CLAIM-023 a claim older than 10 minutes is stale, reported wait_or_contact, never taken", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const b = await pairAgent(projectId);
  await claim(a.token, { files: ["src/old.ts"], estimatedSeconds: 3600 });
  await advanceClock(10 * MIN - 5_000);
  const young = await claim(b.token, { files: ["src/old.ts"] });
  assert.equal(young.status, 409);
  assert.equal(young.body.error.details.conflicts[0].isStale, false);
  assert.equal(young.body.error.details.conflicts[0].recovery.action, "wait");
  await advanceClock(6_000);
  const stale = await claim(b.token, { files: ["src/old.ts"] });
  assert.equal(stale.status, 409);
  const [conflict] = stale.body.error.details.conflicts;
  assert.equal(conflict.isStale, true);
  assert.equal(conflict.claimAgeMinutes, 10);
  assert.equal(conflict.recovery.action, "wait_or_contact");
  assert.equal((await claimRow(projectId, "src/old.ts"))?.agent_id, a.agentId);
});

test("CLAIM-024 a conflicting request claims nothing, not even its free files", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const b = await pairAgent(projectId);
  await claim(a.token, { files: ["src/held.ts"] });
  const res = await claim(b.token, { files: ["src/free.ts", "src/held.ts"] });
  assert.equal(res.status, 409);
  assert.deepEqual(res.body.error.details.conflicts.map((c: { file: string }) => c.file), ["src/held.ts"]);
  assert.equal(await claimRow(projectId, "src/free.ts"), undefined);
});

test("CLAIM-001 an expired claim stops counting: another agent may claim the file", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const b = await pairAgent(projectId);
  await claim(a.token, { files: ["src/exp.ts"], estimatedSeconds: 60 });
  await advanceClock(61_000);
  const res = await claim(b.token, { files: ["src/exp.ts"] });
  assert.equal(res.status, 200, res.text);
  assert.equal((await claimRow(projectId, "src/exp.ts"))?.agent_id, b.agentId);
});

test("CLAIM-017 CLAIM-018 CLAIM-021 a reconnect within the 5-minute grace period restores; others get grace_period", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const b = await pairAgent(projectId);
  await claim(a.token, { files: ["src/g1.ts", "src/g2.ts"] });
  // Pairing again completes the agent's open sessions: its claims enter the grace period.
  const again = await pairAgent(projectId, { name: a.name });
  assert.equal(again.agentId, a.agentId);
  const other = await claim(b.token, { files: ["src/g1.ts"] });
  assert.equal(other.status, 409);
  assert.equal(other.body.error.details.conflicts[0].status, "grace_period");
  assert.equal(other.body.error.details.conflicts[0].recovery.action, "wait");
  await advanceClock(4 * MIN);
  const restored = await claim(again.token, { files: ["src/g1.ts", "src/g2.ts"] });
  assert.equal(restored.status, 200, restored.text);
  assert.equal(restored.body.data.restored, true);
  assert.equal((await claimRow(projectId, "src/g1.ts"))?.session_id, again.sessionId);
  // Restored claims belong to a live session again: no grace period any more.
  await advanceClock(2 * MIN);
  assert.equal(
    (await claim(b.token, { files: ["src/g2.ts"] })).body.error.details.conflicts[0].status,
    "active",
  );
});

test("CLAIM-018 after the grace period a disconnected agent's claim stops counting", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const b = await pairAgent(projectId);
  await claim(a.token, { files: ["src/gone.ts"] });
  await pairAgent(projectId, { name: a.name });
  await advanceClock(5 * MIN + 1_000);
  const res = await claim(b.token, { files: ["src/gone.ts"] });
  assert.equal(res.status, 200, res.text);
});

test("LEDGER-007 a claim writes a system CONTEXT ledger entry and a claim.acquired event", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  await claim(a.token, { files: ["src/ctx.ts"] });
  const { db } = await env();
  const entry = await db.selectFrom("ledger_entries").selectAll().where("project_id", "=", projectId)
    .where("type", "=", "CONTEXT").where("agent_id", "=", a.agentId).executeTakeFirst();
  assert.ok(entry);
  assert.equal(entry.source, "system");
  assert.match(entry.content, /src\/ctx\.ts/);
  const event = await db.selectFrom("events").selectAll().where("project_id", "=", projectId)
    .where("kind", "=", "claim.acquired").executeTakeFirst();
  assert.ok(event);
});

test("RATE-031 more than 45 claim calls in 5 minutes answer 429 BACKPRESSURE with Retry-After", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  await advanceClock(5 * MIN - ((await env()).clock.now().getTime() % (5 * MIN)) + 1);
  for (let i = 0; i < 45; i++) {
    const res = await claim(a.token, { files: [`src/bp${i}.ts`], estimatedSeconds: 3600 });
    assert.equal(res.status, 200, `call ${i + 1}: ${res.text}`);
  }
  const over = await claim(a.token, { files: ["src/bp-over.ts"] });
  assert.equal(over.status, 429);
  assert.equal(over.body.error.code, "BACKPRESSURE");
  assert.ok(Number(over.headers.get("Retry-After")) >= 1);
});
