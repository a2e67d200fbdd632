import assert from "node:assert/strict";
import { DomainError } from "@/domain/core/errors.ts";
import { statusOf } from "@/http/errors.ts";
import { admin, advanceClock, call, env, newProject, pairAgent, test } from "../helpers/mod.ts";
import { insertTicket } from "../helpers/fixtures.ts";
import { appendEntry } from "@/domain/ledger/append.ts";
import type { Actor } from "@/domain/core/actor.ts";

async function log(token: string, body: unknown, headers: Record<string, string> = {}) {
  return await call("POST", "/ledger", { token, body, headers });
}

async function stored(id: string) {
  const { db } = await env();
  return await db.selectFrom("ledger_entries").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
}

test("LEDGER-032 LEDGER-002 POST /ledger answers 201 { id, createdAt, nextAction }", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const res = await log(a.token, { type: "FOUND", content: "The cache key ignores the locale" });
  assert.equal(res.status, 201, res.text);
  assert.deepEqual(Object.keys(res.body.data).sort(), ["createdAt", "id", "nextAction"]);
  assert.match(res.body.data.id, /^[0-9a-f-]{36}$/);
  assert.ok(!Number.isNaN(Date.parse(res.body.data.createdAt)));
  assert.equal(typeof res.body.data.nextAction.action, "string");
  const row = await stored(res.body.data.id);
  assert.equal(row.type, "FOUND");
  assert.equal(row.content, "The cache key ignores the locale");
  assert.equal(row.source, "agent");
});

test("LEDGER-009 POST /ledger needs scope write:ledger", async () => {
  const { projectId } = await newProject();
  const key = await admin("POST", `/projects/${projectId}/api-keys`, {
    agentName: "ro",
    scopes: ["read:ledger"],
  });
  const res = await log(key.key, { type: "FOUND", content: "x" });
  assert.equal(res.status, 403);
  assert.equal(res.body.error.code, "FORBIDDEN");
  const rw = await admin("POST", `/projects/${projectId}/api-keys`, {
    agentName: "rw",
    scopes: ["write:ledger"],
  });
  assert.equal((await log(rw.key, { type: "FOUND", content: "x" })).status, 201);
});

test("LEDGER-004 LEDGER-010 type is required and exact (case-sensitive); unknown answers 400", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  for (const type of [undefined, "progress", "NOPE", "Found"]) {
    const res = await log(a.token, { type, content: "x" });
    assert.equal(res.status, 400, String(type));
    assert.equal(res.body.error.code, "VALIDATION_ERROR");
  }
  for (const type of ["PROGRESS", "TESTED", "BLOCKED", "ALERT", "FOUND", "CONTEXT", "STATUS", "CHANGED"]) {
    assert.equal((await log(a.token, { type, content: `a ${type} entry` })).status, 201, type);
  }
  for (const type of ["ISSUE", "SKIPPED", "DONE", "VERIFIED"]) {
    assert.equal((await log(a.token, { type, content: `a ${type} entry` })).status, 201, type);
  }
});

test("LEDGER-006 lifecycle types: AGENT_JOINED is service-only; orchestrators may post the others", async () => {
  const { projectId } = await newProject();
  const gen = await pairAgent(projectId);
  const orch = await pairAgent(projectId, { role: "orchestrator" });
  for (const type of ["AGENT_JOINED", "AGENT_SPAWNED", "AGENT_ASSIGNED", "AGENT_COMPLETED"]) {
    const res = await log(gen.token, { type, content: "lifecycle" });
    assert.equal(res.status, 422, type);
    assert.equal(res.body.error.code, "INVALID");
  }
  assert.equal((await log(orch.token, { type: "AGENT_JOINED", content: "x" })).status, 422);
  for (const type of ["AGENT_SPAWNED", "AGENT_ASSIGNED", "AGENT_COMPLETED"]) {
    assert.equal((await log(orch.token, { type, content: "worker-1 assigned" })).status, 201, type);
  }
});

test("LEDGER-005 the service writes AGENT_JOINED itself when an agent pairs", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const { db } = await env();
  const joined = await db.selectFrom("ledger_entries").select(["source"]).where("agent_id", "=", a.agentId)
    .where("type", "=", "AGENT_JOINED").executeTakeFirst();
  assert.equal(joined?.source, "system");
});

