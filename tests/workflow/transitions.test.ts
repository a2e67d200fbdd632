import assert from "node:assert/strict";
import { call, test } from "../helpers/mod.ts";
import { ticketRow } from "../helpers/fixtures.ts";
import { board, HANDOFF, patch, ticket } from "./fixtures.ts";

/** One allowed move of the default board by the assignee, with every guard satisfied. */
async function allowedMove(
  from: string,
  to: string,
  options: { reviewMode?: string; handoff?: boolean } = {},
) {
  const b = await board({ reviewMode: options.reviewMode ?? "medium" });
  const t = await ticket(b, {
    status: from,
    assignee: b.dev.agentId,
    tested: true,
    ...(from === "review" || from === "needs_review" ? { reviewHandoff: HANDOFF } : {}),
  });
  const res = await patch(b.dev.token, {
    ticketId: t.id,
    status: to,
    ...(options.handoff ? { reviewHandoff: HANDOFF } : {}),
  });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.data.status, to);
  assert.equal((await ticketRow(t.id)).status, to);
}

test("TKT-041 default board: backlog -> claimed", () => allowedMove("backlog", "claimed"));
test("TKT-042 default board: backlog -> in_progress", () => allowedMove("backlog", "in_progress"));
test("TKT-043 default board: backlog -> cancelled", () => allowedMove("backlog", "cancelled"));
test("TKT-044 default board: claimed -> in_progress", () => allowedMove("claimed", "in_progress"));
test("TKT-045 default board: claimed -> backlog", () => allowedMove("claimed", "backlog"));
test("TKT-046 default board: claimed -> cancelled", () => allowedMove("claimed", "cancelled"));
test("TKT-047 default board: in_progress -> review", () =>
  allowedMove("in_progress", "review", { handoff: true }));
test(
  "TKT-048 default board: in_progress -> needs_review",
  () => allowedMove("in_progress", "needs_review", { handoff: true }),
);
test("TKT-049 default board: in_progress -> blocked", () => allowedMove("in_progress", "blocked"));
test("TKT-050 default board: in_progress -> backlog", () => allowedMove("in_progress", "backlog"));
test("TKT-051 default board: in_progress -> cancelled", () => allowedMove("in_progress", "cancelled"));
test("TKT-052 default board: blocked -> in_progress", () => allowedMove("blocked", "in_progress"));
test("TKT-053 default board: blocked -> backlog", () => allowedMove("blocked", "backlog"));
test("TKT-054 default board: blocked -> cancelled", () => allowedMove("blocked", "cancelled"));
test("TKT-055 default board: needs_review -> review", () => allowedMove("needs_review", "review"));
test("TKT-056 default board: needs_review -> in_progress", () => allowedMove("needs_review", "in_progress"));
test("TKT-057 default board: needs_review -> backlog", () => allowedMove("needs_review", "backlog"));
test("TKT-058 default board: needs_review -> cancelled", () => allowedMove("needs_review", "cancelled"));
test("TKT-059 default board: review -> done (light mode)", () =>
  allowedMove("review", "done", { reviewMode: "light" }));
test("TKT-060 default board: review -> in_progress", () => allowedMove("review", "in_progress"));
test("TKT-061 default board: review -> cancelled", () => allowedMove("review", "cancelled"));

test("TKT-059 review -> done outside light is still subject to guard 4", async () => {
  const b = await board();
  const t = await ticket(b, { status: "review", assignee: b.dev.agentId, tested: true });
  const res = await patch(b.dev.token, { ticketId: t.id, status: "done" });
  assert.equal(res.status, 403);
  assert.equal(res.body.error.details.recovery.action, "APPROVE_VIA_ENDPOINT");
});

for (const terminal of ["done", "cancelled"]) {
  const rule = terminal === "done" ? "TKT-062" : "TKT-063";
  test(`${rule} ${terminal} is terminal: every move out of it answers 422 INVALID_TRANSITION`, async () => {
    const b = await board({ reviewMode: "light" });
    for (
      const to of [
        "backlog",
        "claimed",
        "in_progress",
        "blocked",
        "needs_review",
        "review",
        "cancelled",
        "done",
      ]
    ) {
      if (to === terminal) continue;
      const t = await ticket(b, { status: terminal, assignee: b.dev.agentId, tested: true });
      const res = await patch(b.orchestrator.token, { ticketId: t.id, status: to, reviewHandoff: HANDOFF });
      assert.equal(res.status, 422, `${terminal} -> ${to}: ${res.text}`);
      assert.equal(res.body.error.code, "INVALID_TRANSITION");
      assert.deepEqual(res.body.error.details.validTransitions, []);
      assert.equal((await ticketRow(t.id)).status, terminal);
    }
  });
}

