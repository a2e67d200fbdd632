import assert from "node:assert/strict";
import { call, env, pairAgent, test } from "../helpers/mod.ts";
import { apiKeyFor, handOff, ready } from "./fixtures.ts";

const EVIDENCE = [
  { title: "Login works", requiresEvidence: true },
  { title: "Docs updated" },
  { title: "Errors are logged", requiresEvidence: true },
];

/** A ticket handed off to review with a QA run of two tests (criteria 0 and 2), and an evaluator. */
async function inReview() {
  const r = await ready({ reviewMode: "medium", ticket: { criteria: EVIDENCE } });
  const res = await handOff(r);
  assert.equal(res.status, 200, res.text);
  const evaluator = await pairAgent(r.projectId, { role: "evaluator" });
  return { r, qaRunId: res.body.data.review.qaRunId as string, evaluator };
}

async function record(token: string, qaRunId: string, tests: unknown[]) {
  return await call("POST", `/qa/${qaRunId}/results`, { token, body: { tests } });
}

test("HAND-051 (design) POST /qa/{qaRunId}/results records outcomes; the run passes once none is pending, and approve has no QA warning", async () => {
  const { r, qaRunId, evaluator } = await inReview();
  const first = await record(evaluator.token, qaRunId, [
    { criterionIndex: 0, status: "passed", evidence: "Signed in with the demo user" },
  ]);
  assert.equal(first.status, 200, first.text);
  assert.equal(first.body.data.status, "pending");
  assert.equal(first.body.data.completedAt, null);
  assert.deepEqual(first.body.data.tests.map((t: { status: string }) => t.status), ["passed", "pending"]);
  assert.equal(first.body.data.tests[0].evidence, "Signed in with the demo user");
  const second = await record(evaluator.token, qaRunId, [
    { criterionIndex: 2, status: "skipped", evidence: "No error path in this change" },
  ]);
  assert.equal(second.status, 200, second.text);
  assert.equal(second.body.data.status, "passed");
  assert.ok(second.body.data.completedAt);
  const { db } = await env();
  const events = await db.selectFrom("events").select(["kind", "data"]).where("entity_id", "=", qaRunId)
    .orderBy("seq").execute();
  assert.deepEqual(events.map((e) => e.kind), ["qa_run.created", "qa_run.completed"]);
  const approved = await call("POST", `/ticket/${r.ticket!.id}/approve`, {
    token: evaluator.token,
    body: {},
  });
  assert.equal(approved.status, 200, approved.text);
  assert.equal(approved.body.data.qa.status, "passed");
  assert.deepEqual(approved.body.data.warnings, []);
});

test("HAND-051 (design) a failed test fails the run; a re-test can pass it", async () => {
  const { qaRunId, evaluator } = await inReview();
  const failed = await record(evaluator.token, qaRunId, [
    { criterionIndex: 0, status: "failed", evidence: "Wrong password signs in" },
    { criterionIndex: 2, status: "passed", evidence: "Logged" },
  ]);
  assert.equal(failed.body.data.status, "failed");
  const again = await record(evaluator.token, qaRunId, [
    { criterionIndex: 0, status: "passed", evidence: "Fixed: wrong password refused" },
  ]);
  assert.equal(again.body.data.status, "passed");
});

test("HAND-051 (design) QA results: the assignee is refused (REQUEST_REVIEW), unknown criterion 422, other project 404, no scope 403", async () => {
  const { r, qaRunId, evaluator } = await inReview();
  const own = await apiKeyFor(r.projectId, r.agent.name);
  const self = await record(own, qaRunId, [{ criterionIndex: 0, status: "passed", evidence: "Mine works" }]);
  assert.equal(self.status, 403, self.text);
  assert.equal(self.body.error.code, "FORBIDDEN");
  assert.equal(self.body.error.details.recovery.action, "REQUEST_REVIEW");
  const unknown = await record(evaluator.token, qaRunId, [
    { criterionIndex: 0, status: "passed", evidence: "ok" },
    { criterionIndex: 1, status: "passed", evidence: "not a QA test" },
  ]);
  assert.equal(unknown.status, 422, unknown.text);
  assert.equal(unknown.body.error.code, "VALIDATION_ERROR");
  assert.deepEqual(unknown.body.error.details.validCriterionIndexes, [0, 2]);
  const stranger = await ready({ ticket: false });
  const other = await record(stranger.agent.token, qaRunId, [{
    criterionIndex: 0,
    status: "passed",
    evidence: "x",
  }]);
  assert.equal(other.status, 404);
  const readOnly = await apiKeyFor(r.projectId, evaluator.name, ["read:board"]);
  const noScope = await record(readOnly, qaRunId, [{ criterionIndex: 0, status: "passed", evidence: "x" }]);
  assert.equal(noScope.status, 403);
  const empty = await record(evaluator.token, qaRunId, []);
  assert.equal(empty.status, 400);
  const run = await call("GET", `/qa/${qaRunId}`, { token: evaluator.token });
  assert.deepEqual(run.body.data.tests.map((t: { status: string }) => t.status), ["pending", "pending"]);
  assert.equal(run.body.data.status, "pending");
});
