import assert from "node:assert/strict";
import { admin, call, env, newProject, pairAgent, test } from "../helpers/mod.ts";
import { apiKey } from "../brief/helpers.ts";
import { insertTicket } from "../helpers/fixtures.ts";

async function setup(settings?: Record<string, unknown>) {
  const { projectId } = await newProject(settings ? { settings } : {});
  const agent = await pairAgent(projectId);
  return { projectId, agent };
}

async function open(token: string, body: Record<string, unknown> = { intent: "Discuss the parser" }) {
  const res = await call("POST", "/thread", { token, body });
  assert.equal(res.status, 201, res.text);
  return res.body.data.id as string;
}

async function read(token: string, id: string) {
  const res = await call("GET", `/thread/${id}`, { token });
  assert.equal(res.status, 200, res.text);
  return res.body.data;
}

test("THREAD-019 POST /thread answers 201 { id, createdAt } and the thread is open", async () => {
  const { agent } = await setup();
  const res = await call("POST", "/thread", { token: agent.token, body: { intent: "Plan the API" } });
  assert.equal(res.status, 201);
  assert.deepEqual(Object.keys(res.body.data).sort(), ["createdAt", "id"]);
  assert.ok(!Number.isNaN(Date.parse(res.body.data.createdAt)));
  assert.equal((await read(agent.token, res.body.data.id)).status, "open");
});

test("THREAD-001 THREAD-002 a thread carries every field of the resource", async () => {
  const { agent, projectId } = await setup();
  const ticket = await insertTicket(projectId);
  const id = await open(agent.token, { intent: "Files", expectedFiles: ["src/a.ts"], ticketId: ticket.id });
  const thread = await read(agent.token, id);
  assert.deepEqual(Object.keys(thread).sort(), [
    "agentId",
    "agentName",
    "closedAt",
    "createdAt",
    "expectedFiles",
    "id",
    "intent",
    "lastMessageAt",
    "messages",
    "outcome",
    "status",
    "subAgentName",
    "ticketId",
  ]);
  assert.equal(thread.agentId, agent.agentId);
  assert.equal(thread.agentName, agent.name);
  assert.equal(thread.subAgentName, null);
  assert.deepEqual(thread.expectedFiles, ["src/a.ts"]);
  assert.equal(thread.ticketId, ticket.id);
  assert.ok(["open", "closed"].includes(thread.status));
  assert.equal(thread.outcome, null);
  assert.equal(thread.closedAt, null);
  assert.equal(thread.lastMessageAt, null);
  assert.deepEqual(thread.messages, []);
});

test("THREAD-016 intent is required, 1 to 1000 characters", async () => {
  const { agent } = await setup();
  for (const intent of ["x", "y".repeat(1000)]) {
    assert.equal((await call("POST", "/thread", { token: agent.token, body: { intent } })).status, 201);
  }
  for (const body of [{}, { intent: "" }, { intent: "z".repeat(1001) }, { intent: 5 }]) {
    const res = await call("POST", "/thread", { token: agent.token, body });
    assert.equal(res.status, 400, JSON.stringify(body));
    assert.equal(res.body.error.code, "VALIDATION_ERROR");
    assert.ok(res.body.error.details.fields.some((f: { path: string }) => f.path === "intent"));
  }
});

test("THREAD-017 expectedFiles: at most 50 paths of at most 500 characters", async () => {
  const { agent } = await setup();
  const fifty = Array.from({ length: 50 }, (_, i) => `src/f${i}.ts`);
  assert.equal(
    (await call("POST", "/thread", { token: agent.token, body: { intent: "i", expectedFiles: fifty } }))
      .status,
    201,
  );
  assert.equal(
    (await call("POST", "/thread", {
      token: agent.token,
      body: { intent: "i", expectedFiles: ["a".repeat(500)] },
    }))
      .status,
    201,
  );
  for (const expectedFiles of [[...fifty, "one-more.ts"], ["a".repeat(501)], [""]]) {
    const res = await call("POST", "/thread", { token: agent.token, body: { intent: "i", expectedFiles } });
    assert.equal(res.status, 400);
    assert.equal(res.body.error.code, "VALIDATION_ERROR");
  }
});

