import assert from "node:assert/strict";
import { admin, env, test } from "../helpers/mod.ts";
import { ticketRow } from "../helpers/fixtures.ts";
import { board, HANDOFF, logTested, patch, ticket } from "./fixtures.ts";

test("TKT-086 review modes are light, medium, strict, auto and custom", async () => {
  for (const mode of ["light", "medium", "strict", "auto", "custom"]) {
    const b = await board({ reviewMode: mode });
    const t = await ticket(b, { status: "in_progress", assignee: b.dev.agentId });
    const res = await patch(b.dev.token, { ticketId: t.id, status: "review", reviewHandoff: HANDOFF });
    // Guard 5 separates light from the others.
    assert.equal(res.status, mode === "light" ? 200 : 400, `${mode}: ${res.text}`);
  }
});

test("TKT-087 the review mode defaults to medium (guard 3 applies)", async () => {
  const b = await board();
  const t = await ticket(b, { status: "backlog", assignee: b.dev.agentId, acknowledged: false });
  const res = await patch(b.dev.token, { ticketId: t.id, status: "in_progress" });
  assert.equal(res.status, 400);
  assert.equal(res.body.error.details.reviewMode, "medium");
});

for (const mode of ["medium", "strict", "auto"]) {
  test(`TKT-088 guard 3 (${mode}): unacknowledged criteria block in_progress with ACKNOWLEDGE_CRITERIA`, async () => {
    const b = await board({ reviewMode: mode });
    const t = await ticket(b, { status: "claimed", assignee: b.dev.agentId, acknowledged: false });
    const res = await patch(b.dev.token, { ticketId: t.id, status: "in_progress" });
    assert.equal(res.status, 400);
    assert.equal(res.body.error.code, "VALIDATION_ERROR");
    assert.equal(res.body.error.details.recovery.action, "ACKNOWLEDGE_CRITERIA");
    assert.equal(res.body.error.details.recovery.endpoint, `POST /ticket/${t.id}/acknowledge`);
    assert.equal((await ticketRow(t.id)).status, "claimed");
  });
  test(`TKT-089 guard 3 (${mode}): no criteria block in_progress with ADD_CRITERIA`, async () => {
    const b = await board({ reviewMode: mode });
    const t = await ticket(b, {
      status: "backlog",
      assignee: b.dev.agentId,
      criteria: [],
      acknowledged: false,
    });
    const res = await patch(b.dev.token, { ticketId: t.id, status: "in_progress" });
    assert.equal(res.status, 400);
    assert.equal(res.body.error.details.recovery.action, "ADD_CRITERIA");
  });
}

test("TKT-088 guard 3 applies to every entry into in_progress (unblock, request_changes)", async () => {
  const b = await board();
  const t = await ticket(b, { status: "blocked", assignee: b.dev.agentId, acknowledged: false });
  const res = await patch(b.dev.token, { ticketId: t.id, action: "unblock" });
  assert.equal(res.status, 400);
  assert.equal(res.body.error.details.recovery.action, "ACKNOWLEDGE_CRITERIA");
});

for (const mode of ["light", "custom"]) {
  test(`TKT-090 guard 3 does not apply in ${mode}`, async () => {
    const b = await board({ reviewMode: mode });
    const none = await ticket(b, {
      status: "backlog",
      assignee: b.dev.agentId,
      criteria: [],
      acknowledged: false,
    });
    assert.equal((await patch(b.dev.token, { ticketId: none.id, status: "in_progress" })).status, 200);
    const unack = await ticket(b, { status: "backlog", assignee: b.dev.agentId, acknowledged: false });
    assert.equal((await patch(b.dev.token, { ticketId: unack.id, status: "in_progress" })).status, 200);
  });
}

for (const mode of ["medium", "strict", "auto", "custom"]) {
  test(`TKT-091 guard 4 (${mode}): direct done from review is 403 APPROVE_VIA_ENDPOINT`, async () => {
    const b = await board({ reviewMode: mode });
    for (const from of ["review", "needs_review"]) {
      const t = await ticket(b, { status: from, assignee: b.dev.agentId, tested: true });
      const res = await patch(b.orchestrator.token, { ticketId: t.id, status: "done" });
      assert.equal(res.status, 403, `${from}: ${res.text}`);
      assert.equal(res.body.error.code, "FORBIDDEN");
      assert.equal(res.body.error.details.recovery.action, "APPROVE_VIA_ENDPOINT");
      assert.equal(res.body.error.details.recovery.endpoint, `POST /ticket/${t.id}/approve`);
      assert.equal((await ticketRow(t.id)).status, from);
    }
  });
}

