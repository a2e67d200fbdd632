import assert from "node:assert/strict";
import { call, test } from "../helpers/mod.ts";
import { insertClaim, ticketRow } from "../helpers/fixtures.ts";
import { board, HANDOFF, liveFiles, patch, ticket } from "./fixtures.ts";

test("TKT-070 action claim on an unassigned ticket makes the caller assignee, status claimed", async () => {
  const b = await board();
  const t = await ticket(b, { status: "backlog" });
  const res = await patch(b.other.token, { ticketId: t.ref, action: "claim", assignToSelf: true });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.data.status, "claimed");
  assert.equal(res.body.data.assigneeAgentId, b.other.agentId);
  const again = await patch(b.dev.token, { ticketId: t.id, action: "claim", assignToSelf: true });
  assert.equal(again.status, 409, "another agent now holds it");
});

test("TKT-071 action release moves the ticket to backlog and unassigns it", async () => {
  const b = await board();
  const t = await ticket(b, { status: "in_progress", assignee: b.dev.agentId });
  const res = await patch(b.dev.token, { ticketId: t.id, action: "release" });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.data.status, "backlog");
  assert.equal(res.body.data.assigneeAgentId, null);
});

test("TKT-072 submit_for_review needs a reviewHandoff (400 REVIEW_HANDOFF_MISSING)", async () => {
  const b = await board();
  const t = await ticket(b, { status: "in_progress", assignee: b.dev.agentId, tested: true });
  const res = await patch(b.dev.token, { ticketId: t.id, action: "submit_for_review" });
  assert.equal(res.status, 400);
  assert.equal(res.body.error.code, "REVIEW_HANDOFF_MISSING");
  assert.deepEqual(res.body.error.details.fields, ["summary", "changedFiles", "branch"]);
  assert.equal(res.body.error.details.recovery.action, "ATTACH_REVIEW_HANDOFF");
  const partial = await patch(b.dev.token, {
    ticketId: t.id,
    action: "submit_for_review",
    reviewHandoff: { summary: "Done" },
  });
  assert.equal(partial.status, 400);
  assert.deepEqual(partial.body.error.details.fields, ["changedFiles", "branch"]);
  assert.equal((await ticketRow(t.id)).status, "in_progress");
});

test("TKT-072 submit_for_review on a board without a review column answers 422", async () => {
  const b = await board({ reviewMode: "light", settings: { columns: ["todo", "doing", "done"] } });
  const t = await ticket(b, { status: "doing", assignee: b.dev.agentId });
  const res = await patch(b.dev.token, {
    ticketId: t.id,
    action: "submit_for_review",
    reviewHandoff: HANDOFF,
  });
  assert.equal(res.status, 422);
  assert.equal(res.body.error.code, "INVALID_TRANSITION");
});

test("TKT-073 submit_for_review goes to review on the default board, in_review when the board has it", async () => {
  const b = await board();
  const t = await ticket(b, { status: "in_progress", assignee: b.dev.agentId, tested: true });
  const res = await patch(b.dev.token, {
    ticketId: t.id,
    action: "submit_for_review",
    reviewHandoff: HANDOFF,
  });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.data.status, "review");
  const row = await ticketRow(t.id);
  assert.deepEqual(row.review_handoff, HANDOFF);
  assert.equal(row.review_history[0].event, "submitted");
  const c = await board({ settings: { columns: ["todo", "doing", "review", "in_review", "done"] } });
  const u = await ticket(c, { status: "doing", assignee: c.dev.agentId, tested: true });
  const r2 = await patch(c.dev.token, {
    ticketId: u.id,
    action: "submit_for_review",
    reviewHandoff: HANDOFF,
  });
  assert.equal(r2.status, 200, r2.text);
  assert.equal(r2.body.data.status, "in_review");
});