test("THREAD-018 ticketId is optional and links the thread (UUID or key); unknown answers 404", async () => {
  const { agent, projectId } = await setup();
  const ticket = await insertTicket(projectId);
  const none = await open(agent.token, { intent: "no ticket" });
  assert.equal((await read(agent.token, none)).ticketId, null);
  const byKey = await open(agent.token, { intent: "by key", ticketId: ticket.ref });
  assert.equal((await read(agent.token, byKey)).ticketId, ticket.id);
  const unknown = await call("POST", "/thread", {
    token: agent.token,
    body: { intent: "x", ticketId: crypto.randomUUID() },
  });
  assert.equal(unknown.status, 404);
  assert.equal(unknown.body.error.code, "TICKET_NOT_FOUND");
  assert.equal(unknown.body.error.details.recovery.action, "RESOLVE_TICKET_REF");
});

test("THREAD-020 THREAD-003 THREAD-004 messages come oldest first with every message field", async () => {
  const { agent, projectId } = await setup();
  const other = await pairAgent(projectId);
  const id = await open(agent.token);
  for (const [token, content] of [[agent.token, "first"], [other.token, "second"], [agent.token, "third"]]) {
    const res = await call("POST", `/thread/${id}/reply`, { token, body: { content } });
    assert.equal(res.status, 201);
  }
  const thread = await read(agent.token, id);
  assert.deepEqual(thread.messages.map((m: { content: string }) => m.content), ["first", "second", "third"]);
  const second = thread.messages[1];
  assert.deepEqual(Object.keys(second).sort(), [
    "authorId",
    "authorName",
    "authorType",
    "content",
    "createdAt",
    "id",
    "subAgentName",
  ]);
  assert.equal(second.authorType, "agent");
  assert.equal(second.authorId, other.agentId);
  assert.equal(second.authorName, other.name);
  assert.equal(second.subAgentName, null);
  assert.ok(thread.lastMessageAt);
});

test("THREAD-005 authorName falls back to the author id for non-agent authors", async () => {
  const { agent } = await setup();
  const id = await open(agent.token);
  const { db, clock } = await env();
  await db.insertInto("thread_messages").values({
    id: crypto.randomUUID(),
    thread_id: id,
    author_type: "user",
    author_id: "user-42",
    author_name: null,
    sub_agent_name: null,
    content: "from a person",
    created_at: clock.now(),
  }).execute();
  const thread = await read(agent.token, id);
  assert.equal(thread.messages[0].authorType, "user");
  assert.equal(thread.messages[0].authorName, "user-42");
});

test("THREAD-021 GET of an unknown thread answers 404 THREAD_NOT_FOUND, also for another project's", async () => {
  const { agent } = await setup();
  const res = await call("GET", `/thread/${crypto.randomUUID()}`, { token: agent.token });
  assert.equal(res.status, 404);
  assert.equal(res.body.error.code, "THREAD_NOT_FOUND");
  const elsewhere = await setup();
  const foreign = await open(elsewhere.agent.token);
  const cross = await call("GET", `/thread/${foreign}`, { token: agent.token });
  assert.equal(cross.status, 404);
  assert.equal(cross.body.error.code, "THREAD_NOT_FOUND");
});

test("THREAD-014 a malformed threadId answers 400 VALIDATION_ERROR on every thread endpoint", async () => {
  const { agent } = await setup();
  const cases: [string, string, unknown][] = [
    ["GET", "/thread/not-a-uuid", undefined],
    ["POST", "/thread/not-a-uuid/reply", { content: "x" }],
    ["PATCH", "/thread/not-a-uuid", { status: "closed" }],
    ["POST", "/thread/123/close", { outcome: "x" }],
  ];
  for (const [method, path, body] of cases) {
    const res = await call(method, path, { token: agent.token, body });
    assert.equal(res.status, 400, `${method} ${path}`);
    assert.equal(res.body.error.code, "VALIDATION_ERROR");
  }
});