test("LEDGER-011 content is 1 to 2000 characters and required", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  for (const content of [undefined, "", "x".repeat(2001)]) {
    const res = await log(a.token, { type: "FOUND", content });
    assert.equal(res.status, 400, String(content?.length));
    assert.equal(res.body.error.code, "VALIDATION_ERROR");
  }
  assert.equal((await log(a.token, { type: "FOUND", content: "x" })).status, 201);
  assert.equal((await log(a.token, { type: "FOUND", content: "y".repeat(2000) })).status, 201);
});

test("LEDGER-012 LEDGER-013 LEDGER-014 a PROGRESS payload { did, next, blockers? } replaces content", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const res = await log(a.token, { type: "PROGRESS", payload: { did: "wrote parser", next: "add tests" } });
  assert.equal(res.status, 201, res.text);
  const row = await stored(res.body.data.id);
  assert.deepEqual(row.payload, { did: "wrote parser", next: "add tests", blockers: [] });
  assert.match(row.content, /wrote parser/);
  assert.match(row.content, /add tests/);
  const replaced = await log(a.token, {
    type: "PROGRESS",
    content: "ignored text",
    payload: { did: "d", next: "n", blockers: ["CI is red"] },
  });
  const row2 = await stored(replaced.body.data.id);
  assert.doesNotMatch(row2.content, /ignored text/);
  assert.match(row2.content, /CI is red/);
  for (const payload of [{ did: "d" }, { did: 1, next: "n" }, { did: "d", next: "n", blockers: "x" }]) {
    const bad = await log(a.token, { type: "PROGRESS", payload });
    assert.equal(bad.status, 400, JSON.stringify(payload));
    assert.equal(bad.body.error.code, "VALIDATION_ERROR");
  }
  // Without a payload PROGRESS needs content like any other type.
  assert.equal((await log(a.token, { type: "PROGRESS" })).status, 400);
});

test("LEDGER-015 LEDGER-016 a DECISION needs payload.rationale, else 422 VALIDATION_ERROR", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  for (const payload of [undefined, {}, { alternatives: ["x"] }, { rationale: "" }]) {
    const res = await log(a.token, { type: "DECISION", content: "Use SQLite", payload });
    assert.equal(res.status, 422, JSON.stringify(payload));
    assert.equal(res.body.error.code, "VALIDATION_ERROR");
  }
  const ok = await log(a.token, {
    type: "DECISION",
    content: "Use PostgreSQL",
    payload: { rationale: "needs row locks", alternatives: ["SQLite"] },
  });
  assert.equal(ok.status, 201);
  assert.deepEqual((await stored(ok.body.data.id)).payload, {
    rationale: "needs row locks",
    alternatives: ["SQLite"],
  });
});

test("LEDGER-017 sessionId defaults to the token's session (svc_sess_ and svc_sub_)", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const res = await log(a.token, { type: "FOUND", content: "x" });
  assert.equal((await stored(res.body.data.id)).session_id, a.sessionId);
  const explicit = await log(a.token, { type: "FOUND", content: "x", sessionId: a.sessionId });
  assert.equal(explicit.status, 201);

  const orch = await pairAgent(projectId, { role: "orchestrator" });
  const minted = await call("POST", "/subagent/session", {
    token: orch.token,
    body: { name: "writer", role: "generator" },
  });
  assert.equal(minted.status, 201, minted.text);
  const sub = await log(minted.body.data.subAgentToken, { type: "FOUND", content: "from sub" });
  assert.equal(sub.status, 201, sub.text);
  const row = await stored(sub.body.data.id);
  assert.equal(row.session_id, minted.body.data.sessionId);
  assert.equal(row.sub_agent_name, "writer");
});

test("LEDGER-018 with an OAuth token sessionId is required: 400 PROVIDE_SESSION_ID", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const e = await env();
  const actor: Actor = {
    kind: "oauth",
    tokenKind: "oauth_access",
    tokenId: crypto.randomUUID(),
    agentId: a.agentId,
    agentName: a.name,
    platform: "oauth",
    role: "generator",
    projectId,
    orgId: crypto.randomUUID(),
    plan: "team",
    scopes: [],
    sessionId: null,
    subAgentName: null,
    tokenCreatedAt: e.clock.now(),
    tokenExpiresAt: null,
  };
  const ctx = { db: e.db, clock: e.clock, publicUrl: "http://localhost", actor };
  await assert.rejects(
    () => appendEntry(ctx, { type: "FOUND", content: "x" }, "single"),
    (err) =>
      err instanceof DomainError && statusOf(err) === 400 && err.code === "VALIDATION_ERROR" &&
      err.recovery?.action === "PROVIDE_SESSION_ID",
  );
  const written = await appendEntry(ctx, { type: "FOUND", content: "x", sessionId: a.sessionId }, "single");
  assert.equal((await stored(written.id)).session_id, a.sessionId);
});

