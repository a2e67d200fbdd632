import assert from "node:assert/strict";
import { toJson } from "@/db/tables/types.ts";
import { call, env, test } from "../helpers/mod.ts";
import { insertLedgerEntry } from "../helpers/fixtures.ts";
import { create, setup } from "./_helpers.ts";

/** Seeds comments, ledger entries, a thread, a session activity and pull requests on a ticket. */
async function seed(projectId: string, agentId: string, ticketId: string, sessionId: string, count = 3) {
  const { db } = await env();
  const base = Date.now();
  for (let i = 0; i < count; i++) {
    const at = new Date(base + i * 1000);
    await db.insertInto("ticket_comments").values({
      id: crypto.randomUUID(),
      ticket_id: ticketId,
      author_agent_id: agentId,
      author_name: "someone",
      content: `comment ${i}`,
      created_at: at,
    }).execute();
    await insertLedgerEntry(projectId, {
      type: "PROGRESS",
      content: `progress ${i}`,
      agentId,
      ticketId,
      createdAt: at,
    });
    await db.insertInto("ticket_artifacts").values({
      id: crypto.randomUUID(),
      ticket_id: ticketId,
      type: "pull_request",
      url: `https://example.com/pr/${i}`,
      metadata: toJson(i === count - 1 ? { ciStatus: "failed" } : {}),
      created_at: at,
      updated_at: at,
    }).execute();
  }
  await db.insertInto("threads").values({
    id: crypto.randomUUID(),
    project_id: projectId,
    agent_id: agentId,
    intent: "Discuss",
    ticket_id: ticketId,
    created_at: new Date(base),
  }).execute();
  await db.updateTable("sessions").set({ ticket_id: ticketId }).where("id", "=", sessionId).execute();
  await db.insertInto("session_activities").values({
    id: crypto.randomUUID(),
    session_id: sessionId,
    type: "thought",
    body: "thinking",
    created_at: new Date(base),
    // Columns other areas add (seq) are filled too; cast because that table's shape is not ours.
    seq: 1,
  } as never).execute();
}

test("TKT-125 GET /ticket without id or key answers 400 VALIDATION_ERROR", async () => {
  const s = await setup();
  const res = await call("GET", "/ticket", { token: s.agent.token });
  assert.equal(res.status, 400);
  assert.equal(res.body.error.code, "VALIDATION_ERROR");
});

test("TKT-126 GET /ticket by id or by key returns the ticket resource; key wins over id", async () => {
  const s = await setup();
  const a = await create(s.agent.token, { title: "Alpha" });
  const b = await create(s.agent.token, { title: "Beta" });
  const byId = await call("GET", `/ticket?id=${a.id}`, { token: s.agent.token });
  assert.equal(byId.status, 200);
  assert.equal(byId.body.data.title, "Alpha");
  assert.equal(byId.body.data.ticketRef, a.ticketRef);
  const byKey = await call("GET", `/ticket?key=${b.ticketRef}`, { token: s.agent.token });
  assert.equal(byKey.body.data.id, b.id);
  const both = await call("GET", `/ticket?id=${a.id}&key=${b.ticketRef}`, { token: s.agent.token });
  assert.equal(both.body.data.id, b.id);
});

test("TKT-130 GET /ticket for an unknown ticket answers 404 TICKET_NOT_FOUND", async () => {
  const s = await setup();
  const other = await setup();
  const foreign = await create(other.agent.token);
  for (
    const q of [
      `id=${crypto.randomUUID()}`,
      `key=${s.prefix}-999`,
      `id=${foreign.id}`,
      `key=${other.prefix}-1`,
    ]
  ) {
    const res = await call("GET", `/ticket?${q}`, { token: s.agent.token });
    assert.equal(res.status, 404, q);
    assert.equal(res.body.error.code, "TICKET_NOT_FOUND");
    assert.equal(res.body.error.details.recovery.action, "RESOLVE_TICKET_REF");
  }
});

test("CONV-028 GET /ticket accepts the human key only in key, not in id", async () => {
  const s = await setup();
  const t = await create(s.agent.token);
  const res = await call("GET", `/ticket?id=${t.ticketRef}`, { token: s.agent.token });
  assert.equal(res.status, 400);
});

test("TKT-035 comments and ledger appear only when asked for with include", async () => {
  const s = await setup();
  const t = await create(s.agent.token);
  await seed(s.projectId, s.agent.agentId, t.id, s.agent.sessionId, 2);
  const plain = await call("GET", `/ticket?id=${t.id}`, { token: s.agent.token });
  assert.equal("comments" in plain.body.data, false);
  assert.equal("ledger" in plain.body.data, false);
  const withComments = await call("GET", `/ticket?id=${t.id}&include=comments`, { token: s.agent.token });
  assert.equal(withComments.body.data.comments.length, 2);
  assert.equal("ledger" in withComments.body.data, false);
});

