import assert from "node:assert/strict";
import { call, env, pairAgent, test } from "../helpers/mod.ts";
import {
  insertClaim,
  insertLedgerEntry,
  insertSubAgent,
  insertTicket,
  ticketRow,
} from "../helpers/fixtures.ts";
import { apiKeyFor, entriesOf, handOff, handoffBody, LOOP_TICKET, ready, sessionRow } from "./fixtures.ts";

test("HAND-017 POST /handoff requires scope write:handoff", async () => {
  const r = await ready();
  const key = await apiKeyFor(r.projectId, r.agent.name, ["write:ledger", "read:board"]);
  const res = await handOff(r, {}, key);
  assert.equal(res.status, 403);
  assert.equal(res.body.error.code, "FORBIDDEN");
  assert.equal(res.body.error.details.requiredScope, "write:handoff");
  const allowed = await apiKeyFor(r.projectId, r.agent.name, ["write:handoff"]);
  assert.equal((await handOff(r, {}, allowed)).status, 200);
});

test("HAND-018 a non-generator gets 403 FORBIDDEN with recovery MINT_SUBAGENT_SESSION", async () => {
  const r = await ready({ ticket: false });
  for (const role of ["evaluator", "orchestrator", "observer"]) {
    const agent = await pairAgent(r.projectId, { role });
    await insertLedgerEntry(r.projectId, {
      type: "PROGRESS",
      agentId: agent.agentId,
      sessionId: agent.sessionId,
    });
    const res = await call("POST", "/handoff", { token: agent.token, body: handoffBody(agent.sessionId) });
    assert.equal(res.status, 403, `${role}: ${res.text}`);
    assert.equal(res.body.error.code, "FORBIDDEN");
    assert.equal(res.body.error.details.recovery.action, "MINT_SUBAGENT_SESSION");
    assert.equal((await sessionRow(agent.sessionId)).status, "active");
  }
});

test("HAND-019 POST /handoff requires moduleName", async () => {
  const r = await ready();
  const res = await call("POST", "/handoff", {
    token: r.agent.token,
    body: { summary: "x", sessionId: r.agent.sessionId, ticketId: r.ticket!.id },
  });
  assert.equal(res.status, 400);
  assert.equal(res.body.error.code, "VALIDATION_ERROR");
  assert.ok(res.body.error.details.fields.some((f: { path: string }) => f.path === "moduleName"));
});

test("HAND-020 summary is required, 1 to 2000 characters", async () => {
  const r = await ready();
  for (const summary of ["", "x".repeat(2001)]) {
    const res = await handOff(r, { summary });
    assert.equal(res.status, 400);
    assert.equal(res.body.error.code, "VALIDATION_ERROR");
  }
  const missing = await call("POST", "/handoff", {
    token: r.agent.token,
    body: { moduleName: "m", sessionId: r.agent.sessionId },
  });
  assert.equal(missing.status, 400);
  assert.equal((await handOff(r, { summary: "x".repeat(2000) })).status, 200);
  const one = await ready();
  assert.equal((await handOff(one, { summary: "x" })).status, 200);
});

test("HAND-021 sessionId is required and must be the caller's: another agent's answers 400", async () => {
  const r = await ready();
  const other = await pairAgent(r.projectId);
  const res = await call("POST", "/handoff", {
    token: r.agent.token,
    body: handoffBody(other.sessionId, { ticketId: r.ticket!.id }),
  });
  assert.equal(res.status, 400);
  assert.equal(res.body.error.code, "VALIDATION_ERROR");
  assert.equal((await sessionRow(other.sessionId)).status, "active");
  const missing = await call("POST", "/handoff", {
    token: r.agent.token,
    body: { moduleName: "m", summary: "s" },
  });
  assert.equal(missing.status, 400);
  const unknown = await call("POST", "/handoff", {
    token: r.agent.token,
    body: handoffBody(crypto.randomUUID()),
  });
  assert.equal(unknown.status, 400);
});

test("HAND-022 ticketId takes a key; without it the session closes and no ticket is touched", async () => {
  const r = await ready({ reviewMode: "light" });
  const byKey = await handOff(r, { ticketId: `${r.prefix}-${r.ticket!.number}` });
  assert.equal(byKey.status, 200, byKey.text);
  assert.equal((await ticketRow(r.ticket!.id)).status, "done");

  const n = await ready({ reviewMode: "light" });
  const before = await ticketRow(n.ticket!.id);
  const res = await call("POST", "/handoff", { token: n.agent.token, body: handoffBody(n.agent.sessionId) });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.data.ticketAdvanced, false);
  const after = await ticketRow(n.ticket!.id);
  assert.equal(after.status, before.status);
  assert.equal(after.updated_at.getTime(), before.updated_at.getTime());
  assert.equal((await sessionRow(n.agent.sessionId)).status, "complete");
});

