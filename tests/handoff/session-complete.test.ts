import assert from "node:assert/strict";
import { call, env, pairAgent, test } from "../helpers/mod.ts";
import { insertLedgerEntry } from "../helpers/fixtures.ts";
import { apiKeyFor, linkSession, type Ready, ready, sessionRow } from "./fixtures.ts";

const ALL = [
  "ticket_linked",
  "progress_entry",
  "tested_entry",
  "no_blocked_entry",
  "environment_report",
  "ticket_status",
];

/** A session whose closeout is satisfied: ticket linked, PROGRESS and TESTED entries, report posted. */
async function closeable(options: Parameters<typeof ready>[0] = {}): Promise<Ready> {
  const r = await ready({ claim: false, ...options });
  await linkSession(r.agent.sessionId, r.ticket?.id ?? null, true);
  return r;
}

async function complete(r: Ready, token = r.agent.token, sessionId = r.agent.sessionId) {
  return await call("POST", "/session/complete", { token, body: { sessionId } });
}

function refusedWith(res: Awaited<ReturnType<typeof complete>>, missing: string[]) {
  assert.equal(res.status, 422, res.text);
  assert.equal(res.body.error.code, "PRECONDITION_FAILED");
  assert.deepEqual(res.body.error.details.missing, missing);
  assert.deepEqual(res.body.error.details.completed, ALL.filter((i) => !missing.includes(i)));
}

test("SESS-047 a satisfied closeout answers { ok: true, sessionId }, completes the session, revokes the token", async () => {
  const r = await closeable();
  const res = await complete(r);
  assert.equal(res.status, 200, res.text);
  assert.deepEqual(res.body.data, { ok: true, sessionId: r.agent.sessionId });
  assert.equal((await sessionRow(r.agent.sessionId)).status, "complete");
  assert.equal((await call("GET", "/me", { token: r.agent.token })).status, 401);
});

test("SESS-036 POST /session/complete requires scope write:ledger", async () => {
  const r = await closeable();
  const key = await apiKeyFor(r.projectId, r.agent.name, ["write:handoff"]);
  const res = await complete(r, key);
  assert.equal(res.status, 403);
  assert.equal(res.body.error.code, "FORBIDDEN");
  assert.equal((await sessionRow(r.agent.sessionId)).status, "active");
  const allowed = await apiKeyFor(r.projectId, r.agent.name, ["write:ledger"]);
  assert.equal((await complete(r, allowed)).status, 200);
});

test("SESS-037 the body is { sessionId }, required", async () => {
  const r = await closeable();
  const res = await call("POST", "/session/complete", { token: r.agent.token, body: {} });
  assert.equal(res.status, 400);
  assert.equal(res.body.error.code, "VALIDATION_ERROR");
});

test("SESS-038 another agent's or an unknown session answers 404 NOT_FOUND", async () => {
  const r = await closeable();
  const other = await pairAgent(r.projectId);
  for (const sessionId of [other.sessionId, crypto.randomUUID(), "not-a-uuid"]) {
    const res = await complete(r, r.agent.token, sessionId);
    assert.equal(res.status, 404, sessionId);
    assert.equal(res.body.error.code, "NOT_FOUND");
  }
  assert.equal((await sessionRow(other.sessionId)).status, "active");
});

test("SESS-039 refused while no ticket is linked", async () => {
  const r = await ready({ claim: false });
  await linkSession(r.agent.sessionId, null, true);
  // Without a linked ticket the ticket-dependent items cannot hold either.
  refusedWith(await complete(r), ["ticket_linked", "ticket_status"]);
});

test("SESS-040 CONV-034 refused without a PROGRESS or CHANGED entry (remediation ADD_REQUIRED_FIELDS); a CHANGED entry is enough", async () => {
  const r = await closeable({ progress: false });
  const res = await complete(r);
  refusedWith(res, ["progress_entry"]);
  const [remediation] = res.body.error.details.remediation;
  assert.equal(remediation.action, "ADD_REQUIRED_FIELDS");
  assert.equal(remediation.endpoint, "POST /ledger");
  assert.match(remediation.message, /PROGRESS or CHANGED entry/);
  await insertLedgerEntry(r.projectId, {
    type: "CHANGED",
    agentId: r.agent.agentId,
    sessionId: r.agent.sessionId,
  });
  assert.equal((await complete(r)).status, 200);
});

test("SESS-041 refused without a TESTED entry when the ticket has expected files", async () => {
  const r = await closeable({ tested: false });
  refusedWith(await complete(r), ["tested_entry"]);
  const noFiles = await closeable({ tested: false, ticket: { expectedFiles: [] } });
  assert.equal((await complete(noFiles)).status, 200);
});

test("SESS-042 refused while the session has a BLOCKED entry (not retryable)", async () => {
  const r = await closeable();
  await insertLedgerEntry(r.projectId, {
    type: "BLOCKED",
    agentId: r.agent.agentId,
    sessionId: r.agent.sessionId,
  });
  const res = await complete(r);
  refusedWith(res, ["no_blocked_entry"]);
  assert.equal(res.body.error.details.retryable, false);
});

test("SESS-043 refused while no environment report was posted", async () => {
  const r = await ready({ claim: false });
  await linkSession(r.agent.sessionId, r.ticket!.id, false);
  refusedWith(await complete(r), ["environment_report"]);
});

test("SESS-044 refused while the ticket is neither in_progress nor in review", async () => {
  for (const status of ["backlog", "blocked", "done"]) {
    const r = await closeable({ ticket: { status } });
    refusedWith(await complete(r), ["ticket_status"]);
  }
  for (const status of ["review", "needs_review"]) {
    const r = await closeable({ ticket: { status } });
    assert.equal((await complete(r)).status, 200, status);
  }
});

test("SESS-045 SESS-046 the refusal is 422 PRECONDITION_FAILED with missing, completed, retryable, remediation", async () => {
  const r = await ready({ claim: false, progress: false, tested: false });
  const res = await complete(r);
  assert.equal(res.status, 422);
  assert.equal(res.body.error.code, "PRECONDITION_FAILED");
  const d = res.body.error.details;
  assert.deepEqual(d.missing, ["ticket_linked", "progress_entry", "environment_report", "ticket_status"]);
  assert.deepEqual(d.completed, ["tested_entry", "no_blocked_entry"]);
  assert.equal(d.retryable, true);
  assert.equal(d.remediation.length, d.missing.length);
  for (const m of d.remediation) {
    assert.equal(typeof m.action, "string");
    assert.match(m.endpoint, /^(GET|POST|PATCH) \//);
    assert.equal(typeof m.message, "string");
  }
  assert.equal((await sessionRow(r.agent.sessionId)).status, "active");
  const doc = await call("GET", "/openapi.json");
  const op = doc.body.paths["/session/complete"].post;
  assert.match(op.responses["422"].description, /PRECONDITION_FAILED/, "the chosen status is documented");
  assert.match(op.description, /PRECONDITION_FAILED/);
});

test("SESS-047 completing an already complete session answers the same success", async () => {
  const r = await closeable();
  const key = await apiKeyFor(r.projectId, r.agent.name);
  assert.equal((await complete(r)).status, 200);
  const again = await complete(r, key);
  assert.equal(again.status, 200);
  assert.deepEqual(again.body.data, { ok: true, sessionId: r.agent.sessionId });
  const { db } = await env();
  const events = await db.selectFrom("events").select("kind").where("entity_id", "=", r.agent.sessionId)
    .where("kind", "=", "session.completed").execute();
  assert.equal(events.length, 1);
});
