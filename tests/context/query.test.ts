import assert from "node:assert/strict";
import { admin, call, newProject, pairAgent, test } from "../helpers/mod.ts";
import { insertLedgerEntry } from "../helpers/fixtures.ts";
import { insertNotification, insertThread, minutesAgo, now, setSettings } from "./fixtures.ts";

async function ctxOf(token: string, query = "") {
  return await call("GET", `/context${query}`, { token });
}

test("CTX-001 GET /context accepts any valid token and checks no scope", async () => {
  const { projectId } = await newProject();
  const key = await admin("POST", `/projects/${projectId}/api-keys`, {
    agentName: "narrow",
    scopes: ["write:claim"],
  });
  const res = await ctxOf(key.key);
  assert.equal(res.status, 200, res.text);
  const more = await call("GET", "/context/more?section=ledger", { token: key.key });
  assert.equal(more.status, 200);
});

test("CTX-002 compact is a boolean, default false; true trims; other values answer 400", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  const full = await ctxOf(agent.token);
  assert.ok(Array.isArray(full.body.data.openClaims));
  const compact = await ctxOf(agent.token, "?compact=true");
  assert.deepEqual(Object.keys(compact.body.data.openClaims).sort(), ["count", "ticketIds"]);
  assert.ok(Array.isArray((await ctxOf(agent.token, "?compact=false")).body.data.openClaims));
  const bad = await ctxOf(agent.token, "?compact=maybe");
  assert.equal(bad.status, 400);
  assert.equal(bad.body.error.code, "VALIDATION_ERROR");
});

test("CTX-003 ledger_limit defaults to 10 and accepts 0 to the ceiling 100", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  for (let i = 0; i < 12; i++) {
    await insertLedgerEntry(projectId, { type: "PROGRESS", agentId: agent.agentId, content: `e${i}` });
  }
  assert.equal((await ctxOf(agent.token)).body.data.ledger.length, 10);
  assert.equal((await ctxOf(agent.token, "?ledger_limit=100")).body.data.ledger.length, 12);
  assert.equal((await ctxOf(agent.token, "?ledger_limit=3")).body.data.ledger.length, 3);
  for (const bad of ["101", "-1", "x"]) {
    const res = await ctxOf(agent.token, `?ledger_limit=${bad}`);
    assert.equal(res.status, 400, bad);
    assert.equal(res.body.error.code, "VALIDATION_ERROR");
  }
});

test("CTX-003 CTX-006 a lower project ceiling becomes the default and the maximum (400 above it)", async () => {
  const { projectId } = await newProject();
  await setSettings(projectId, { contextLedgerCeiling: 4, contextThreadCeiling: 2 });
  const agent = await pairAgent(projectId);
  for (let i = 0; i < 6; i++) {
    await insertLedgerEntry(projectId, { type: "PROGRESS", agentId: agent.agentId });
  }
  for (let i = 0; i < 3; i++) await insertThread(projectId);
  const res = await ctxOf(agent.token);
  assert.equal(res.body.data.ledger.length, 4, "default is the ceiling when lower than 10");
  assert.equal(res.body.data.threads.length, 2);
  assert.equal((await ctxOf(agent.token, "?ledger_limit=4")).status, 200);
  const over = await ctxOf(agent.token, "?ledger_limit=5");
  assert.equal(over.status, 400);
  assert.equal(over.body.error.details.fields[0].path, "ledger_limit");
  assert.equal(over.body.error.details.ceiling, 4);
  const threads = await ctxOf(agent.token, "?thread_limit=3");
  assert.equal(threads.status, 400);
  assert.equal(threads.body.error.details.fields[0].path, "thread_limit");
});

test("CTX-004 ledger_limit=0 suppresses the ledger", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  await insertLedgerEntry(projectId, { type: "PROGRESS", agentId: agent.agentId });
  const res = await ctxOf(agent.token, "?ledger_limit=0");
  assert.equal(res.status, 200);
  assert.deepEqual(res.body.data.ledger, []);
  assert.equal(res.body.data.ledgerCursor, null);
});

test("CTX-005 thread_limit is 1 to the ceiling (50), default the ceiling", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  const base = await now();
  for (let i = 0; i < 52; i++) await insertThread(projectId, { createdAt: minutesAgo(base, 60 - i) });
  assert.equal((await ctxOf(agent.token)).body.data.threads.length, 50);
  assert.equal((await ctxOf(agent.token, "?thread_limit=1")).body.data.threads.length, 1);
  assert.equal((await ctxOf(agent.token, "?thread_limit=50")).body.data.threads.length, 50);
  for (const bad of ["0", "51"]) {
    const res = await ctxOf(agent.token, `?thread_limit=${bad}`);
    assert.equal(res.status, 400, bad);
    assert.equal(res.body.error.code, "VALIDATION_ERROR");
  }
});