test("HAND-023 testResults is at most 500 characters", async () => {
  const r = await ready();
  assert.equal((await handOff(r, { testResults: "x".repeat(501) })).status, 400);
  const res = await handOff(r, { testResults: "x".repeat(500) });
  assert.equal(res.status, 200, res.text);
});

test("HAND-024 artifacts holds at most 10 artifacts", async () => {
  const r = await ready();
  const artifact = (i: number) => ({ type: "commit", url: `https://git.example.com/c/${i}` });
  const eleven = await handOff(r, { artifacts: Array.from({ length: 11 }, (_, i) => artifact(i)) });
  assert.equal(eleven.status, 400);
  const ten = await handOff(r, { artifacts: Array.from({ length: 10 }, (_, i) => artifact(i)) });
  assert.equal(ten.status, 200, ten.text);
  const { db } = await env();
  const stored = await db.selectFrom("ticket_artifacts").select("id").where("ticket_id", "=", r.ticket!.id)
    .execute();
  assert.equal(stored.length, 10);
});

test("HAND-001 an artifact type is pull_request, branch, commit or deploy", async () => {
  const r = await ready();
  const bad = await handOff(r, { artifacts: [{ type: "tag", url: "https://x.example.com" }] });
  assert.equal(bad.status, 400);
  const types = ["pull_request", "branch", "commit", "deploy"];
  const res = await handOff(r, {
    artifacts: types.map((type) => ({ type, url: `https://x.example.com/${type}` })),
  });
  assert.equal(res.status, 200, res.text);
  const { db } = await env();
  const stored = await db.selectFrom("ticket_artifacts").select("type").where("ticket_id", "=", r.ticket!.id)
    .orderBy("type").execute();
  assert.deepEqual(stored.map((s) => s.type), ["branch", "commit", "deploy", "pull_request"]);
});

test("HAND-002 an artifact has a valid url and may carry ref, title and metadata", async () => {
  const r = await ready();
  assert.equal((await handOff(r, { artifacts: [{ type: "commit" }] })).status, 400);
  assert.equal((await handOff(r, { artifacts: [{ type: "commit", url: "not a url" }] })).status, 400);
  assert.equal(
    (await handOff(r, { artifacts: [{ type: "commit", url: "javascript:alert(1)" }] })).status,
    400,
  );
  const res = await handOff(r, {
    artifacts: [{
      type: "pull_request",
      url: "https://git.example.com/pr/7",
      ref: "feature/x",
      title: "Add x",
      metadata: { checks: "green" },
    }],
  });
  assert.equal(res.status, 200, res.text);
  const { db } = await env();
  const row = await db.selectFrom("ticket_artifacts").selectAll().where("ticket_id", "=", r.ticket!.id)
    .executeTakeFirstOrThrow();
  assert.equal(row.url, "https://git.example.com/pr/7");
  assert.equal(row.ref, "feature/x");
  assert.equal(row.title, "Add x");
  assert.deepEqual(row.metadata, { checks: "green" });
});

test("HAND-025 diffStat is at most 500 characters and is logged as a PROGRESS entry", async () => {
  const r = await ready();
  assert.equal((await handOff(r, { diffStat: "x".repeat(501) })).status, 400);
  const stat = "1 file changed, 3 insertions(+)" + " ".repeat(469);
  assert.equal(stat.length, 500);
  const res = await handOff(r, { diffStat: stat });
  assert.equal(res.status, 200, res.text);
  const entries = await entriesOf(r.agent.sessionId);
  assert.ok(entries.some((e) => e.type === "PROGRESS" && e.content === stat));
});

test("HAND-027 CONV-034 a session without PROGRESS entry answers 400 with details.missing [progress_entry], recovery ADD_REQUIRED_FIELDS", async () => {
  const r = await ready({ progress: false });
  await insertLedgerEntry(r.projectId, {
    type: "CHANGED",
    agentId: r.agent.agentId,
    sessionId: r.agent.sessionId,
  });
  const res = await handOff(r, { diffStat: "1 file changed" });
  assert.equal(res.status, 400);
  assert.equal(res.body.error.code, "VALIDATION_ERROR");
  assert.deepEqual(res.body.error.details.missing, ["progress_entry"]);
  const recovery = res.body.error.details.recovery;
  assert.equal(recovery.action, "ADD_REQUIRED_FIELDS");
  assert.equal(recovery.endpoint, "POST /ledger");
  assert.equal(recovery.payloadHint.type, "PROGRESS");
  assert.equal(recovery.payloadHint.sessionId, r.agent.sessionId);
  assert.match(recovery.hint, /PROGRESS entry/);
  assert.equal((await sessionRow(r.agent.sessionId)).status, "active");
  assert.equal((await ticketRow(r.ticket!.id)).status, "in_progress");
});