test("THREAD-022 reply content is required, 1 to 4000 characters", async () => {
  const { agent } = await setup();
  const id = await open(agent.token);
  for (const content of ["a", "b".repeat(4000)]) {
    assert.equal(
      (await call("POST", `/thread/${id}/reply`, { token: agent.token, body: { content } })).status,
      201,
    );
  }
  for (const body of [{}, { content: "" }, { content: "c".repeat(4001) }]) {
    const res = await call("POST", `/thread/${id}/reply`, { token: agent.token, body });
    assert.equal(res.status, 400);
    assert.equal(res.body.error.code, "VALIDATION_ERROR");
  }
});

test("THREAD-023 a reply answers 201 { id, createdAt }", async () => {
  const { agent } = await setup();
  const id = await open(agent.token);
  const res = await call("POST", `/thread/${id}/reply`, { token: agent.token, body: { content: "hi" } });
  assert.equal(res.status, 201);
  assert.deepEqual(Object.keys(res.body.data).sort(), ["createdAt", "id"]);
  assert.equal((await read(agent.token, id)).messages[0].id, res.body.data.id);
});

test("THREAD-026 a reply to an unknown thread answers 404 INVALID", async () => {
  const { agent } = await setup();
  const res = await call("POST", `/thread/${crypto.randomUUID()}/reply`, {
    token: agent.token,
    body: { content: "anyone?" },
  });
  assert.equal(res.status, 404);
  assert.equal(res.body.error.code, "INVALID");
});

test("THREAD-010 CONV-034 a reply to a closed thread answers 422 INVALID, recovery USE_VALID_TRANSITION (reopen), no message", async () => {
  const { agent } = await setup();
  const id = await open(agent.token);
  await call("POST", `/thread/${id}/close`, { token: agent.token, body: { outcome: "done" } });
  const res = await call("POST", `/thread/${id}/reply`, { token: agent.token, body: { content: "late" } });
  assert.equal(res.status, 422);
  assert.equal(res.body.error.code, "INVALID");
  const recovery = res.body.error.details.recovery;
  assert.equal(recovery.action, "USE_VALID_TRANSITION");
  assert.equal(recovery.endpoint, `PATCH /thread/${id}`);
  assert.deepEqual(recovery.payloadHint, { status: "open" });
  assert.match(recovery.hint, /closed.*reopen/);
  assert.equal((await read(agent.token, id)).messages.length, 0);
  // Following the recovery lets the reply through.
  const reopened = await call("PATCH", `/thread/${id}`, { token: agent.token, body: recovery.payloadHint });
  assert.equal(reopened.status, 200, reopened.text);
  const again = await call("POST", `/thread/${id}/reply`, { token: agent.token, body: { content: "late" } });
  assert.equal(again.status, 201, again.text);
});

test("THREAD-006 THREAD-032 close records the outcome and answers { ok: true }", async () => {
  const { agent } = await setup();
  const id = await open(agent.token);
  const res = await call("POST", `/thread/${id}/close`, {
    token: agent.token,
    body: { outcome: "Use plan B" },
  });
  assert.equal(res.status, 200);
  assert.deepEqual(res.body.data, { ok: true });
  const thread = await read(agent.token, id);
  assert.equal(thread.status, "closed");
  assert.equal(thread.outcome, "Use plan B");
  assert.ok(thread.closedAt);
});

test("THREAD-009 closing an already closed thread answers the same success and keeps the outcome", async () => {
  const { agent } = await setup();
  const id = await open(agent.token);
  const first = await call("POST", `/thread/${id}/close`, { token: agent.token, body: { outcome: "one" } });
  const second = await call("POST", `/thread/${id}/close`, { token: agent.token, body: { outcome: "two" } });
  assert.equal(second.status, first.status);
  assert.deepEqual(second.body.data, first.body.data);
  assert.equal((await read(agent.token, id)).outcome, "one");
});