test("CTX-007 CTX-008 thread_status filters open, closed, all; default open; other values ignored", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  const open = await insertThread(projectId, { status: "open" });
  const closed = await insertThread(projectId, { status: "closed" });
  const ids = async (q: string) =>
    (await ctxOf(agent.token, q)).body.data.threads.map((t: { id: string }) => t.id).sort();
  assert.deepEqual(await ids(""), [open]);
  assert.deepEqual(await ids("?thread_status=open"), [open]);
  assert.deepEqual(await ids("?thread_status=closed"), [closed]);
  assert.deepEqual(await ids("?thread_status=all"), [open, closed].sort());
  const ignored = await ctxOf(agent.token, "?thread_status=bogus");
  assert.equal(ignored.status, 200);
  assert.deepEqual(ignored.body.data.threads.map((t: { id: string }) => t.id), [open]);
});

test("CTX-009 updates_limit is 0 to 50, default 20; delivered notifications are marked read", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  const base = await now();
  for (let i = 0; i < 23; i++) {
    await insertNotification(projectId, agent.agentId, `mention ${i}`, minutesAgo(base, 30 - i));
  }
  const none = await ctxOf(agent.token, "?updates_limit=0");
  assert.deepEqual(none.body.data.updates, []);
  assert.equal(none.body.meta.context.unreadNotifications, 23);
  const first = await ctxOf(agent.token);
  assert.equal(first.body.data.updates.length, 20);
  assert.equal(first.body.data.updates[0].content, "mention 22", "newest first");
  assert.equal(first.body.meta.context.unreadNotifications, 3);
  const second = await ctxOf(agent.token, "?updates_limit=50");
  assert.equal(second.body.data.updates.length, 3);
  assert.equal(second.body.meta.context, undefined);
  assert.equal((await ctxOf(agent.token, "?updates_limit=50")).body.data.updates.length, 0);
  for (const bad of ["51", "-1"]) {
    assert.equal((await ctxOf(agent.token, `?updates_limit=${bad}`)).status, 400, bad);
  }
});

test("CTX-010 since limits the ledger to entries after that time", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  const base = await now();
  await insertLedgerEntry(projectId, {
    type: "PROGRESS",
    agentId: agent.agentId,
    content: "old",
    createdAt: minutesAgo(base, 60),
  });
  await insertLedgerEntry(projectId, {
    type: "PROGRESS",
    agentId: agent.agentId,
    content: "new",
    createdAt: minutesAgo(base, 5),
  });
  const since = minutesAgo(base, 30).toISOString();
  const res = await ctxOf(agent.token, `?since=${encodeURIComponent(since)}`);
  assert.deepEqual(res.body.data.ledger.map((e: { content: string }) => e.content), ["new"]);
});

test("CTX-011 an unparseable since answers 400 VALIDATION_ERROR", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  for (const bad of ["yesterday", "2026-13-45", "12345"]) {
    const res = await ctxOf(agent.token, `?since=${bad}`);
    assert.equal(res.status, 400, bad);
    assert.equal(res.body.error.code, "VALIDATION_ERROR");
  }
});

test("CTX-012 include_system_ledger defaults to false", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId); // pairing writes a system AGENT_JOINED entry
  await insertLedgerEntry(projectId, { type: "PROGRESS", agentId: agent.agentId, content: "mine" });
  const plain = await ctxOf(agent.token);
  assert.ok(plain.body.data.ledger.every((e: { source: string }) => e.source === "agent"));
  const withSystem = await ctxOf(agent.token, "?include_system_ledger=true");
  assert.ok(withSystem.body.data.ledger.some((e: { type: string }) => e.type === "AGENT_JOINED"));
});

test("CTX-013 include_audit defaults to false", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  await insertLedgerEntry(projectId, {
    type: "PROGRESS",
    agentId: agent.agentId,
    content: "audit trail",
    audit: true,
  });
  await insertLedgerEntry(projectId, { type: "PROGRESS", agentId: agent.agentId, content: "normal" });
  const contents = async (q: string) =>
    (await ctxOf(agent.token, q)).body.data.ledger.map((e: { content: string }) => e.content);
  assert.deepEqual(await contents(""), ["normal"]);
  assert.deepEqual(await contents("?include_audit=true"), ["normal", "audit trail"]);
});

test("CTX-014 ledger_source overrides include_system_ledger", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  await insertLedgerEntry(projectId, { type: "PROGRESS", agentId: agent.agentId, content: "mine" });
  const sources = async (q: string) =>
    [...new Set((await ctxOf(agent.token, q)).body.data.ledger.map((e: { source: string }) => e.source))]
      .sort();
  assert.deepEqual(await sources("?include_system_ledger=true&ledger_source=agent"), ["agent"]);
  assert.deepEqual(await sources("?include_system_ledger=false&ledger_source=system"), ["system"]);
  assert.deepEqual(await sources("?ledger_source=all"), ["agent", "system"]);
  assert.equal((await ctxOf(agent.token, "?ledger_source=robots")).status, 400);
});