test("TKT-092 guard 4: direct done of a ticket not in review is 403 REQUEST_REVIEW", async () => {
  const b = await board();
  for (const from of ["backlog", "claimed", "in_progress", "blocked"]) {
    const t = await ticket(b, { status: from, assignee: b.dev.agentId, tested: true });
    const res = await patch(b.dev.token, { ticketId: t.id, status: "done" });
    assert.equal(res.status, 403, `${from}: ${res.text}`);
    assert.equal(res.body.error.details.recovery.action, "REQUEST_REVIEW");
  }
});

test("TKT-093 guard 4 does not apply in light: review -> done succeeds", async () => {
  const b = await board({ reviewMode: "light" });
  const t = await ticket(b, { status: "review", assignee: b.dev.agentId });
  const res = await patch(b.dev.token, { ticketId: t.id, status: "done" });
  assert.equal(res.status, 200, res.text);
  // A light board still refuses a move the table does not allow.
  const u = await ticket(b, { status: "in_progress", assignee: b.dev.agentId });
  assert.equal((await patch(b.dev.token, { ticketId: u.id, status: "done" })).status, 422);
});

test("TKT-094 guard 5: entering review without a TESTED entry is 400 LOG_TESTED_ENTRY", async () => {
  for (const mode of ["medium", "strict", "auto", "custom"]) {
    const b = await board({ reviewMode: mode });
    const t = await ticket(b, { status: "in_progress", assignee: b.dev.agentId });
    const res = await patch(b.dev.token, { ticketId: t.id, status: "review", reviewHandoff: HANDOFF });
    assert.equal(res.status, 400, mode);
    assert.equal(res.body.error.code, "VALIDATION_ERROR");
    assert.equal(res.body.error.details.recovery.action, "LOG_TESTED_ENTRY");
    assert.equal(res.body.error.details.recovery.endpoint, "POST /ledger");
    assert.equal((await ticketRow(t.id)).status, "in_progress");
    await logTested(b, t.id);
    const after = await patch(b.dev.token, { ticketId: t.id, status: "review", reviewHandoff: HANDOFF });
    assert.equal(after.status, 200, after.text);
  }
});

test("TKT-094 guard 5 covers in_review and qa on a custom board, and a TESTED entry of another ticket does not count", async () => {
  const b = await board({ settings: { columns: ["todo", "doing", "in_review", "qa", "done"] } });
  const other = await ticket(b, { status: "todo", tested: true });
  const t = await ticket(b, { status: "doing", assignee: b.dev.agentId });
  assert.ok(other);
  const res = await patch(b.dev.token, { ticketId: t.id, status: "in_review", reviewHandoff: HANDOFF });
  assert.equal(res.status, 400);
  assert.equal(res.body.error.details.recovery.action, "LOG_TESTED_ENTRY");
  const q = await ticket(b, { status: "in_review", assignee: b.dev.agentId, reviewHandoff: HANDOFF });
  const toQa = await patch(b.dev.token, { ticketId: q.id, status: "qa" });
  assert.equal(toQa.status, 400);
  assert.equal(toQa.body.error.details.recovery.action, "LOG_TESTED_ENTRY");
});

test("TKT-095 guard 5: a VERIFIED entry satisfies it like TESTED", async () => {
  const b = await board();
  const t = await ticket(b, { status: "in_progress", assignee: b.dev.agentId });
  await logTested(b, t.id, "VERIFIED");
  const res = await patch(b.dev.token, { ticketId: t.id, status: "review", reviewHandoff: HANDOFF });
  assert.equal(res.status, 200, res.text);
});

test("TKT-095 guard 5: other entry types do not satisfy it", async () => {
  const b = await board();
  const t = await ticket(b, { status: "in_progress", assignee: b.dev.agentId });
  await logTested(b, t.id, "PROGRESS");
  const res = await patch(b.dev.token, { ticketId: t.id, status: "review", reviewHandoff: HANDOFF });
  assert.equal(res.status, 400);
});

test("TKT-096 guard 5 does not apply in light", async () => {
  const b = await board({ reviewMode: "light" });
  const t = await ticket(b, { status: "in_progress", assignee: b.dev.agentId });
  assert.equal(
    (await patch(b.dev.token, { ticketId: t.id, status: "review", reviewHandoff: HANDOFF })).status,
    200,
  );
  assert.equal((await patch(b.dev.token, { ticketId: t.id, status: "done" })).status, 200);
});

