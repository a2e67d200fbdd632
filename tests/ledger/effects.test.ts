import assert from "node:assert/strict";
import { admin, advanceClock, call, env, newProject, pairAgent, test } from "../helpers/mod.ts";
import { insertTicket } from "../helpers/fixtures.ts";

async function log(token: string, body: unknown) {
  return await call("POST", "/ledger", { token, body });
}

async function ticketStatus(id: string) {
  const { db } = await env();
  return (await db.selectFrom("tickets").select("status").where("id", "=", id).executeTakeFirstOrThrow())
    .status;
}

async function openThreads(projectId: string, file: string) {
  const { db } = await env();
  return await db.selectFrom("threads").selectAll().where("project_id", "=", projectId)
    .where("blocked_by_file", "=", file).where("status", "=", "open").execute();
}

test("LEDGER-031 a BLOCKED entry through POST /ledger moves its in-progress ticket to blocked", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const ticket = await insertTicket(projectId, { status: "in_progress", assignee: a.agentId });
  const res = await log(a.token, { type: "BLOCKED", content: "Waiting on the schema", ticketId: ticket.key });
  assert.equal(res.status, 201, res.text);
  assert.equal(await ticketStatus(ticket.id), "blocked");
  assert.deepEqual(res.body.data.ticket, { id: ticket.id, status: "blocked" });
  const { db } = await env();
  const moved = await db.selectFrom("events").select("data").where("project_id", "=", projectId)
    .where("kind", "=", "ticket.moved").where("entity_id", "=", ticket.id).executeTakeFirst();
  assert.equal((moved?.data as { to: string }).to, "blocked");
});

test("LEDGER-031 BLOCKED without ticketId blocks the caller's single in-progress ticket", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const ticket = await insertTicket(projectId, { status: "in_progress", assignee: a.agentId });
  const res = await log(a.token, { type: "BLOCKED", content: "Stuck" });
  assert.equal(res.status, 201);
  assert.equal(await ticketStatus(ticket.id), "blocked");
});

test("LEDGER-031 BLOCKED on a ticket that is not in progress writes the entry, moves nothing and warns", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const ticket = await insertTicket(projectId, { status: "done" });
  const res = await log(a.token, { type: "BLOCKED", content: "Stuck", ticketId: ticket.id });
  assert.equal(res.status, 201);
  assert.equal(await ticketStatus(ticket.id), "done");
  assert.ok(res.body.data.warnings.length > 0);
});

test("LEDGER-026 LEDGER-027 BLOCKED with blockedByFile opens one thread per open blocker file", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const b = await pairAgent(projectId);
  await call("POST", "/claim", { token: b.token, body: { files: ["src/schema.ts"] } });
  const first = await log(a.token, {
    type: "BLOCKED",
    content: "Needs the schema",
    blockedByFile: "src/schema.ts",
  });
  assert.equal(first.status, 201, first.text);
  const threads = await openThreads(projectId, "src/schema.ts");
  assert.equal(threads.length, 1);
  assert.equal(first.body.data.threadId, threads[0]!.id);
  assert.equal(threads[0]!.agent_id, a.agentId);
  // The holder of the file is told.
  const { db } = await env();
  const note = await db.selectFrom("notifications").select("thread_id").where(
    "recipient_agent_id",
    "=",
    b.agentId,
  )
    .executeTakeFirst();
  assert.equal(note?.thread_id, threads[0]!.id);
  const second = await log(a.token, {
    type: "BLOCKED",
    content: "Still blocked",
    blockedByFile: "src/schema.ts",
  });
  assert.equal(second.status, 201);
  assert.equal(second.body.data.threadId, undefined);
  assert.equal((await openThreads(projectId, "src/schema.ts")).length, 1);
  // blockedByFile belongs to BLOCKED entries only.
  assert.equal(
    (await log(a.token, { type: "FOUND", content: "x", blockedByFile: "src/schema.ts" })).status,
    400,
  );
});

test("LEDGER-027 concurrent BLOCKED entries on one file open a single thread", async () => {
  const { projectId } = await newProject();
  const agents = await Promise.all([pairAgent(projectId), pairAgent(projectId), pairAgent(projectId)]);
  const results = await Promise.all(
    agents.map((a) => log(a.token, { type: "BLOCKED", content: "blocked", blockedByFile: "src/hot.ts" })),
  );
  assert.deepEqual(results.map((r) => r.status), [201, 201, 201]);
  assert.equal((await openThreads(projectId, "src/hot.ts")).length, 1);
});