test("LEDGER-019 a sessionId that is not the caller's own answers 403 FORBIDDEN", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const b = await pairAgent(projectId);
  const other = await log(a.token, { type: "FOUND", content: "x", sessionId: b.sessionId });
  assert.equal(other.status, 403);
  assert.equal(other.body.error.code, "FORBIDDEN");
  assert.equal(other.body.error.details.recovery.action, "PROVIDE_SESSION_ID");
  const unknown = await log(a.token, { type: "FOUND", content: "x", sessionId: crypto.randomUUID() });
  assert.equal(unknown.status, 403);
  assert.equal((await log(a.token, { type: "FOUND", content: "x", sessionId: "nope" })).status, 400);
});

test("LEDGER-020 ticketId resolves by UUID or key; unresolvable answers 422 RESOLVE_TICKET_REF", async () => {
  const { projectId, prefix } = await newProject();
  const a = await pairAgent(projectId);
  const ticket = await insertTicket(projectId);
  const byKey = await log(a.token, { type: "FOUND", content: "x", ticketId: ticket.key });
  assert.equal((await stored(byKey.body.data.id)).ticket_id, ticket.id);
  const byId = await log(a.token, { type: "FOUND", content: "x", ticketId: ticket.id });
  assert.equal((await stored(byId.body.data.id)).ticket_id, ticket.id);
  for (const ref of [`${prefix}-999`, crypto.randomUUID(), "garbage"]) {
    const res = await log(a.token, { type: "FOUND", content: "x", ticketId: ref });
    assert.equal(res.status, 422, ref);
    assert.equal(res.body.error.code, "VALIDATION_ERROR");
    assert.equal(res.body.error.details.recovery.action, "RESOLVE_TICKET_REF");
  }
});

test("LEDGER-003 LEDGER-021 fileRef and lineRef are stored; lineRef is an integer that requires fileRef", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const res = await log(a.token, { type: "FOUND", content: "x", fileRef: "src/a.ts", lineRef: 42 });
  assert.equal(res.status, 201);
  const row = await stored(res.body.data.id);
  assert.equal(row.file_ref, "src/a.ts");
  assert.equal(row.line_ref, 42);
  assert.equal(row.agent_id, a.agentId);
  const noFile = await log(a.token, { type: "FOUND", content: "x", lineRef: 3 });
  assert.equal(noFile.status, 400);
  assert.equal(noFile.body.error.code, "VALIDATION_ERROR");
  assert.equal((await log(a.token, { type: "FOUND", content: "x", fileRef: "a", lineRef: 1.5 })).status, 400);
});

test("LEDGER-022 LEDGER-023 known labels are accepted; an unknown label answers 422 INVALID", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const ok = await log(a.token, { type: "ISSUE", content: "x", labels: ["bug", "security"] });
  assert.equal(ok.status, 201);
  assert.deepEqual((await stored(ok.body.data.id)).labels, ["bug", "security"]);
  const bad = await log(a.token, { type: "ISSUE", content: "x", labels: ["bug", "shiny"] });
  assert.equal(bad.status, 422);
  assert.equal(bad.body.error.code, "INVALID");
  assert.deepEqual(bad.body.error.details.unknownLabels, ["shiny"]);
  assert.ok(bad.body.error.details.validLabels.includes("bug"));
  assert.equal((await log(a.token, { type: "ISSUE", content: "x", labels: ["Bug"] })).status, 422);
});

test("LEDGER-024 threadId links the entry to a thread of the project", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const e = await env();
  const threadId = crypto.randomUUID();
  await e.db.insertInto("threads").values({
    id: threadId,
    project_id: projectId,
    agent_id: a.agentId,
    sub_agent_name: null,
    intent: "Discuss the cache",
    ticket_id: null,
    outcome: null,
    blocked_by_file: null,
    created_at: e.clock.now(),
    closed_at: null,
    last_message_at: null,
  }).execute();
  const res = await log(a.token, { type: "CONTEXT", content: "see thread", threadId });
  assert.equal(res.status, 201);
  assert.equal((await stored(res.body.data.id)).thread_id, threadId);
  const unknown = await log(a.token, { type: "CONTEXT", content: "x", threadId: crypto.randomUUID() });
  assert.equal(unknown.status, 422);
});