test("TKT-127 include takes comments, ledger, threads, activities, pullRequests, ciStatus; others answer 400", async () => {
  const s = await setup();
  const t = await create(s.agent.token);
  await seed(s.projectId, s.agent.agentId, t.id, s.agent.sessionId, 2);
  const res = await call(
    "GET",
    `/ticket?id=${t.id}&include=comments,ledger,threads,activities,pullRequests,ciStatus`,
    {
      token: s.agent.token,
    },
  );
  assert.equal(res.status, 200);
  const d = res.body.data;
  assert.deepEqual(d.comments.map((c: { content: string }) => c.content), ["comment 1", "comment 0"]);
  assert.deepEqual(d.ledger.map((e: { content: string }) => e.content), ["progress 1", "progress 0"]);
  assert.equal(d.ledger[0].type, "PROGRESS");
  assert.equal(d.threads.length, 1);
  assert.equal(d.threads[0].intent, "Discuss");
  assert.equal(d.activities.length, 1);
  assert.equal(d.activities[0].type, "thought");
  assert.equal(d.pullRequests.length, 2);
  assert.equal(d.ciStatus.state, "failing");
  const bad = await call("GET", `/ticket?id=${t.id}&include=comments,secrets`, { token: s.agent.token });
  assert.equal(bad.status, 400);
  assert.equal(bad.body.error.code, "VALIDATION_ERROR");
});

test("TKT-128 limit caps the included lists: default 20, max 100", async () => {
  const s = await setup();
  const t = await create(s.agent.token);
  await seed(s.projectId, s.agent.agentId, t.id, s.agent.sessionId, 25);
  const dflt = await call("GET", `/ticket?id=${t.id}&include=comments,ledger`, { token: s.agent.token });
  assert.equal(dflt.body.data.comments.length, 20);
  assert.equal(dflt.body.data.ledger.length, 20);
  const two = await call("GET", `/ticket?id=${t.id}&include=ledger&limit=2`, { token: s.agent.token });
  assert.equal(two.body.data.ledger.length, 2);
  assert.equal(
    (await call("GET", `/ticket?id=${t.id}&include=ledger&limit=100`, { token: s.agent.token })).status,
    200,
  );
  for (const limit of [0, 101]) {
    const res = await call("GET", `/ticket?id=${t.id}&include=ledger&limit=${limit}`, {
      token: s.agent.token,
    });
    assert.equal(res.status, 400, `limit ${limit}`);
  }
});

test("TKT-129 paginate=v2 wraps included comments and ledger as { data, pagination }", async () => {
  const s = await setup();
  const t = await create(s.agent.token);
  await seed(s.projectId, s.agent.agentId, t.id, s.agent.sessionId, 3);
  const res = await call("GET", `/ticket?id=${t.id}&include=comments,ledger&limit=2&paginate=v2`, {
    token: s.agent.token,
  });
  const { comments, ledger } = res.body.data;
  assert.equal(comments.data.length, 2);
  assert.deepEqual(comments.pagination, { total: 3, limit: 2, offset: 0, hasMore: true });
  assert.equal(ledger.data.length, 2);
  assert.equal(ledger.pagination.total, 3);
  const next = await call("GET", `/ticket?id=${t.id}&include=ledger&limit=2&offset=2&paginate=v2`, {
    token: s.agent.token,
  });
  assert.equal(next.body.data.ledger.data.length, 1);
  assert.equal(next.body.data.ledger.pagination.hasMore, false);
});

test("RATE-008 GET /ticket costs 3 units", async () => {
  const s = await setup({ plan: "free" });
  const t = await create(s.agent.token);
  const a = await call("GET", `/ticket?id=${t.id}`, { token: s.agent.token });
  const b = await call("GET", `/ticket?id=${t.id}`, { token: s.agent.token });
  assert.equal(a.body.meta.callsRemaining - b.body.meta.callsRemaining, 3);
});

test("TKT-037 TKT-031 the ticket resource carries exactly the documented stored fields", async () => {
  const s = await setup();
  const t = await create(s.agent.token);
  const res = await call("GET", `/ticket?id=${t.id}`, { token: s.agent.token });
  const keys = Object.keys(res.body.data);
  for (
    const field of [
      "acceptanceCriteria",
      "assignee",
      "branch",
      "createdAt",
      "createdByAgentId",
      "criteriaAcknowledgedAt",
      "description",
      "doneDefinition",
      "expectedFiles",
      "humanOnly",
      "id",
      "noArtifact",
      "noArtifactReason",
      "number",
      "outOfScope",
      "parentId",
      "parentTicketId",
      "priority",
      "reviewHandoff",
      "reviewHistory",
      "reviewerAgentId",
      "riskClass",
      "sprintId",
      "status",
      "statusChangedAt",
      "storyPoints",
      "subAgentName",
      "tags",
      "ticketRef",
      "title",
      "type",
      "updatedAt",
      "verificationCommand",
    ]
  ) assert.ok(keys.includes(field), field);
  assert.equal(typeof res.body.data.humanOnly, "boolean");
  const doc = await call("GET", "/openapi.json");
  const documented = Object.keys(doc.body.components.schemas.Ticket.properties).sort();
  assert.deepEqual(documented, Object.keys(res.body.data).sort());
});
