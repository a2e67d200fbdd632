import assert from "node:assert/strict";
import { recordEvent } from "@/domain/core/record-event.ts";
import { call, env, newProject, pairAgent, test } from "../helpers/mod.ts";

async function emit(projectId: string, kind: string, count = 1): Promise<void> {
  const { db, clock } = await env();
  for (let i = 0; i < count; i++) {
    await db.transaction().execute((trx) =>
      recordEvent(trx, {
        projectId,
        kind,
        entityType: kind.split(".")[0] ?? "x",
        entityId: null,
        agentId: null,
        data: { i },
        now: clock.now(),
      })
    );
  }
}

test("CTX-053 GET /events exists and returns the project's events with a cursor", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  const res = await call("GET", "/events", { token: agent.token });
  assert.equal(res.status, 200);
  assert.deepEqual(Object.keys(res.body.data).sort(), ["events", "hasMore", "nextCursor"]);
  const first = res.body.data.events[0];
  assert.ok(first, "pairing wrote at least one event");
  assert.deepEqual(Object.keys(first).sort(), [
    "agentId",
    "createdAt",
    "data",
    "entityId",
    "entityType",
    "kind",
    "seq",
  ]);
  assert.equal(first.seq, 1);
  assert.equal(typeof res.body.data.nextCursor, "string");
});

test("CTX-054 polling with nextCursor returns only new events, oldest first", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  const start = await call("GET", "/events", { token: agent.token });
  const cursor = start.body.data.nextCursor;
  const empty = await call("GET", `/events?since=${cursor}`, { token: agent.token });
  assert.equal(empty.status, 200);
  assert.deepEqual(empty.body.data.events, []);
  assert.equal(empty.body.data.nextCursor, cursor);
  assert.equal(empty.body.data.hasMore, false);
  await emit(projectId, "test.poked", 3);
  const next = await call("GET", `/events?since=${cursor}`, { token: agent.token });
  const seqs = next.body.data.events.map((e: { seq: number }) => e.seq);
  const base = start.body.data.events.length;
  assert.deepEqual(seqs, [base + 1, base + 2, base + 3]);
  assert.equal(next.body.data.events[0].kind, "test.poked");
});

test("CTX-054 limit pages the feed: hasMore and nextCursor continue without gaps", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  await emit(projectId, "test.bulk", 7);
  const seen: number[] = [];
  let cursor = "";
  for (let i = 0; i < 10; i++) {
    const res = await call("GET", `/events?limit=3${cursor ? `&since=${cursor}` : ""}`, {
      token: agent.token,
    });
    assert.equal(res.status, 200);
    seen.push(...res.body.data.events.map((e: { seq: number }) => e.seq));
    cursor = res.body.data.nextCursor;
    if (!res.body.data.hasMore) break;
  }
  assert.deepEqual(seen, Array.from({ length: seen.length }, (_, i) => i + 1));
  assert.ok(seen.length >= 8);
});

test("CTX-054 limit is 1 to 500; outside answers 400 VALIDATION_ERROR", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  for (const limit of [1, 500]) {
    assert.equal((await call("GET", `/events?limit=${limit}`, { token: agent.token })).status, 200);
  }
  for (const limit of [0, 501, "x"]) {
    const res = await call("GET", `/events?limit=${limit}`, { token: agent.token });
    assert.equal(res.status, 400);
    assert.equal(res.body.error.code, "VALIDATION_ERROR");
  }
});

test("CTX-054 an invalid or foreign cursor answers 400 with recovery RESTART_PAGINATION", async () => {
  const a = await newProject();
  const b = await newProject();
  const agentA = await pairAgent(a.projectId);
  const agentB = await pairAgent(b.projectId);
  const foreign = (await call("GET", "/events", { token: agentB.token })).body.data.nextCursor;
  for (const since of ["garbage!", foreign]) {
    const res = await call("GET", `/events?since=${encodeURIComponent(since)}`, { token: agentA.token });
    assert.equal(res.status, 400);
    assert.equal(res.body.error.code, "VALIDATION_ERROR");
    assert.equal(res.body.error.details.recovery.action, "RESTART_PAGINATION");
  }
});

test("CTX-054 since accepts an ISO 8601 time and kinds filters by kind or prefix", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  const past = new Date(Date.now() - 3600_000).toISOString();
  await emit(projectId, "ticket.created", 2);
  await emit(projectId, "claim.acquired", 1);
  const all = await call("GET", `/events?since=${past}`, { token: agent.token });
  assert.ok(all.body.data.events.length >= 4);
  const future = new Date(Date.now() + 24 * 3600_000).toISOString();
  const none = await call("GET", `/events?since=${future}`, { token: agent.token });
  assert.equal(none.body.data.events.length, 0);
  const tickets = await call("GET", "/events?kinds=ticket.", { token: agent.token });
  assert.deepEqual(tickets.body.data.events.map((e: { kind: string }) => e.kind), [
    "ticket.created",
    "ticket.created",
  ]);
  const exact = await call("GET", "/events?kinds=claim.acquired,nothing.here", { token: agent.token });
  assert.equal(exact.body.data.events.length, 1);
  const after = await call("GET", `/events?kinds=ticket.&since=${exact.body.data.nextCursor}`, {
    token: agent.token,
  });
  assert.equal(after.body.data.events.length, 0, "the filtered cursor moved past all seen events");
});

test("CTX-054 GET /events needs a valid token", async () => {
  const res = await call("GET", "/events");
  assert.equal(res.status, 401);
  assert.equal(res.body.error.code, "UNAUTHORIZED");
});
