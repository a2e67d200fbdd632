import assert from "node:assert/strict";
import { call, test } from "../helpers/mod.ts";
import { insertClaim, ticketRow } from "../helpers/fixtures.ts";
import { board, HANDOFF, liveFiles, patch, ticket } from "./fixtures.ts";

function approve(token: string, id: string, body: Record<string, unknown> = {}) {
  return call("POST", `/ticket/${id}/approve`, { token, body });
}

test("TKT-077 the approve endpoint: designated reviewer approves, claims released, history kept", async () => {
  const b = await board();
  const t = await ticket(b, {
    status: "review",
    assignee: b.dev.agentId,
    reviewer: b.evaluator.agentId,
    tested: true,
    reviewHandoff: HANDOFF,
  });
  await insertClaim(b.projectId, { agentId: b.dev.agentId, ticketId: t.id, files: ["src/a.ts"] });
  const res = await approve(b.evaluator.token, t.id, { comment: "Looks good" });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.data.status, "done");
  assert.equal(res.body.data.previousStatus, "review");
  assert.deepEqual(res.body.data.releasedFiles, ["src/a.ts"]);
  assert.deepEqual(await liveFiles(b), []);
  const row = await ticketRow(t.id);
  assert.equal(row.status, "done");
  assert.equal(row.review_history.at(-1).event, "approved");
  assert.equal(row.review_history.at(-1).comment, "Looks good");
  const again = await approve(b.evaluator.token, t.id);
  assert.equal(again.status, 409);
});

test("TKT-077 the assignee cannot approve their own ticket outside light", async () => {
  const b = await board();
  const t = await ticket(b, { status: "review", assignee: b.dev.agentId, tested: true });
  const res = await approve(b.dev.token, t.id);
  assert.equal(res.status, 403);
  assert.equal((await ticketRow(t.id)).status, "review");
  const light = await board({ reviewMode: "light" });
  const u = await ticket(light, { status: "review", assignee: light.dev.agentId });
  assert.equal((await approve(light.dev.token, u.id)).status, 200);
});

test("TKT-077 approving a ticket not in review: 422 INVALID_TRANSITION with REQUEST_REVIEW", async () => {
  const b = await board();
  const t = await ticket(b, { status: "in_progress", assignee: b.dev.agentId, tested: true });
  const res = await approve(b.orchestrator.token, t.id);
  assert.equal(res.status, 422);
  assert.equal(res.body.error.code, "INVALID_TRANSITION");
  assert.equal(res.body.error.details.recovery.action, "REQUEST_REVIEW");
});

test("TKT-077 approval still needs a TESTED entry outside light (guard 5)", async () => {
  const b = await board();
  const t = await ticket(b, { status: "review", assignee: b.dev.agentId, reviewer: b.evaluator.agentId });
  const res = await approve(b.evaluator.token, t.id);
  assert.equal(res.status, 400);
  assert.equal(res.body.error.details.recovery.action, "LOG_TESTED_ENTRY");
});

test("TKT-016 routing without a designated reviewer: local any other generator or evaluator", async () => {
  const b = await board();
  const t = await ticket(b, { status: "review", assignee: b.dev.agentId, riskClass: "local", tested: true });
  const res = await approve(b.other.token, t.id);
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.data.reviewerAgentId, b.other.agentId, "the approver becomes the reviewer");
});

test("TKT-016 routing: shared-state needs an evaluator, irreversible a designated reviewer", async () => {
  const b = await board();
  const shared = await ticket(b, {
    status: "review",
    assignee: b.dev.agentId,
    riskClass: "shared-state",
    tested: true,
  });
  assert.equal((await approve(b.other.token, shared.id)).status, 403);
  assert.equal((await approve(b.evaluator.token, shared.id)).status, 200);
  const irrev = await ticket(b, {
    status: "review",
    assignee: b.dev.agentId,
    riskClass: "irreversible",
    tested: true,
  });
  const refused = await approve(b.evaluator.token, irrev.id);
  assert.equal(refused.status, 403);
  assert.equal(refused.body.error.details.recovery.action, "APPROVE_VIA_ENDPOINT");
  assert.equal((await approve(b.orchestrator.token, irrev.id)).status, 200);
});

test("TKT-016 strict mode: only a designated reviewer or an orchestrator approves", async () => {
  const b = await board({ reviewMode: "strict" });
  const t = await ticket(b, { status: "review", assignee: b.dev.agentId, tested: true });
  assert.equal((await approve(b.evaluator.token, t.id)).status, 403);
  await patch(b.dev.token, { ticketId: t.id, reviewerAgentId: b.evaluator.agentId });
  assert.equal((await approve(b.other.token, t.id)).status, 403, "not the designated reviewer");
  assert.equal((await approve(b.evaluator.token, t.id)).status, 200);
});

test("CONV-027 the approve path takes the ticket id, never the key", async () => {
  const b = await board();
  const t = await ticket(b, { status: "review", assignee: b.dev.agentId, tested: true });
  const res = await approve(b.orchestrator.token, t.ref);
  assert.equal(res.status, 404);
  assert.equal(res.body.error.code, "TICKET_NOT_FOUND");
  assert.equal(res.body.error.details.recovery.action, "RESOLVE_TICKET_REF");
});

test("TKT-077 the approve body is optional", async () => {
  const b = await board();
  const t = await ticket(b, { status: "review", assignee: b.dev.agentId, tested: true });
  const res = await call("POST", `/ticket/${t.id}/approve`, { token: b.orchestrator.token });
  assert.equal(res.status, 200, res.text);
});