test("THREAD-031 close outcome is required, 1 to 2000 characters", async () => {
  const { agent } = await setup();
  for (const outcome of ["a", "b".repeat(2000)]) {
    const id = await open(agent.token);
    assert.equal(
      (await call("POST", `/thread/${id}/close`, { token: agent.token, body: { outcome } })).status,
      200,
    );
  }
  const id = await open(agent.token);
  for (const body of [{}, { outcome: "" }, { outcome: "c".repeat(2001) }]) {
    const res = await call("POST", `/thread/${id}/close`, { token: agent.token, body });
    assert.equal(res.status, 400);
    assert.equal(res.body.error.code, "VALIDATION_ERROR");
  }
  assert.equal((await read(agent.token, id)).status, "open");
});

test("THREAD-033 closing an unknown thread answers 404 INVALID", async () => {
  const { agent } = await setup();
  const res = await call("POST", `/thread/${crypto.randomUUID()}/close`, {
    token: agent.token,
    body: { outcome: "x" },
  });
  assert.equal(res.status, 404);
  assert.equal(res.body.error.code, "INVALID");
});

test("THREAD-007 PATCH status closed closes without recording an outcome", async () => {
  const { agent } = await setup();
  const id = await open(agent.token);
  const res = await call("PATCH", `/thread/${id}`, { token: agent.token, body: { status: "closed" } });
  assert.equal(res.status, 200);
  const thread = await read(agent.token, id);
  assert.equal(thread.status, "closed");
  assert.equal(thread.outcome, null);
  assert.ok(thread.closedAt);
});

test("THREAD-008 PATCH status open reopens a closed thread, which accepts replies again", async () => {
  const { agent } = await setup();
  const id = await open(agent.token);
  await call("POST", `/thread/${id}/close`, { token: agent.token, body: { outcome: "premature" } });
  const res = await call("PATCH", `/thread/${id}`, { token: agent.token, body: { status: "open" } });
  assert.equal(res.status, 200);
  assert.equal(res.body.data.status, "open");
  const thread = await read(agent.token, id);
  assert.equal(thread.status, "open");
  assert.equal(thread.closedAt, null);
  assert.equal(
    (await call("POST", `/thread/${id}/reply`, { token: agent.token, body: { content: "again" } })).status,
    201,
  );
});

test("THREAD-027 THREAD-029 PATCH intent (1 to 500) answers { ok, intent, status }", async () => {
  const { agent } = await setup();
  const id = await open(agent.token);
  const renamed = await call("PATCH", `/thread/${id}`, {
    token: agent.token,
    body: { intent: "n".repeat(500) },
  });
  assert.equal(renamed.status, 200);
  assert.deepEqual(renamed.body.data, { ok: true, intent: "n".repeat(500), status: "open" });
  const both = await call("PATCH", `/thread/${id}`, {
    token: agent.token,
    body: { intent: "x", status: "closed" },
  });
  assert.deepEqual(both.body.data, { ok: true, intent: "x", status: "closed" });
  for (const body of [{ intent: "" }, { intent: "m".repeat(501) }, { status: "archived" }]) {
    const res = await call("PATCH", `/thread/${id}`, { token: agent.token, body });
    assert.equal(res.status, 400, JSON.stringify(body));
    assert.equal(res.body.error.code, "VALIDATION_ERROR");
  }
});

test("THREAD-028 PATCH with neither intent nor status answers 400", async () => {
  const { agent } = await setup();
  const id = await open(agent.token);
  const res = await call("PATCH", `/thread/${id}`, { token: agent.token, body: {} });
  assert.equal(res.status, 400);
  assert.equal(res.body.error.code, "VALIDATION_ERROR");
});

test("THREAD-030 PATCH of an unknown thread answers 404 THREAD_NOT_FOUND", async () => {
  const { agent } = await setup();
  const res = await call("PATCH", `/thread/${crypto.randomUUID()}`, {
    token: agent.token,
    body: { intent: "x" },
  });
  assert.equal(res.status, 404);
  assert.equal(res.body.error.code, "THREAD_NOT_FOUND");
});

