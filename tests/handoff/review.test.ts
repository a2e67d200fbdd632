import assert from "node:assert/strict";
import { call, env, pairAgent, test } from "../helpers/mod.ts";
import { insertTicket, ticketRow } from "../helpers/fixtures.ts";
import { apiKeyFor, handOff, LOOP_TICKET, ready } from "./fixtures.ts";

const EVIDENCE = [
  { title: "Login works", requiresEvidence: true },
  { title: "Docs updated" },
  { title: "Errors are logged", requiresEvidence: true },
];

test("HAND-009 in review mode light a handoff moves the ticket to done", async () => {
  const r = await ready({ reviewMode: "light" });
  const res = await handOff(r);
  assert.equal(res.status, 200, res.text);
  assert.equal((await ticketRow(r.ticket!.id)).status, "done");
  assert.equal(res.body.data.ticketAdvanced, true);
});

test("HAND-010 in review mode medium a handoff moves the ticket to review on the default board", async () => {
  const r = await ready({ reviewMode: "medium" });
  const res = await handOff(r);
  assert.equal(res.status, 200, res.text);
  assert.equal((await ticketRow(r.ticket!.id)).status, "review");
  assert.equal(res.body.data.review.ticketStatus, "review");
});

test("HAND-010 a board with an in_review column gets in_review", async () => {
  const r = await ready({
    reviewMode: "medium",
    settings: { columns: ["backlog", "in_progress", "in_review", "done", "cancelled"] },
  });
  const res = await handOff(r);
  assert.equal(res.status, 200, res.text);
  assert.equal((await ticketRow(r.ticket!.id)).status, "in_review");
});

test("HAND-011 in review mode strict a handoff moves the ticket to the board's review status", async () => {
  const r = await ready({ reviewMode: "strict" });
  const res = await handOff(r);
  assert.equal(res.status, 200, res.text);
  assert.equal((await ticketRow(r.ticket!.id)).status, "review");
  assert.equal(res.body.data.review.mode, "strict");
});

test("HAND-012 in review mode auto a non-trivial change goes to review", async () => {
  const r = await ready({ reviewMode: "auto", ticket: { riskClass: "shared-state" } });
  const res = await handOff(r);
  assert.equal(res.status, 200, res.text);
  assert.equal((await ticketRow(r.ticket!.id)).status, "review");
});

test("HAND-013 auto: a local change touching at most 2 files and 20 lines is trivial and goes to done", async () => {
  const r = await ready({
    reviewMode: "auto",
    ticket: { riskClass: "local" },
    claim: ["src/a.ts", "src/b.ts"],
  });
  const res = await handOff(r, { diffStat: "2 files changed, 12 insertions(+), 8 deletions(-)" });
  assert.equal(res.status, 200, res.text);
  assert.equal((await ticketRow(r.ticket!.id)).status, "done");
  assert.equal("review" in res.body.data, false);
});

test("HAND-013 auto: 21 changed lines is not trivial", async () => {
  const r = await ready({ reviewMode: "auto", ticket: { riskClass: "local" } });
  const res = await handOff(r, { diffStat: "1 file changed, 13 insertions(+), 8 deletions(-)" });
  assert.equal(res.status, 200, res.text);
  assert.equal((await ticketRow(r.ticket!.id)).status, "review");
});

test("HAND-013 auto: three files, or a criterion requiring evidence, is not trivial", async () => {
  const files = await ready({
    reviewMode: "auto",
    ticket: { riskClass: "local" },
    claim: ["src/a.ts", "src/b.ts", "src/c.ts"],
  });
  assert.equal((await handOff(files)).status, 200);
  assert.equal((await ticketRow(files.ticket!.id)).status, "review");
  const evidence = await ready({ reviewMode: "auto", ticket: { riskClass: "local", criteria: EVIDENCE } });
  assert.equal((await handOff(evidence)).status, 200);
  assert.equal((await ticketRow(evidence.ticket!.id)).status, "review");
});

test("HAND-014 in review mode custom a handoff goes to review by default", async () => {
  const r = await ready({ reviewMode: "custom" });
  const res = await handOff(r);
  assert.equal(res.status, 200, res.text);
  assert.equal((await ticketRow(r.ticket!.id)).status, "review");
});

test("HAND-015 custom with settings reviewConfig.blocking false goes to done", async () => {
  const r = await ready({ reviewMode: "custom", settings: { reviewConfig: { blocking: false } } });
  const res = await handOff(r);
  assert.equal(res.status, 200, res.text);
  assert.equal((await ticketRow(r.ticket!.id)).status, "done");
  assert.equal("review" in res.body.data, false);
});

test("HAND-016 a ticket already in review stays in its review status", async () => {
  for (const mode of ["light", "medium"]) {
    const r = await ready({ reviewMode: mode, ticket: { status: "review" } });
    const res = await handOff(r);
    assert.equal(res.status, 200, res.text);
    assert.equal((await ticketRow(r.ticket!.id)).status, "review");
    assert.equal(res.body.data.ticketAdvanced, false);
  }
});

test("HAND-007 a handoff accepts a ticket in_progress or in a review status, and refuses blocked", async () => {
  const inReview = await ready({ ticket: { status: "needs_review" } });
  assert.equal((await handOff(inReview)).status, 200);
  const blocked = await ready({ ticket: { status: "blocked" } });
  const res = await handOff(blocked);
  assert.equal(res.status, 422);
  assert.equal(res.body.error.code, "INVALID_TRANSITION");
  assert.equal(res.body.error.details.recovery.action, "USE_VALID_TRANSITION");
  assert.equal((await ticketRow(blocked.ticket!.id)).status, "blocked");
});