test("TKT-074 submit_for_review releases the caller's own claims on the ticket and no one else's", async () => {
  const b = await board();
  const t = await ticket(b, { status: "in_progress", assignee: b.dev.agentId, tested: true });
  await insertClaim(b.projectId, { agentId: b.dev.agentId, ticketId: t.id, files: ["src/mine.ts"] });
  await insertClaim(b.projectId, { agentId: b.dev.agentId, files: ["src/unrelated.ts"] });
  await insertClaim(b.projectId, { agentId: b.other.agentId, ticketId: t.id, files: ["src/theirs.ts"] });
  const res = await patch(b.dev.token, {
    ticketId: t.id,
    action: "submit_for_review",
    reviewHandoff: HANDOFF,
  });
  assert.equal(res.status, 200, res.text);
  assert.deepEqual(await liveFiles(b), ["src/theirs.ts", "src/unrelated.ts"]);
});

test("TKT-075 action approve in light moves to done", async () => {
  const b = await board({ reviewMode: "light" });
  const t = await ticket(b, { status: "review", assignee: b.dev.agentId });
  const res = await patch(b.dev.token, { ticketId: t.id, action: "approve" });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.data.status, "done");
});

test("TKT-075 TKT-077 action approve outside light is 403 APPROVE_VIA_ENDPOINT", async () => {
  for (const mode of ["medium", "strict", "auto", "custom"]) {
    const b = await board({ reviewMode: mode });
    const t = await ticket(b, {
      status: "review",
      assignee: b.dev.agentId,
      reviewer: b.evaluator.agentId,
      tested: true,
    });
    const res = await patch(b.evaluator.token, { ticketId: t.id, action: "approve" });
    assert.equal(res.status, 403, mode);
    assert.equal(res.body.error.details.recovery.action, "APPROVE_VIA_ENDPOINT");
    assert.equal((await ticketRow(t.id)).status, "review");
  }
});

test("TKT-076 approve releases every claim on the ticket, whoever holds it", async () => {
  const b = await board({ reviewMode: "light" });
  const t = await ticket(b, { status: "review", assignee: b.dev.agentId });
  await insertClaim(b.projectId, { agentId: b.dev.agentId, ticketId: t.id, files: ["src/a.ts"] });
  await insertClaim(b.projectId, { agentId: b.other.agentId, ticketId: t.id, files: ["src/b.ts"] });
  await insertClaim(b.projectId, { agentId: b.other.agentId, files: ["src/c.ts"] });
  const res = await patch(b.dev.token, { ticketId: t.id, action: "approve" });
  assert.equal(res.status, 200, res.text);
  assert.deepEqual(await liveFiles(b), ["src/c.ts"]);
});

test("TKT-078 action request_changes moves a ticket in review to in_progress", async () => {
  const b = await board();
  const t = await ticket(b, {
    status: "review",
    assignee: b.dev.agentId,
    reviewer: b.evaluator.agentId,
    reviewHandoff: HANDOFF,
  });
  const res = await patch(b.evaluator.token, { ticketId: t.id, action: "request_changes" });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.data.status, "in_progress");
  const row = await ticketRow(t.id);
  assert.equal(row.review_history.at(-1).event, "changes_requested");
  assert.equal(row.review_handoff, null);
});

test("TKT-079 action block moves to blocked; TKT-080 unblock moves back to in_progress", async () => {
  const b = await board();
  const t = await ticket(b, { status: "in_progress", assignee: b.dev.agentId });
  const blocked = await patch(b.dev.token, { ticketId: t.id, action: "block" });
  assert.equal(blocked.status, 200, blocked.text);
  assert.equal(blocked.body.data.status, "blocked");
  const again = await patch(b.dev.token, { ticketId: t.id, action: "block" });
  assert.equal(again.status, 409, "already blocked");
  const unblocked = await patch(b.dev.token, { ticketId: t.id, action: "unblock" });
  assert.equal(unblocked.status, 200, unblocked.text);
  assert.equal(unblocked.body.data.status, "in_progress");
});

test("TKT-080 unblock from a status other than blocked is 422 with validActions", async () => {
  const b = await board();
  const t = await ticket(b, { status: "claimed", assignee: b.dev.agentId });
  const res = await patch(b.dev.token, { ticketId: t.id, action: "unblock" });
  assert.equal(res.status, 422);
  assert.equal(res.body.error.code, "INVALID_TRANSITION");
  assert.ok(res.body.error.details.validActions.includes("block"));
});