test("THREAD-011 every thread write needs write:threads (403 FORBIDDEN without it)", async () => {
  const { agent, projectId } = await setup();
  const id = await open(agent.token);
  const reader = await apiKey(projectId, ["read:board"]);
  const cases: [string, string, unknown][] = [
    ["POST", "/thread", { intent: "x" }],
    ["POST", `/thread/${id}/reply`, { content: "x" }],
    ["PATCH", `/thread/${id}`, { intent: "y" }],
    ["POST", `/thread/${id}/close`, { outcome: "x" }],
    ["POST", "/thread/close-bulk", { outcome: "x", mine: true }],
  ];
  for (const [method, path, body] of cases) {
    const res = await call(method, path, { token: reader.token, body });
    assert.equal(res.status, 403, `${method} ${path}`);
    assert.equal(res.body.error.code, "FORBIDDEN");
  }
  assert.equal((await read(agent.token, id)).status, "open");
});

test("THREAD-012 reading a thread needs no scope", async () => {
  const { agent, projectId } = await setup();
  const id = await open(agent.token);
  const bare = await apiKey(projectId, ["read:board"]);
  const res = await call("GET", `/thread/${id}`, { token: bare.token });
  assert.equal(res.status, 200);
});

test("THREAD-013 every thread endpoint answers 404 FEATURE_DISABLED when threadsEnabled is false", async () => {
  const { agent, projectId } = await setup();
  const id = await open(agent.token);
  await admin("PATCH", `/projects/${projectId}`, { settings: { threadsEnabled: false } });
  const cases: [string, string, unknown][] = [
    ["POST", "/thread", { intent: "x" }],
    ["GET", `/thread/${id}`, undefined],
    ["POST", `/thread/${id}/reply`, { content: "x" }],
    ["PATCH", `/thread/${id}`, { intent: "y" }],
    ["POST", `/thread/${id}/close`, { outcome: "x" }],
    ["POST", "/thread/close-bulk", { outcome: "x", mine: true }],
  ];
  for (const [method, path, body] of cases) {
    const res = await call(method, path, { token: agent.token, body });
    assert.equal(res.status, 404, `${method} ${path}`);
    assert.equal(res.body.error.code, "FEATURE_DISABLED");
  }
  await admin("PATCH", `/projects/${projectId}`, { settings: { threadsEnabled: true } });
  assert.equal((await call("GET", `/thread/${id}`, { token: agent.token })).status, 200);
});

test("THREAD-015 there is no thread list endpoint", async () => {
  const { agent } = await setup();
  await open(agent.token);
  const res = await call("GET", "/thread", { token: agent.token });
  assert.equal(res.status, 404);
  assert.equal(res.body.error.code, "NOT_FOUND");
  assert.equal((await call("GET", "/threads", { token: agent.token })).status, 404);
});

test("LEDGER-008 thread activity writes system CONTEXT ledger entries linked to the thread", async () => {
  const { agent, projectId } = await setup();
  const ticket = await insertTicket(projectId);
  const id = await open(agent.token, { intent: "Ledger trail", ticketId: ticket.id });
  await call("POST", `/thread/${id}/reply`, { token: agent.token, body: { content: "a reply" } });
  await call("POST", `/thread/${id}/close`, { token: agent.token, body: { outcome: "settled" } });
  await call("PATCH", `/thread/${id}`, { token: agent.token, body: { status: "open" } });
  const { db } = await env();
  const entries = await db.selectFrom("ledger_entries").select([
    "type",
    "source",
    "content",
    "ticket_id",
    "payload",
  ])
    .where("thread_id", "=", id).orderBy("seq").execute();
  assert.equal(entries.length, 4);
  assert.ok(entries.every((e) => e.type === "CONTEXT" && e.source === "system" && e.ticket_id === ticket.id));
  assert.deepEqual(entries.map((e) => e.payload?.event), [
    "thread.opened",
    "thread.replied",
    "thread.closed",
    "thread.reopened",
  ]);
  const events = await db.selectFrom("events").select("kind").where("entity_id", "=", id).orderBy("seq")
    .execute();
  assert.deepEqual(events.map((e) => e.kind), [
    "thread.opened",
    "thread.replied",
    "thread.closed",
    "thread.reopened",
  ]);
});