test("TKT-085 illegal moves answer 422 INVALID_TRANSITION with validTransitions", async () => {
  const b = await board({ reviewMode: "light" });
  const cases: [string, string, string[]][] = [
    ["backlog", "review", ["claimed", "in_progress", "cancelled"]],
    ["backlog", "blocked", ["claimed", "in_progress", "cancelled"]],
    ["claimed", "review", ["in_progress", "backlog", "cancelled"]],
    ["in_progress", "done", ["review", "needs_review", "blocked", "backlog", "cancelled"]],
    ["blocked", "review", ["in_progress", "backlog", "cancelled"]],
    ["needs_review", "done", ["review", "in_progress", "backlog", "cancelled"]],
    ["review", "backlog", ["done", "in_progress", "cancelled", "changes_requested"]],
  ];
  for (const [from, to, valid] of cases) {
    const t = await ticket(b, { status: from, assignee: b.dev.agentId, tested: true });
    const res = await patch(b.dev.token, { ticketId: t.id, status: to, reviewHandoff: HANDOFF });
    assert.equal(res.status, 422, `${from} -> ${to}: ${res.text}`);
    assert.equal(res.body.error.code, "INVALID_TRANSITION");
    assert.deepEqual(res.body.error.details.validTransitions, valid, `${from} -> ${to}`);
    assert.equal(res.body.error.details.recovery.action, "USE_VALID_TRANSITION");
    assert.equal((await ticketRow(t.id)).status, from);
  }
});

test("TKT-084 an unknown status answers 400 with validStatuses and USE_VALID_STATUS", async () => {
  const b = await board();
  const t = await ticket(b, { status: "backlog", assignee: b.dev.agentId });
  for (const status of ["in-progress", "qa", "sprint_backlog", "x".repeat(30)]) {
    const res = await patch(b.dev.token, { ticketId: t.id, status });
    assert.equal(res.status, 400, status);
    assert.equal(res.body.error.code, "VALIDATION_ERROR");
    assert.ok(res.body.error.details.validStatuses.includes("in_progress"));
    assert.equal(res.body.error.details.recovery.action, "USE_VALID_STATUS");
  }
  const tooLong = await patch(b.dev.token, { ticketId: t.id, status: "x".repeat(31) });
  assert.equal(tooLong.status, 400);
  assert.equal(tooLong.body.error.code, "VALIDATION_ERROR");
});

test("TKT-146 status is at most 30 characters", async () => {
  const b = await board();
  const t = await ticket(b, { assignee: b.dev.agentId });
  const res = await patch(b.dev.token, { ticketId: t.id, status: "s".repeat(31) });
  assert.equal(res.status, 400);
  assert.ok(res.body.error.details.fields.some((f: { path: string }) => f.path === "status"));
});

test("TKT-038 each project owns its board: GET /workflow lists its statuses and transitions", async () => {
  const def = await board();
  const custom = await board({ settings: { columns: ["todo", "doing", "in_review", "done"] } });
  const a = await call("GET", "/workflow", { token: def.dev.token });
  assert.equal(a.status, 200, a.text);
  assert.deepEqual(a.body.data.statuses, [
    "backlog",
    "claimed",
    "in_progress",
    "blocked",
    "needs_review",
    "review",
    "changes_requested",
    "done",
    "cancelled",
  ]);
  assert.deepEqual(a.body.data.transitions.backlog, ["claimed", "in_progress", "cancelled"]);
  const c = await call("GET", "/workflow", { token: custom.dev.token });
  assert.deepEqual(c.body.data.statuses, ["backlog", "todo", "doing", "in_review", "done", "cancelled"]);
  assert.equal(c.body.data.reviewStatus, "in_review");
  // A status of the other board is unknown here.
  const t = await ticket(custom, { status: "todo", assignee: custom.dev.agentId });
  const res = await patch(custom.dev.token, { ticketId: t.id, status: "claimed" });
  assert.equal(res.status, 400);
  assert.deepEqual(res.body.error.details.validStatuses, c.body.data.statuses);
});

test("TKT-069 changes_requested on the default board: reviewer outcome, then back to work", async () => {
  const b = await board();
  const t = await ticket(b, {
    status: "review",
    assignee: b.dev.agentId,
    reviewer: b.evaluator.agentId,
    tested: true,
    reviewHandoff: HANDOFF,
  });
  const res = await patch(b.evaluator.token, { ticketId: t.id, status: "changes_requested" });
  assert.equal(res.status, 200, res.text);
  const wf = await call("GET", "/workflow", { token: b.dev.token });
  assert.deepEqual(wf.body.data.transitions.changes_requested, ["in_progress", "backlog", "cancelled"]);
  const illegal = await patch(b.dev.token, { ticketId: t.id, status: "review", reviewHandoff: HANDOFF });
  assert.equal(illegal.status, 422);
  const back = await patch(b.dev.token, { ticketId: t.id, status: "in_progress" });
  assert.equal(back.status, 200, back.text);
  const row = await ticketRow(t.id);
  assert.equal(row.review_handoff, null, "leaving review for work clears the stored handoff");
  assert.deepEqual(row.review_history.map((h: { event: string }) => h.event), ["changes_requested"]);
});

