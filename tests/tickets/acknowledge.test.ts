import assert from "node:assert/strict";
import { call, env, pairAgent, test } from "../helpers/mod.ts";
import { create, getTicket, setup } from "./_helpers.ts";

async function ack(token: string, id: string, body?: unknown) {
  return await call("POST", `/ticket/${id}/acknowledge`, { token, body: body ?? {} });
}

test("TKT-188 acknowledging sets criteriaAcknowledgedAt", async () => {
  const s = await setup();
  const t = await create(s.agent.token, { acceptanceCriteria: [{ title: "Works" }] });
  assert.equal(t.criteriaAcknowledgedAt, null);
  const res = await ack(s.agent.token, t.id);
  assert.equal(res.status, 200);
  assert.ok(res.body.data.criteriaAcknowledgedAt);
  assert.equal(res.body.data.ticketRef, t.ticketRef);
  assert.equal(res.body.data.alreadyAcknowledged, false);
  assert.equal(
    (await getTicket(s.agent.token, t.id)).criteriaAcknowledgedAt,
    res.body.data.criteriaAcknowledgedAt,
  );
  const noBody = await call("POST", `/ticket/${t.id}/acknowledge`, { token: s.agent.token });
  assert.equal(noBody.status, 200);
});

test("TKT-190 additionalCriteria is required when the ticket has none (400 ADD_CRITERIA) and holds at most 20", async () => {
  const s = await setup();
  const t = await create(s.agent.token);
  const refused = await ack(s.agent.token, t.id);
  assert.equal(refused.status, 400);
  assert.equal(refused.body.error.code, "VALIDATION_ERROR");
  assert.equal(refused.body.error.details.recovery.action, "ADD_CRITERIA");
  const many = (n: number) =>
    Array.from({ length: n }, (_, i) => ({ title: `c${i}`, requiresEvidence: false }));
  const tooMany = await ack(s.agent.token, t.id, { additionalCriteria: many(21) });
  assert.equal(tooMany.status, 400);
  const ok = await ack(s.agent.token, t.id, { additionalCriteria: many(20) });
  assert.equal(ok.status, 200);
  assert.equal(ok.body.data.acceptanceCriteria.length, 20);
  const other = await create(s.agent.token, { acceptanceCriteria: [{ title: "existing" }] });
  const overflow = await ack(s.agent.token, other.id, { additionalCriteria: many(20) });
  assert.equal(overflow.status, 400, "a ticket holds at most 20 criteria in all");
});

test("TKT-191 each additional criterion is { title 1-500, description? <=2000, requiresEvidence }, stored as manual", async () => {
  const s = await setup();
  const t = await create(s.agent.token);
  const res = await ack(s.agent.token, t.id, {
    additionalCriteria: [
      { title: "t".repeat(500), description: "d".repeat(2000), requiresEvidence: true },
      { title: "Second", requiresEvidence: false },
    ],
  });
  assert.equal(res.status, 200);
  const [first, second] = (await getTicket(s.agent.token, t.id)).acceptanceCriteria;
  assert.deepEqual(first, {
    title: "t".repeat(500),
    description: "d".repeat(2000),
    requiresEvidence: true,
    source: "manual",
  });
  assert.deepEqual(second, { title: "Second", requiresEvidence: false, source: "manual" });
  for (
    const bad of [{ title: "" }, { title: "t".repeat(501) }, { title: "x", description: "d".repeat(2001) }, {
      title: "x",
      requiresEvidence: "yes",
    }]
  ) {
    const r = await ack(s.agent.token, t.id, { additionalCriteria: [bad] });
    assert.equal(r.status, 400, JSON.stringify(bad).slice(0, 40));
  }
});

test("TKT-192 acknowledging is idempotent: a repeat succeeds and adds or changes nothing", async () => {
  const s = await setup();
  const t = await create(s.agent.token);
  const body = { additionalCriteria: [{ title: "Only once", requiresEvidence: true }] };
  const first = await ack(s.agent.token, t.id, body);
  const again = await ack(s.agent.token, t.id, body);
  assert.equal(again.status, 200);
  assert.equal(again.body.data.added, 0);
  assert.equal(again.body.data.alreadyAcknowledged, true);
  assert.equal(again.body.data.criteriaAcknowledgedAt, first.body.data.criteriaAcknowledgedAt);
  const read = await getTicket(s.agent.token, t.id);
  assert.equal(read.acceptanceCriteria.length, 1);
  assert.equal(read.updatedAt, first.body.data.criteriaAcknowledgedAt);
});

test("TKT-189 acknowledging needs write:ticket", async () => {
  const s = await setup();
  const t = await create(s.agent.token, { acceptanceCriteria: [{ title: "x" }] });
  const key = await call("POST", `/admin/projects/${s.projectId}/api-keys`, {
    token: "test-admin-token",
    body: { name: "r", agentName: "reader-ack", role: "generator", scopes: ["read:board"] },
  });
  const res = await ack(key.body.data.key, t.id);
  assert.equal(res.status, 403);
  assert.equal(res.body.error.code, "FORBIDDEN");
  assert.equal((await getTicket(s.agent.token, t.id)).criteriaAcknowledgedAt, null);
});

test("TKT-193 CONV-027 the path takes the internal id: a key or unknown id answers 404 TICKET_NOT_FOUND", async () => {
  const s = await setup();
  const t = await create(s.agent.token, { acceptanceCriteria: [{ title: "x" }] });
  for (const id of [t.ticketRef, crypto.randomUUID()]) {
    const res = await ack(s.agent.token, id);
    assert.equal(res.status, 404, id);
    assert.equal(res.body.error.code, "TICKET_NOT_FOUND");
  }
});

test("TKT-193 a ticket assigned to another agent is acknowledged by its assignee (403 for others), not when done", async () => {
  const s = await setup();
  const other = await pairAgent(s.projectId);
  const t = await create(other.token, { assignToSelf: true });
  const res = await ack(s.agent.token, t.id, {
    additionalCriteria: [{ title: "x", requiresEvidence: false }],
  });
  assert.equal(res.status, 403);
  const done = await create(s.agent.token);
  const { db } = await env();
  await db.updateTable("tickets").set({ status: "done" }).where("id", "=", done.id).execute();
  const closed = await ack(s.agent.token, done.id, {
    additionalCriteria: [{ title: "late", requiresEvidence: false }],
  });
  assert.equal(closed.status, 409);
  assert.equal(closed.body.error.code, "CONFLICT");
});

test("RATE-010 POST /ticket/{id}/acknowledge counts as /ticket: 3 units", async () => {
  const s = await setup({ plan: "free" });
  const t = await create(s.agent.token, { acceptanceCriteria: [{ title: "x" }] });
  const a = await ack(s.agent.token, t.id);
  const b = await ack(s.agent.token, t.id);
  assert.equal(a.body.meta.callsRemaining - b.body.meta.callsRemaining, 3);
});

test("TKT-192 concurrent acknowledges with the same criterion add it once", async () => {
  const s = await setup();
  const t = await create(s.agent.token);
  const body = { additionalCriteria: [{ title: "Raced criterion", requiresEvidence: true }] };
  const results = await Promise.all(Array.from({ length: 6 }, () => ack(s.agent.token, t.id, body)));
  for (const r of results) assert.equal(r.status, 200, r.text);
  assert.equal(results.filter((r) => r.body.data.added === 1).length, 1);
  assert.equal((await getTicket(s.agent.token, t.id)).acceptanceCriteria.length, 1);
});
