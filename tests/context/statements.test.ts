import assert from "node:assert/strict";
import { createApp } from "@/app.ts";
import { countingDb } from "../helpers/counting-db.ts";
import { env, newProject, pairAgent, test } from "../helpers/mod.ts";
import { insertSprint, insertTicket } from "../helpers/fixtures.ts";
import { CONTEXT_TICKET, insertThread, minutesAgo, now } from "./fixtures.ts";

/** GET /context through an app whose database counts the statements each call runs. */
async function countingContext(token: string) {
  const e = await env();
  const { db, counts } = countingDb(e.db);
  const app = createApp({
    db,
    engine: e.engine,
    clock: e.clock,
    config: { ...e.config, testClock: false },
  });
  return async (query: string) => {
    counts.reset();
    const res = await app.fetch(
      new Request(`http://localhost:8787/api/context${query}`, {
        headers: { Authorization: `Bearer ${token}` },
      }),
    );
    const body = await res.json();
    assert.equal(res.status, 200, JSON.stringify(body));
    return { data: body.data, statements: counts.statements };
  };
}

test("CTX-035 CTX-036 compact context skips the thread and review row queries, with the same ids (issue 12)", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  const base = await now();
  // More pending reviews than shown (a cursor), threads, an active ticket with files, a sprint backlog.
  for (let i = 0; i < 23; i++) {
    await insertTicket(projectId, {
      ...CONTEXT_TICKET,
      status: "review",
      statusChangedAt: minutesAgo(base, 100 - i),
    });
  }
  for (let i = 0; i < 3; i++) {
    await insertThread(projectId, { agentId: agent.agentId, createdAt: minutesAgo(base, i) });
  }
  await insertTicket(projectId, { ...CONTEXT_TICKET, status: "in_progress", assignee: agent.agentId });
  const sprintId = await insertSprint(projectId, { number: 1 });
  await insertTicket(projectId, { ...CONTEXT_TICKET, status: "backlog", sprintId });
  const get = await countingContext(agent.token);

  const full = await get("");
  const compact = await get("?compact=true");
  // Same ids, in the same order, and the same review cursor as the rows full mode shows.
  assert.deepEqual(compact.data.threads.ids, full.data.threads.map((t: { id: string }) => t.id));
  assert.equal(compact.data.threads.ids.length, 3);
  assert.deepEqual(
    compact.data.pendingReviews.ticketIds,
    full.data.pendingReviews.map((r: { ticketId: string }) => r.ticketId),
  );
  assert.equal(compact.data.pendingReviews.ticketIds.length, 20);
  assert.ok(full.data.pendingReviewsCursor);
  assert.equal(compact.data.pendingReviewsCursor, full.data.pendingReviewsCursor);
  // Full mode reads the thread and review rows in statements of their own; compact mode does not.
  assert.ok(
    compact.statements <= full.statements - 2,
    `compact ran ${compact.statements} statements, full ${full.statements}`,
  );
  // Admission, project, the sections statement, the active-ticket statement and the call's write: a
  // handful, not one per section.
  assert.ok(compact.statements <= 6, `compact ran ${compact.statements} statements`);
  assert.ok(full.statements <= 8, `full ran ${full.statements} statements`);
});
