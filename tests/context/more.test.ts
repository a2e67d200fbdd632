import assert from "node:assert/strict";
import { admin, call, newProject, pairAgent, test } from "../helpers/mod.ts";
import { insertLedgerEntry, insertTicket, setBrief } from "../helpers/fixtures.ts";
import { CONTEXT_TICKET, insertThread, minutesAgo, now } from "./fixtures.ts";

async function more(token: string, query: string) {
  return await call("GET", `/context/more?${query}`, { token });
}

test("CTX-040 /context/more accepts any valid token and checks no scope", async () => {
  const { projectId } = await newProject();
  const key = await admin("POST", `/projects/${projectId}/api-keys`, {
    agentName: "k",
    scopes: ["read:board"],
  });
  for (const section of ["ledger", "threads", "brief", "reviews"]) {
    assert.equal((await more(key.key, `section=${section}`)).status, 200, section);
  }
  assert.equal((await call("GET", "/context/more?section=ledger")).status, 401);
});

test("CTX-041 section is required and must be ledger, threads, brief or reviews", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  for (const q of ["", "section=tickets", "section=LEDGER"]) {
    const res = await more(agent.token, q);
    assert.equal(res.status, 400, q);
    assert.equal(res.body.error.code, "VALIDATION_ERROR");
  }
});

test("CTX-042 an invalid cursor restarts the listing from the beginning", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  for (let i = 0; i < 3; i++) {
    await insertLedgerEntry(projectId, { type: "PROGRESS", agentId: agent.agentId, content: `e${i}` });
  }
  const fresh = await more(agent.token, "section=ledger");
  const threadsCursor = (await more(agent.token, "section=threads")).body.data.nextCursor;
  for (const cursor of ["not-a-cursor", "eyJzIjoibGVkZ2VyIiwiYiI6LTF9", threadsCursor ?? "e30"]) {
    const res = await more(agent.token, `section=ledger&cursor=${encodeURIComponent(cursor)}`);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.data.rows, fresh.body.data.rows);
  }
  const threads = await more(agent.token, "section=threads&cursor=WyJ4Il0");
  assert.equal(threads.status, 200);
});

test("CTX-043 limit is 1 to 200, default 50", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  for (let i = 0; i < 55; i++) {
    await insertLedgerEntry(projectId, { type: "PROGRESS", agentId: agent.agentId, content: `e${i}` });
  }
  assert.equal((await more(agent.token, "section=ledger")).body.data.rows.length, 50);
  assert.equal((await more(agent.token, "section=ledger&limit=1")).body.data.rows.length, 1);
  assert.equal((await more(agent.token, "section=ledger&limit=200")).body.data.rows.length, 55);
  for (const bad of ["0", "201", "abc"]) {
    const res = await more(agent.token, `section=ledger&limit=${bad}`);
    assert.equal(res.status, 400, bad);
    assert.equal(res.body.error.code, "VALIDATION_ERROR");
  }
});

test("CTX-045 CTX-046 CTX-047 { section, rows, hasMore, nextCursor }: newest first, null cursor at the end", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  for (let i = 0; i < 5; i++) {
    await insertLedgerEntry(projectId, { type: "PROGRESS", agentId: agent.agentId, content: `e${i}` });
  }
  const seen: string[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 5; page++) {
    const res = await more(agent.token, `section=ledger&limit=2${cursor ? `&cursor=${cursor}` : ""}`);
    assert.deepEqual(Object.keys(res.body.data).sort(), ["hasMore", "nextCursor", "rows", "section"]);
    assert.equal(res.body.data.section, "ledger");
    seen.push(...res.body.data.rows.map((r: { content: string }) => r.content));
    cursor = res.body.data.nextCursor;
    assert.equal(res.body.data.hasMore, cursor !== null);
    if (!cursor) break;
  }
  assert.deepEqual(seen, ["e4", "e3", "e2", "e1", "e0"]);
  assert.equal(cursor, null);
});

test("CTX-046 ledgerCursor from context continues with the same filters", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  for (let i = 0; i < 4; i++) {
    await insertLedgerEntry(projectId, { agentId: agent.agentId, type: "DECISION", content: `d${i}` });
    await insertLedgerEntry(projectId, { type: "PROGRESS", agentId: agent.agentId, content: `p${i}` });
  }
  const ctx = await call("GET", "/context?ledger_limit=2&ledger_type=DECISION", { token: agent.token });
  assert.deepEqual(ctx.body.data.ledger.map((e: { content: string }) => e.content), ["d3", "d2"]);
  const rest = await more(agent.token, `section=ledger&cursor=${ctx.body.data.ledgerCursor}`);
  assert.deepEqual(rest.body.data.rows.map((e: { content: string }) => e.content), ["d1", "d0"]);
});