test("LEDGER-027 blockedByFile compares paths as claims do: SRC/Hot.ts and src/hot.ts are one blocker file, one thread", async () => {
  const { projectId } = await newProject();
  const agents = await Promise.all([pairAgent(projectId), pairAgent(projectId)]);
  const first = await log(agents[0]!.token, {
    type: "BLOCKED",
    content: "blocked",
    blockedByFile: "SRC/Hot.ts",
  });
  assert.equal(first.status, 201, first.text);
  assert.ok(first.body.data.threadId);
  const second = await log(agents[1]!.token, {
    type: "BLOCKED",
    content: "blocked",
    blockedByFile: "src/hot.ts",
  });
  assert.equal(second.status, 201, second.text);
  assert.equal(second.body.data.threadId, undefined);
  assert.equal((await openThreads(projectId, "SRC/Hot.ts")).length, 1);
  assert.equal((await openThreads(projectId, "src/hot.ts")).length, 0);
});

test("LEDGER-035 LEDGER-036 LEDGER-037 a critical ALERT takes the agent offline and revokes keys and sessions", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const key = await admin("POST", `/projects/${projectId}/api-keys`, { agentName: a.name });
  assert.equal(key.agentId, a.agentId);
  assert.equal((await call("GET", "/me", { token: key.key })).status, 200);
  const res = await log(a.token, { type: "ALERT", content: "Leaked a secret", severity: "critical" });
  assert.equal(res.status, 201, res.text);
  assert.equal(res.body.data.agentOffline, true);
  const { db } = await env();
  const agent = await db.selectFrom("agents").select("status").where("id", "=", a.agentId)
    .executeTakeFirstOrThrow();
  assert.equal(agent.status, "offline");
  const live = await db.selectFrom("tokens").select("kind").where("agent_id", "=", a.agentId)
    .where("revoked_at", "is", null).execute();
  assert.deepEqual(live, []);
  assert.equal((await call("GET", "/me", { token: a.token })).status, 401);
  assert.equal((await call("GET", "/me", { token: key.key })).status, 401);
});

test("LEDGER-035 a non-critical ALERT leaves the agent online", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  await log(a.token, { type: "ALERT", content: "Flaky test", severity: "warning" });
  assert.equal((await call("GET", "/me", { token: a.token })).status, 200);
});

test("RATE-030 more than 3 critical alerts in a minute answer 429 BACKPRESSURE", async () => {
  const { projectId } = await newProject();
  const e = await env();
  await advanceClock(60_000 - (e.clock.now().getTime() % 60_000) + 1);
  const agentName = `alerter-${crypto.randomUUID().slice(0, 6)}`;
  // Each alert revokes the agent's keys: mint a fresh key for the same agent before each one.
  for (let i = 0; i < 3; i++) {
    const key = await admin("POST", `/projects/${projectId}/api-keys`, { agentName });
    const { db } = e;
    await db.updateTable("agents").set({ status: "active" }).where("id", "=", key.agentId).execute();
    const res = await log(key.key, { type: "ALERT", content: `alert ${i}`, severity: "critical" });
    assert.equal(res.status, 201, res.text);
  }
  const key = await admin("POST", `/projects/${projectId}/api-keys`, { agentName });
  await e.db.updateTable("agents").set({ status: "active" }).where("id", "=", key.agentId).execute();
  const over = await log(key.key, { type: "ALERT", content: "alert 4", severity: "critical" });
  assert.equal(over.status, 429);
  assert.equal(over.body.error.code, "BACKPRESSURE");
  assert.ok(Number(over.headers.get("Retry-After")) >= 1);
});

test("LEDGER-033 a DONE entry without test evidence is written with warnings; with evidence, none", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const ticket = await insertTicket(projectId, { status: "in_progress", assignee: a.agentId });
  const bare = await log(a.token, { type: "DONE", content: "Finished", ticketId: ticket.key });
  assert.equal(bare.status, 201);
  assert.ok(Array.isArray(bare.body.data.warnings) && bare.body.data.warnings.length === 1);
  const { db } = await env();
  assert.ok(
    await db.selectFrom("ledger_entries").select("id").where("id", "=", bare.body.data.id).executeTakeFirst(),
  );
  await log(a.token, { type: "TESTED", content: "deno test: 40 passed", ticketId: ticket.key });
  const tested = await log(a.token, { type: "DONE", content: "Finished", ticketId: ticket.key });
  assert.equal(tested.status, 201);
  assert.equal(tested.body.data.warnings, undefined);
});

test("LEDGER-008 opening a blocker thread writes a system CONTEXT entry for the thread", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const res = await log(a.token, { type: "BLOCKED", content: "Needs the API", blockedByFile: "src/api.ts" });
  const { db } = await env();
  const entry = await db.selectFrom("ledger_entries").select(["source", "thread_id", "file_ref"])
    .where("project_id", "=", projectId).where("type", "=", "CONTEXT")
    .where("thread_id", "=", res.body.data.threadId).executeTakeFirst();
  assert.equal(entry?.source, "system");
  assert.equal(entry?.file_ref, "src/api.ts");
});