test("HAND-008 a handoff moves the ticket once, straight to its final status", async () => {
  const r = await ready({ reviewMode: "light" });
  assert.equal((await handOff(r)).status, 200);
  const { db } = await env();
  const moves = await db.selectFrom("events").select("data").where("project_id", "=", r.projectId)
    .where("kind", "=", "ticket.moved").where("entity_id", "=", r.ticket!.id).execute();
  assert.equal(moves.length, 1);
  assert.equal(moves[0]!.data.from, "in_progress");
  assert.equal(moves[0]!.data.to, "done");
  const history = (await ticketRow(r.ticket!.id)).review_history as { action: string }[];
  assert.equal(history.filter((h) => h.action === "handoff").length, 1);
});

test("HAND-003 HAND-004 review required and criteria requiring evidence: a QA run with one test each", async () => {
  const r = await ready({ reviewMode: "medium", ticket: { criteria: EVIDENCE } });
  const res = await handOff(r);
  assert.equal(res.status, 200, res.text);
  const review = res.body.data.review;
  assert.equal(review.required, true);
  assert.equal(review.criteriaCount, 3);
  assert.equal(review.qaTestCount, 2);
  assert.match(review.qaRunId, /^[0-9a-f-]{36}$/);
  const { db } = await env();
  const tests = await db.selectFrom("qa_tests").selectAll().where("qa_run_id", "=", review.qaRunId)
    .orderBy("criterion_index").execute();
  assert.deepEqual(tests.map((t) => [t.criterion_index, t.title, t.status]), [
    [0, "Login works", "pending"],
    [2, "Errors are logged", "pending"],
  ]);
});

test("HAND-005 no QA run when review is not required (light) or no criterion requires evidence", async () => {
  const { db } = await env();
  const light = await ready({ reviewMode: "light", ticket: { criteria: EVIDENCE } });
  const a = await handOff(light);
  assert.equal(a.status, 200);
  assert.equal("review" in a.body.data, false);
  const none = await ready({ reviewMode: "medium" });
  const b = await handOff(none);
  assert.equal(b.status, 200);
  assert.equal(b.body.data.review.qaRunId, null);
  assert.equal(b.body.data.review.qaTestCount, 0);
  const runs = await db.selectFrom("qa_runs").select("id").where("ticket_id", "in", [
    light.ticket!.id,
    none.ticket!.id,
  ]).execute();
  assert.equal(runs.length, 0);
});

test("HAND-006 HAND-051 QA reads: GET /qa/{qaRunId} and GET /ticket/{ticketId}/qa with read:board", async () => {
  const r = await ready({ reviewMode: "strict", ticket: { criteria: EVIDENCE } });
  const res = await handOff(r);
  const qaRunId = res.body.data.review.qaRunId;
  const reader = await ready({ ticket: false });
  const other = await call("GET", `/qa/${qaRunId}`, { token: reader.agent.token });
  assert.equal(other.status, 404, "another project's run is not found");
  // The handing-off token is revoked: read with a fresh agent of the same project.
  const observer = await pairAgent(r.projectId, { role: "observer" });
  const one = await call("GET", `/qa/${qaRunId}`, { token: observer.token });
  assert.equal(one.status, 200, one.text);
  assert.equal(one.body.data.qaRunId, qaRunId);
  assert.equal(one.body.data.ticketId, r.ticket!.id);
  assert.equal(one.body.data.sessionId, r.agent.sessionId);
  assert.equal(one.body.data.agentId, r.agent.agentId);
  assert.equal(one.body.data.status, "pending");
  assert.equal(one.body.data.completedAt, null);
  assert.equal(one.body.data.tests.length, 2);
  assert.deepEqual(Object.keys(one.body.data.tests[0]).sort(), [
    "criterionIndex",
    "evidence",
    "id",
    "status",
    "title",
    "updatedAt",
  ]);
  const list = await call("GET", `/ticket/${r.ticket!.id}/qa`, { token: observer.token });
  assert.equal(list.status, 200, list.text);
  assert.equal(list.body.data.runs.length, 1);
  assert.equal((await call("GET", `/qa/not-a-uuid`, { token: observer.token })).status, 404);
  const unknownTicket = await call("GET", `/ticket/${crypto.randomUUID()}/qa`, { token: observer.token });
  assert.equal(unknownTicket.status, 404);
  assert.equal(unknownTicket.body.error.code, "TICKET_NOT_FOUND");
  const empty = await insertTicket(r.projectId, LOOP_TICKET);
  const none = await call("GET", `/ticket/${empty.id}/qa`, { token: observer.token });
  assert.deepEqual(none.body.data.runs, []);
});

test("HAND-051 QA reads need scope read:board", async () => {
  const r = await ready({ reviewMode: "medium", ticket: { criteria: EVIDENCE } });
  const qaRunId = (await handOff(r)).body.data.review.qaRunId;
  const without = await apiKeyFor(r.projectId, r.agent.name, ["write:handoff"]);
  for (const path of [`/qa/${qaRunId}`, `/ticket/${r.ticket!.id}/qa`]) {
    const res = await call("GET", path, { token: without });
    assert.equal(res.status, 403, path);
    assert.equal(res.body.error.code, "FORBIDDEN");
  }
  const reader = await apiKeyFor(r.projectId, r.agent.name, ["read:board"]);
  assert.equal((await call("GET", `/qa/${qaRunId}`, { token: reader })).status, 200);
});
