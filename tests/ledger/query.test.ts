import assert from "node:assert/strict";
import { admin, advanceClock, call, newProject, pairAgent, test } from "../helpers/mod.ts";
import { insertLedgerEntry, insertTicket } from "../helpers/fixtures.ts";

async function log(token: string, body: Record<string, unknown>) {
  const res = await call("POST", "/ledger", { token, body });
  assert.equal(res.status, 201, res.text);
  return res.body.data as { id: string; createdAt: string };
}

async function list(token: string, query = "") {
  return await call("GET", `/ledger${query ? `?${query}` : ""}`, { token });
}

test("LEDGER-049 GET /ledger needs scope read:ledger; an OAuth-read-like key lacks it", async () => {
  const { projectId } = await newProject();
  const key = await admin("POST", `/projects/${projectId}/api-keys`, {
    agentName: "oauth-read",
    scopes: ["read:board", "read:ticket", "read:brief"],
  });
  const res = await list(key.key);
  assert.equal(res.status, 403);
  assert.equal(res.body.error.code, "FORBIDDEN");
});

test("LEDGER-058 LEDGER-002 GET /ledger answers { entries, pagination { total, limit, offset, hasMore } }", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  await log(a.token, { type: "FOUND", content: "one", fileRef: "src/a.ts", lineRef: 3, labels: ["bug"] });
  const res = await list(a.token, "source=agent");
  assert.equal(res.status, 200);
  assert.deepEqual(Object.keys(res.body.data).sort(), ["entries", "pagination"]);
  assert.deepEqual(res.body.data.pagination, { total: 1, limit: 50, offset: 0, hasMore: false });
  const [entry] = res.body.data.entries;
  for (const key of ["id", "type", "content", "createdAt"]) assert.ok(key in entry, key);
  assert.equal(entry.agentId, a.agentId);
  assert.equal(entry.agentName, a.name);
  assert.equal(entry.fileRef, "src/a.ts");
  assert.equal(entry.lineRef, 3);
  assert.deepEqual(entry.labels, ["bug"]);
  assert.equal(entry.sessionId, a.sessionId);
});

test("LEDGER-050 GET /ledger filters by ticketId (UUID or key), agentId and sessionId", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const b = await pairAgent(projectId);
  const ticket = await insertTicket(projectId);
  const onTicket = await log(a.token, { type: "FOUND", content: "t", ticketId: ticket.key });
  const byB = await log(b.token, { type: "FOUND", content: "b" });
  for (const ref of [ticket.key, ticket.id]) {
    const res = await list(a.token, `ticketId=${ref}`);
    assert.deepEqual(res.body.data.entries.map((e: { id: string }) => e.id), [onTicket.id]);
  }
  const agentOnly = await list(a.token, `agentId=${b.agentId}&source=agent`);
  assert.deepEqual(agentOnly.body.data.entries.map((e: { id: string }) => e.id), [byB.id]);
  const session = await list(a.token, `sessionId=${b.sessionId}&source=agent`);
  assert.deepEqual(session.body.data.entries.map((e: { id: string }) => e.id), [byB.id]);
  assert.equal((await list(a.token, "agentId=not-a-uuid")).status, 400);
});

test("LEDGER-051 type is a comma list; any unknown type answers 400", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  await log(a.token, { type: "FOUND", content: "f" });
  await log(a.token, { type: "ISSUE", content: "i" });
  await log(a.token, { type: "CHANGED", content: "c" });
  const res = await list(a.token, "type=FOUND,ISSUE");
  assert.deepEqual(res.body.data.entries.map((e: { type: string }) => e.type).sort(), ["FOUND", "ISSUE"]);
  for (const type of ["FOUND,NOPE", "found", ","]) {
    const bad = await list(a.token, `type=${encodeURIComponent(type)}`);
    assert.equal(bad.status, 400, type);
    assert.equal(bad.body.error.code, "VALIDATION_ERROR");
  }
});

test("LEDGER-052 source is agent, system or all; the default is all", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  await log(a.token, { type: "FOUND", content: "mine" });
  const all = await list(a.token);
  const sources = new Set(all.body.data.entries.map((e: { source: string }) => e.source));
  assert.deepEqual([...sources].sort(), ["agent", "system"]);
  const agent = await list(a.token, "source=agent");
  assert.ok(agent.body.data.entries.every((e: { source: string }) => e.source === "agent"));
  const system = await list(a.token, "source=system");
  assert.ok(system.body.data.entries.length > 0);
  assert.ok(system.body.data.entries.every((e: { source: string }) => e.source === "system"));
  assert.equal(
    all.body.data.pagination.total,
    agent.body.data.pagination.total + system.body.data.pagination.total,
  );
  assert.equal((await list(a.token, "source=robots")).status, 400);
});

test("LEDGER-053 audit entries are left out unless include_audit=true", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  await insertLedgerEntry(projectId, {
    type: "CONTEXT",
    content: "audit trail",
    source: "system",
    audit: true,
    agentId: a.agentId,
  });
  const without = await list(a.token, "type=CONTEXT");
  assert.equal(without.body.data.entries.length, 0);
  const withAudit = await list(a.token, "type=CONTEXT&include_audit=true");
  assert.equal(withAudit.body.data.entries.length, 1);
  assert.equal(withAudit.body.data.entries[0].audit, true);
});

test("LEDGER-054 since and until are ISO 8601 and inclusive", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const first = await log(a.token, { type: "FOUND", content: "1" });
  await advanceClock(60_000);
  const second = await log(a.token, { type: "FOUND", content: "2" });
  await advanceClock(60_000);
  const third = await log(a.token, { type: "FOUND", content: "3" });
  const q = `type=FOUND&since=${encodeURIComponent(first.createdAt)}&until=${
    encodeURIComponent(second.createdAt)
  }`;
  const res = await list(a.token, q);
  assert.deepEqual(res.body.data.entries.map((e: { id: string }) => e.id), [second.id, first.id]);
  const after = await list(a.token, `type=FOUND&since=${encodeURIComponent(third.createdAt)}`);
  assert.deepEqual(after.body.data.entries.map((e: { id: string }) => e.id), [third.id]);
  assert.equal((await list(a.token, "since=yesterday")).status, 400);
});

test("LEDGER-055 LEDGER-056 LEDGER-057 limit max 200 default 50, offset default 0, order default desc", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const entries = Array.from({ length: 20 }, (_, i) => ({ type: "FOUND", content: `n${i}` }));
  for (let i = 0; i < 3; i++) await call("POST", "/ledger/batch", { token: a.token, body: { entries } });
  const page = await list(a.token, "type=FOUND");
  assert.equal(page.body.data.entries.length, 50);
  assert.deepEqual(page.body.data.pagination, { total: 60, limit: 50, offset: 0, hasMore: true });
  const times = page.body.data.entries.map((e: { createdAt: string }) => e.createdAt);
  assert.deepEqual(times, [...times].sort().reverse());
  assert.equal(page.body.data.entries[0].content, "n19");
  const asc = await list(a.token, "type=FOUND&order=asc&limit=2");
  assert.deepEqual(asc.body.data.entries.map((e: { content: string }) => e.content), ["n0", "n1"]);
  const rest = await list(a.token, "type=FOUND&offset=50");
  assert.equal(rest.body.data.entries.length, 10);
  assert.equal(rest.body.data.pagination.hasMore, false);
  assert.equal((await list(a.token, "limit=200")).status, 200);
  for (const q of ["limit=201", "limit=0", "offset=-1", "order=up"]) {
    assert.equal((await list(a.token, q)).status, 400, q);
  }
});