test("TKT-069 in_review, qa and sprint_backlog are custom-board columns, unknown on the default board", async () => {
  const b = await board();
  const t = await ticket(b, { status: "in_progress", assignee: b.dev.agentId, tested: true });
  for (const status of ["in_review", "qa", "sprint_backlog"]) {
    const res = await patch(b.dev.token, { ticketId: t.id, status, reviewHandoff: HANDOFF });
    assert.equal(res.status, 400, status);
    assert.equal(res.body.error.details.recovery.action, "USE_VALID_STATUS");
  }
  const custom = await board({
    reviewMode: "light",
    settings: { columns: ["backlog", "sprint_backlog", "in_progress", "in_review", "qa", "done"] },
  });
  const c = await ticket(custom, { status: "sprint_backlog", assignee: custom.dev.agentId });
  for (const to of ["in_progress", "in_review", "qa", "done"]) {
    const res = await patch(custom.dev.token, { ticketId: c.id, status: to, reviewHandoff: HANDOFF });
    assert.equal(res.status, 200, `${to}: ${res.text}`);
  }
});

const CUSTOM = { columns: ["todo", "doing", "blocked", "in_review", "qa", "done"] };

test("TKT-064 custom board: previous and next column", async () => {
  const b = await board({ reviewMode: "light", settings: CUSTOM });
  const t = await ticket(b, { status: "doing", assignee: b.dev.agentId });
  assert.equal((await patch(b.dev.token, { ticketId: t.id, status: "todo" })).status, 200);
  assert.equal((await patch(b.dev.token, { ticketId: t.id, status: "doing" })).status, 200);
  assert.equal((await patch(b.dev.token, { ticketId: t.id, status: "blocked" })).status, 200);
  const next = await patch(b.dev.token, { ticketId: t.id, status: "in_review", reviewHandoff: HANDOFF });
  assert.equal(next.status, 200, next.text);
  assert.equal((await patch(b.dev.token, { ticketId: t.id, status: "qa" })).status, 200);
  assert.equal((await patch(b.dev.token, { ticketId: t.id, status: "done" })).status, 200);
});

test("TKT-065 custom board: backlog is always reachable, even when not a column", async () => {
  const b = await board({ settings: CUSTOM });
  const t = await ticket(b, { status: "qa", assignee: b.dev.agentId });
  const res = await patch(b.dev.token, { ticketId: t.id, status: "backlog" });
  assert.equal(res.status, 200, res.text);
});

test("TKT-066 custom board: blocked when it is a column, unknown otherwise", async () => {
  const b = await board({ settings: CUSTOM });
  const t = await ticket(b, { status: "todo", assignee: b.dev.agentId });
  assert.equal((await patch(b.dev.token, { ticketId: t.id, status: "blocked" })).status, 200);
  const noBlocked = await board({ settings: { columns: ["todo", "doing", "done"] } });
  const u = await ticket(noBlocked, { status: "todo", assignee: noBlocked.dev.agentId });
  const res = await patch(noBlocked.dev.token, { ticketId: u.id, status: "blocked" });
  assert.equal(res.status, 400);
  assert.equal(res.body.error.details.recovery.action, "USE_VALID_STATUS");
});

test("TKT-067 custom board: cancelled from any open column", async () => {
  const b = await board({ settings: CUSTOM });
  for (const from of ["todo", "doing", "in_review", "qa"]) {
    const t = await ticket(b, { status: from, assignee: b.dev.agentId });
    const res = await patch(b.dev.token, { ticketId: t.id, status: "cancelled" });
    assert.equal(res.status, 200, `${from}: ${res.text}`);
  }
});

test("TKT-068 custom board: any other move answers 422 INVALID_TRANSITION", async () => {
  const b = await board({ reviewMode: "light", settings: CUSTOM });
  const t = await ticket(b, { status: "todo", assignee: b.dev.agentId, tested: true });
  const res = await patch(b.dev.token, { ticketId: t.id, status: "qa", reviewHandoff: HANDOFF });
  assert.equal(res.status, 422);
  assert.equal(res.body.error.code, "INVALID_TRANSITION");
  assert.deepEqual(res.body.error.details.validTransitions, ["backlog", "doing", "blocked", "cancelled"]);
  const done = await ticket(b, { status: "done", assignee: b.dev.agentId });
  const back = await patch(b.dev.token, { ticketId: done.id, status: "qa" });
  assert.equal(back.status, 422, "done stays terminal on a custom board");
});