test("HAND-028 only the assignee advances the ticket; its sub-agent shares the identity", async () => {
  const r = await ready({ reviewMode: "light" });
  const { db, clock } = await env();
  await insertSubAgent(r.projectId, r.agent.agentId, "worker-1");
  // The sub-agent works in its own session (what minting it opens).
  const subSession = crypto.randomUUID();
  await db.insertInto("sessions").values({
    id: subSession,
    project_id: r.projectId,
    agent_id: r.agent.agentId,
    sub_agent_name: "worker-1",
    source: "subagent",
    ticket_id: null,
    started_at: clock.now(),
  }).execute();
  await insertLedgerEntry(r.projectId, {
    type: "PROGRESS",
    agentId: r.agent.agentId,
    subAgentName: "worker-1",
    sessionId: subSession,
  });
  const res = await call("POST", "/handoff", {
    token: r.agent.token,
    headers: { "X-Svc-SubAgent": "worker-1" },
    body: handoffBody(subSession, { ticketId: r.ticket!.id }),
  });
  assert.equal(res.status, 200, res.text);
  assert.equal((await ticketRow(r.ticket!.id)).status, "done");
  assert.equal((await sessionRow(subSession)).status, "complete");
  assert.equal((await sessionRow(r.agent.sessionId)).status, "active", "the parent's session stays open");
});

test("HAND-029 another agent's ticket: 403 with HANDOFF_WITHOUT_TICKET; unassigned without claim: BEGIN_TICKET", async () => {
  const r = await ready();
  const owner = await pairAgent(r.projectId);
  const theirs = await insertTicket(r.projectId, { ...LOOP_TICKET, assignee: owner.agentId });
  const a = await handOff(r, { ticketId: theirs.id });
  assert.equal(a.status, 403);
  assert.equal(a.body.error.code, "FORBIDDEN");
  assert.equal(a.body.error.details.recovery.action, "HANDOFF_WITHOUT_TICKET");
  const loose = await insertTicket(r.projectId, { ...LOOP_TICKET, assignee: null });
  const b = await handOff(r, { ticketId: loose.id });
  assert.equal(b.status, 403);
  assert.equal(b.body.error.details.recovery.action, "BEGIN_TICKET");
  assert.equal((await sessionRow(r.agent.sessionId)).status, "active");
});

test("HAND-030 an unassigned ticket is handed off by the agent holding an open claim, who becomes assignee", async () => {
  const r = await ready({ reviewMode: "light", ticket: { assignee: null }, claim: false });
  await insertClaim(r.projectId, { agentId: r.agent.agentId, files: ["src/z.ts"], ticketId: r.ticket!.id });
  const res = await handOff(r);
  assert.equal(res.status, 200, res.text);
  const t = await ticketRow(r.ticket!.id);
  assert.equal(t.assignee_agent_id, r.agent.agentId);
  assert.equal(t.status, "done");
});

test("HAND-031 a human-only ticket answers 403 FORBIDDEN", async () => {
  const r = await ready({ ticket: { humanOnly: true } });
  const res = await handOff(r);
  assert.equal(res.status, 403);
  assert.equal(res.body.error.code, "FORBIDDEN");
  assert.equal((await ticketRow(r.ticket!.id)).status, "in_progress");
});

test("HAND-032 a done or cancelled ticket answers 409 CONFLICT", async () => {
  for (const status of ["done", "cancelled"]) {
    const r = await ready({ ticket: { status } });
    const res = await handOff(r);
    assert.equal(res.status, 409, res.text);
    assert.equal(res.body.error.code, "CONFLICT");
    assert.equal((await sessionRow(r.agent.sessionId)).status, "active");
  }
});

test("HAND-033 a ticket never started answers 422 INVALID_TRANSITION with recovery BEGIN_TICKET", async () => {
  for (const status of ["backlog", "claimed"]) {
    const r = await ready({ ticket: { status } });
    const res = await handOff(r);
    assert.equal(res.status, 422, res.text);
    assert.equal(res.body.error.code, "INVALID_TRANSITION");
    assert.equal(res.body.error.details.recovery.action, "BEGIN_TICKET");
  }
});

test("HAND-034 an unknown ticket answers 404 TICKET_NOT_FOUND", async () => {
  const r = await ready();
  for (const ticketId of [crypto.randomUUID(), `${r.prefix}-999`]) {
    const res = await handOff(r, { ticketId });
    assert.equal(res.status, 404);
    assert.equal(res.body.error.code, "TICKET_NOT_FOUND");
    assert.equal(res.body.error.details.recovery.action, "RESOLVE_TICKET_REF");
  }
});