test("CTX-048 threads rows have exactly the spec's fields, newest first across statuses", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  const base = await now();
  const older = await insertThread(projectId, {
    status: "closed",
    createdAt: minutesAgo(base, 10),
    agentId: agent.agentId,
  });
  const newer = await insertThread(projectId, { status: "open", createdAt: minutesAgo(base, 5) });
  const res = await more(agent.token, "section=threads");
  assert.deepEqual(res.body.data.rows.map((r: { id: string }) => r.id), [newer, older]);
  assert.deepEqual(Object.keys(res.body.data.rows[0]).sort(), [
    "agentId",
    "closedAt",
    "createdAt",
    "id",
    "intent",
    "lastMessageAt",
    "outcome",
    "status",
    "subAgentName",
    "ticketId",
  ]);
  const paged = await more(agent.token, "section=threads&limit=1");
  const second = await more(agent.token, `section=threads&limit=1&cursor=${paged.body.data.nextCursor}`);
  assert.equal(second.body.data.rows[0].id, older);
  assert.equal(second.body.data.nextCursor, null);
});

test("CTX-049 CTX-050 reviews rows: spec fields, tickets assigned to the caller left out", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  const other = await pairAgent(projectId);
  const theirs = await insertTicket(projectId, {
    ...CONTEXT_TICKET,
    status: "review",
    assignee: other.agentId,
    reviewer: agent.agentId,
    branch: "feat/x",
  });
  await insertTicket(projectId, { ...CONTEXT_TICKET, status: "review", assignee: agent.agentId });
  const res = await more(agent.token, "section=reviews");
  assert.equal(res.body.data.rows.length, 1);
  const row = res.body.data.rows[0];
  assert.deepEqual(Object.keys(row).sort(), [
    "branch",
    "generatorAgent",
    "reviewerAgent",
    "tags",
    "ticketId",
    "ticketNumber",
    "title",
    "type",
    "waitingSince",
  ]);
  assert.equal(row.ticketId, theirs.id);
  assert.equal(row.ticketNumber, theirs.number);
  assert.deepEqual(row.generatorAgent, { id: other.agentId, name: other.name });
  assert.deepEqual(row.reviewerAgent, { id: agent.agentId, name: agent.name });
  assert.equal(row.branch, "feat/x");
});

test("CTX-044 CTX-051 CTX-052 brief chunks: limit in KB, spec fields, concatenation reproduces the brief", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  const brief = { scope: "Ünïcødé ✓ ".repeat(400), goals: ["ship 🚀".repeat(100)] };
  await setBrief(projectId, brief, 2);
  const whole = JSON.stringify(brief);
  const totalBytes = new TextEncoder().encode(whole).length;
  let text = "";
  let cursor: string | null = null;
  let calls = 0;
  do {
    const res = await more(agent.token, `section=brief&limit=1${cursor ? `&cursor=${cursor}` : ""}`);
    const row = res.body.data.rows[0];
    assert.deepEqual(Object.keys(row).sort(), [
      "chunk",
      "hasMore",
      "nextCursor",
      "offset",
      "totalBytes",
      "version",
    ]);
    assert.equal(row.version, 2);
    assert.equal(row.totalBytes, totalBytes);
    assert.equal(row.offset, new TextEncoder().encode(text).length);
    assert.ok(new TextEncoder().encode(row.chunk).length <= 1024);
    text += row.chunk;
    cursor = row.nextCursor;
    assert.equal(res.body.data.nextCursor, cursor);
    calls++;
  } while (cursor && calls < 50);
  assert.equal(text, whole);
  assert.ok(calls >= Math.ceil(totalBytes / 1024));
  const big = await more(agent.token, "section=brief&limit=200");
  assert.equal(big.body.data.rows[0].chunk, whole);
  assert.equal(big.body.data.hasMore, false);
});

test("CTX-052 chunks keep the version they started with when the brief changes meanwhile", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  const v1 = { scope: "a".repeat(3000) };
  await setBrief(projectId, v1, 1);
  const first = await more(agent.token, "section=brief&limit=1");
  await setBrief(projectId, { scope: "b".repeat(3000) }, 2);
  let text = first.body.data.rows[0].chunk;
  let cursor = first.body.data.nextCursor;
  while (cursor) {
    const res = await more(agent.token, `section=brief&limit=1&cursor=${cursor}`);
    assert.equal(res.body.data.rows[0].version, 1);
    text += res.body.data.rows[0].chunk;
    cursor = res.body.data.nextCursor;
  }
  assert.equal(text, JSON.stringify(v1));
});