test("TKT-145 action wins over status", async () => {
  const b = await board();
  const t = await ticket(b, { status: "in_progress", assignee: b.dev.agentId });
  const res = await patch(b.dev.token, { ticketId: t.id, action: "block", status: "cancelled" });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.data.status, "blocked");
});

test("TKT-144 an unknown action answers 400 VALIDATION_ERROR", async () => {
  const b = await board();
  const t = await ticket(b, { status: "in_progress", assignee: b.dev.agentId });
  const res = await patch(b.dev.token, { ticketId: t.id, action: "finish" });
  assert.equal(res.status, 400);
  assert.equal(res.body.error.code, "VALIDATION_ERROR");
});

for (
  const [rule, to] of [["TKT-081", "done"], ["TKT-082", "changes_requested"], [
    "TKT-083",
    "in_progress",
  ]] as const
) {
  test(`${rule} the reviewer may move a ticket in review, in_review or qa to ${to}`, async () => {
    const b = await board({
      reviewMode: to === "done" ? "light" : "medium",
      settings: {
        columns: ["todo", "in_progress", "review", "in_review", "qa", "changes_requested", "done"],
      },
    });
    for (const from of ["review", "in_review", "qa"]) {
      const t = await ticket(b, {
        status: from,
        assignee: b.dev.agentId,
        reviewer: b.evaluator.agentId,
        tested: true,
        reviewHandoff: HANDOFF,
      });
      const res = await patch(b.evaluator.token, { ticketId: t.id, status: to });
      assert.equal(res.status, 200, `${from} -> ${to}: ${res.text}`);
      assert.equal((await ticketRow(t.id)).status, to);
    }
  });
}

test("TKT-081 outside light the reviewer reaches done through the approve endpoint", async () => {
  const b = await board();
  const t = await ticket(b, {
    status: "review",
    assignee: b.dev.agentId,
    reviewer: b.evaluator.agentId,
    tested: true,
  });
  const direct = await patch(b.evaluator.token, { ticketId: t.id, status: "done" });
  assert.equal(direct.status, 403);
  assert.equal(direct.body.error.details.recovery.action, "APPROVE_VIA_ENDPOINT");
  const res = await call("POST", `/ticket/${t.id}/approve`, { token: b.evaluator.token, body: {} });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.data.status, "done");
});

test("TKT-163 the reviewer may move it only out of review", async () => {
  const b = await board();
  const t = await ticket(b, {
    status: "review",
    assignee: b.dev.agentId,
    reviewer: b.evaluator.agentId,
    tested: true,
  });
  const cancel = await patch(b.evaluator.token, { ticketId: t.id, status: "cancelled" });
  assert.equal(cancel.status, 403, "cancelling is not a reviewer move");
  const u = await ticket(b, {
    status: "in_progress",
    assignee: b.dev.agentId,
    reviewer: b.evaluator.agentId,
  });
  const res = await patch(b.evaluator.token, { ticketId: u.id, status: "blocked" });
  assert.equal(res.status, 403);
  const edit = await patch(b.evaluator.token, { ticketId: t.id, priority: "high" });
  assert.equal(edit.status, 403);
});

test("TKT-071 release of an assigned backlog ticket only unassigns; TKT-070 claim of an unassigned claimed ticket only assigns", async () => {
  const b = await board();
  const t = await ticket(b, { status: "backlog", assignee: b.dev.agentId });
  const res = await patch(b.dev.token, { ticketId: t.id, action: "release" });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.data.status, "backlog");
  assert.equal(res.body.data.assigneeAgentId, null);
  const u = await ticket(b, { status: "claimed" });
  const claim = await patch(b.other.token, { ticketId: u.id, action: "claim" });
  assert.equal(claim.status, 200, claim.text);
  assert.equal(claim.body.data.status, "claimed");
  assert.equal(claim.body.data.assigneeAgentId, b.other.agentId);
});