test("CTX-015 ledger_type, ledger_sessionId, ledger_fileRef and ledger_subAgent filter the ledger", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  const session = crypto.randomUUID();
  await insertLedgerEntry(projectId, { agentId: agent.agentId, type: "DECISION", content: "decided" });
  await insertLedgerEntry(projectId, {
    type: "PROGRESS",
    agentId: agent.agentId,
    sessionId: session,
    content: "in session",
  });
  await insertLedgerEntry(projectId, {
    type: "PROGRESS",
    agentId: agent.agentId,
    fileRef: "src/x.ts",
    content: "about x",
  });
  await insertLedgerEntry(projectId, {
    type: "PROGRESS",
    agentId: agent.agentId,
    subAgentName: "worker-1",
    content: "by worker",
  });
  const contents = async (q: string) =>
    (await ctxOf(agent.token, q)).body.data.ledger.map((e: { content: string }) => e.content);
  assert.deepEqual(await contents("?ledger_type=DECISION"), ["decided"]);
  assert.deepEqual(await contents(`?ledger_sessionId=${session}`), ["in session"]);
  assert.deepEqual(await contents("?ledger_fileRef=src/x.ts"), ["about x"]);
  assert.deepEqual(await contents("?ledger_subAgent=worker-1"), ["by worker"]);
  assert.equal((await ctxOf(agent.token, "?ledger_type=NOPE")).status, 400);
  assert.equal((await ctxOf(agent.token, "?ledger_sessionId=not-a-uuid")).status, 400);
});

test("CTX-016 include=write_schemas adds draft 2020-12 JSON Schemas under schema.writePayloads", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  const plain = await ctxOf(agent.token);
  assert.equal(plain.body.data.schema.writePayloads, undefined);
  const res = await ctxOf(agent.token, "?include=write_schemas");
  const payloads = res.body.data.schema.writePayloads;
  for (const name of ["ledger", "ticket", "claim", "handoff"]) {
    assert.equal(payloads[name].$schema, "https://json-schema.org/draft/2020-12/schema", name);
    assert.equal(payloads[name].type, "object");
  }
  assert.deepEqual(payloads.claim.required, ["files"]);
  assert.ok(payloads.handoff.properties.summary);
  assert.ok(payloads.ledger.properties.type.enum.includes("DECISION"));
});

test("CTX-017 CTX-039 expectedPlatform that differs answers 409 IDENTITY_MISMATCH with details", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId, { platform: "claude-code" });
  assert.equal((await ctxOf(agent.token, "?expectedPlatform=claude-code")).status, 200);
  const res = await ctxOf(agent.token, "?expectedPlatform=cursor");
  assert.equal(res.status, 409);
  assert.equal(res.body.error.code, "IDENTITY_MISMATCH");
  assert.deepEqual(res.body.error.details, {
    tokenPlatform: "claude-code",
    requestedPlatform: "cursor",
    tokenAgentName: agent.name,
  });
});

test("CONV-017 CONV-018 X-Svc-Platform is checked on GET /context only", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId, { platform: "codex" });
  const ok = await call("GET", "/context", { token: agent.token, headers: { "X-Svc-Platform": "codex" } });
  assert.equal(ok.status, 200);
  const bad = await call("GET", "/context", { token: agent.token, headers: { "X-Svc-Platform": "oauth" } });
  assert.equal(bad.status, 409);
  assert.equal(bad.body.error.code, "IDENTITY_MISMATCH");
  assert.equal(bad.body.error.details.requestedPlatform, "oauth");
  const elsewhere = await call("GET", "/context/more?section=threads", {
    token: agent.token,
    headers: { "X-Svc-Platform": "oauth" },
  });
  assert.equal(elsewhere.status, 200);
});

test("CTX-038 GET /context with a missing or invalid token answers 401 UNAUTHORIZED", async () => {
  for (const token of [undefined, "svc_sess_nope", "garbage"]) {
    const res = await call("GET", "/context", { token });
    assert.equal(res.status, 401);
    assert.equal(res.body.error.code, "UNAUTHORIZED");
  }
});

test("RATE-005 GET /context costs 3 units", async () => {
  const { projectId } = await newProject({ plan: "free" });
  const agent = await pairAgent(projectId);
  const a = await ctxOf(agent.token);
  const b = await ctxOf(agent.token);
  assert.equal(a.body.meta.callsRemaining - b.body.meta.callsRemaining, 3);
});