test("TKT-097 guard 6: twenty concurrent status writes from the same status give one success and 409s", async () => {
  const b = await board({ reviewMode: "light" });
  const targets = ["blocked", "backlog", "cancelled", "needs_review"];
  const u = await ticket(b, { status: "in_progress", assignee: b.dev.agentId });
  const same = await Promise.all(
    Array.from({ length: 20 }, () => patch(b.dev.token, { ticketId: u.id, status: "blocked" })),
  );
  assert.equal(same.filter((r) => r.status === 200).length, 1, same.map((r) => r.status).join(","));
  const losers = same.filter((r) => r.status !== 200);
  assert.equal(losers.length, 19);
  for (const r of losers) {
    assert.equal(r.status, 409, r.text);
    assert.equal(r.body.error.code, "CONFLICT");
    assert.equal(r.body.error.details.observedStatus, "blocked");
    assert.equal(r.body.error.details.recovery.action, "REFRESH_TICKET_STATE");
  }
  const v = await ticket(b, { status: "in_progress", assignee: b.dev.agentId });
  const mixed = await Promise.all(
    Array.from({ length: 20 }, (_, i) =>
      patch(b.dev.token, {
        ticketId: v.id,
        expectedStatus: "in_progress",
        status: targets[i % targets.length],
        reviewHandoff: HANDOFF,
      })),
  );
  assert.equal(mixed.filter((r) => r.status === 200).length, 1, mixed.map((r) => r.status).join(","));
  assert.equal(mixed.filter((r) => r.status === 409).length, 19);
  const won = mixed.find((r) => r.status === 200)!.body.data.status;
  assert.ok(targets.includes(won));
  assert.equal((await ticketRow(v.id)).status, won);
  for (const r of mixed.filter((r) => r.status === 409)) {
    assert.equal(r.body.error.details.observedStatus, won);
    assert.equal(r.body.error.details.recovery.action, "REFRESH_TICKET_STATE");
  }
  // Invariant: one status transition recorded per ticket (one ticket.moved event, from in_progress).
  const { db } = await env();
  for (const [id, to] of [[u.id, "blocked"], [v.id, won]]) {
    const moves = await db.selectFrom("events").select("data").where("entity_id", "=", id)
      .where("kind", "=", "ticket.moved").execute();
    assert.deepEqual(moves.map((m) => [m.data.from, m.data.to]), [["in_progress", to]]);
  }
});

test("TKT-097 guard 6: a stale expectedStatus answers 409 and writes nothing", async () => {
  const b = await board();
  const t = await ticket(b, { status: "in_progress", assignee: b.dev.agentId });
  const res = await patch(b.dev.token, {
    ticketId: t.id,
    expectedStatus: "claimed",
    status: "blocked",
    priority: "high",
  });
  assert.equal(res.status, 409);
  assert.equal(res.body.error.details.observedStatus, "in_progress");
  assert.equal(res.body.error.details.recovery.action, "REFRESH_TICKET_STATE");
  const row = await ticketRow(t.id);
  assert.equal(row.status, "in_progress");
  assert.deepEqual(row.tags, []);
});

test("TKT-098 guard 7: a done ticket's title and description cannot be edited (422)", async () => {
  const b = await board();
  const t = await ticket(b, { status: "done", assignee: b.dev.agentId });
  for (const body of [{ title: "New" }, { description: "New" }]) {
    const res = await patch(b.dev.token, { ticketId: t.id, ...body });
    assert.equal(res.status, 422);
    assert.equal(res.body.error.code, "VALIDATION_ERROR");
  }
  const row = await ticketRow(t.id);
  assert.equal(row.title, `Ticket ${t.number}`);
  assert.equal(row.description, "Original description");
  // Other fields of a done ticket stay editable.
  assert.equal((await patch(b.dev.token, { ticketId: t.id, priority: "low" })).status, 200);
  const open = await ticket(b, { status: "review", assignee: b.dev.agentId });
  assert.equal((await patch(b.dev.token, { ticketId: open.id, title: "Renamed" })).status, 200);
});

test("TKT-099 guards govern PATCH /ticket: a project switched to light lifts guards 3, 4 and 5", async () => {
  const b = await board();
  const t = await ticket(b, { status: "review", assignee: b.dev.agentId });
  assert.equal((await patch(b.dev.token, { ticketId: t.id, status: "done" })).status, 403);
  await admin("PATCH", `/projects/${b.projectId}`, { reviewMode: "light" });
  assert.equal((await patch(b.dev.token, { ticketId: t.id, status: "done" })).status, 200);
});