test("LEDGER-025 severity is info, warning or critical", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  for (const severity of ["info", "warning"]) {
    const res = await log(a.token, { type: "ALERT", content: "x", severity });
    assert.equal(res.status, 201);
    assert.equal((await stored(res.body.data.id)).severity, severity);
  }
  assert.equal((await log(a.token, { type: "ALERT", content: "x", severity: "fatal" })).status, 400);
});

test("LEDGER-028 LEDGER-029 LEDGER-030 tokensUsed, activity (200) and envHealth are recorded and bounded", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const res = await log(a.token, {
    type: "STATUS",
    content: "x",
    tokensUsed: 1234,
    activity: "a".repeat(200),
    envHealth: { status: "degraded", notes: Array.from({ length: 10 }, () => "n".repeat(200)) },
  });
  assert.equal(res.status, 201, res.text);
  const row = await stored(res.body.data.id);
  assert.equal(row.tokens_used, 1234);
  assert.equal(row.activity?.length, 200);
  assert.equal((row.env_health as { status: string }).status, "degraded");
  const bad = [
    { activity: "a".repeat(201) },
    { envHealth: { status: "fine" } },
    { envHealth: { status: "ok", notes: Array.from({ length: 11 }, () => "n") } },
    { envHealth: { status: "ok", notes: ["n".repeat(201)] } },
    { tokensUsed: -1 },
    { tokensUsed: 1.5 },
  ];
  for (const extra of bad) {
    const r = await log(a.token, { type: "STATUS", content: "x", ...extra });
    assert.equal(r.status, 400, JSON.stringify(extra).slice(0, 80));
    assert.equal(r.body.error.code, "VALIDATION_ERROR");
  }
  for (const status of ["ok", "broken"]) {
    assert.equal((await log(a.token, { type: "STATUS", content: "x", envHealth: { status } })).status, 201);
  }
});

test("LEDGER-038 RATE-029 more than 90 ledger writes in 5 minutes answer 429 BACKPRESSURE", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const e = await env();
  await advanceClock(300_000 - (e.clock.now().getTime() % 300_000) + 1);
  for (let i = 0; i < 90; i++) {
    const res = await log(a.token, { type: "FOUND", content: `finding ${i}` });
    assert.equal(res.status, 201, `write ${i + 1}: ${res.text}`);
  }
  const over = await log(a.token, { type: "FOUND", content: "one too many" });
  assert.equal(over.status, 429);
  assert.equal(over.body.error.code, "BACKPRESSURE");
  assert.ok(Number(over.headers.get("Retry-After")) >= 1);
});

// The budget's hit and the entry are one statement: a refused write is counted and writes nothing.
test("RATE-029 a write over the budget is counted and writes no entry and no event", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const e = await env();
  await advanceClock(300_000 - (e.clock.now().getTime() % 300_000) + 1);
  const ticket = await insertTicket(projectId, { status: "in_progress", assignee: a.agentId });
  for (let i = 0; i < 90; i++) {
    assert.equal((await log(a.token, { type: "FOUND", content: `finding ${i}` })).status, 201);
  }
  const count = async (table: "ledger_entries" | "events") =>
    Number(
      (await e.db.selectFrom(table).select((eb) => eb.fn.countAll().as("n")).where(
        "project_id",
        "=",
        projectId,
      )
        .executeTakeFirstOrThrow()).n,
    );
  const before = [await count("ledger_entries"), await count("events")];
  for (
    const body of [{ type: "FOUND", content: "over" }, {
      type: "PROGRESS",
      content: "over",
      ticketId: ticket.id,
    }]
  ) {
    const over = await log(a.token, body);
    assert.equal(over.status, 429);
  }
  assert.deepEqual([await count("ledger_entries"), await count("events")], before);
  const counter = await e.db.selectFrom("rate_counters").select("count").where(
    "key",
    "=",
    `bp:ledger:${a.agentId}`,
  )
    .orderBy("window_start", "desc").executeTakeFirstOrThrow();
  assert.equal(Number(counter.count), 92);
});
