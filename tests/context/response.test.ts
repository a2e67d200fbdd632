import assert from "node:assert/strict";
import { sql } from "kysely";
import { toJson } from "@/db/tables/types.ts";
import { call, env, newProject, pairAgent, test } from "../helpers/mod.ts";
import { insertClaim, insertLedgerEntry, insertTicket, setBrief } from "../helpers/fixtures.ts";
import { CONTEXT_TICKET, insertThread, minutesAgo, now } from "./fixtures.ts";

const KEYS = [
  "resume",
  "agent",
  "project",
  "brief",
  "briefTruncated",
  "briefFetchUrl",
  "openClaims",
  "expiredClaims",
  "expiringClaims",
  "conflictRisk",
  "collisionWarnings",
  "ledger",
  "ledgerCursor",
  "threads",
  "updates",
  "pendingActions",
  "hasBlockingActions",
  "yourReviews",
  "pendingReviews",
  "pendingReviewsTotal",
  "pendingReviewsCursor",
  "workqueue",
  "boardSummary",
  "activeSession",
  "connectedAgents",
  "reviewConfig",
  "guidance",
  "nextAction",
  "isFirstSession",
  "complianceScore",
  "envHealth",
  "repoMismatch",
  "skillVersion",
  "skillStale",
  "schema",
  "pollingHint",
  "documents",
  "mcpUrl",
  // Extension (issue 27.3): the delta cursor, on every answer.
  "contextCursor",
];

async function ctxOf(token: string, query = "") {
  const res = await call("GET", `/context${query}`, { token });
  assert.equal(res.status, 200, res.text);
  return res.body.data;
}

test("CTX-018 GET /context data has exactly the spec's keys (staleTickets only when present)", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  for (const q of ["", "?compact=true"]) {
    const data = await ctxOf(agent.token, q);
    assert.deepEqual(Object.keys(data).sort(), [...KEYS].sort(), q);
  }
  await insertTicket(projectId, {
    ...CONTEXT_TICKET,
    status: "in_progress",
    statusChangedAt: minutesAgo(await now(), 45),
  });
  const data = await ctxOf(agent.token);
  assert.deepEqual(Object.keys(data).sort(), [...KEYS, "staleTickets"].sort());
});

test("CTX-019 resume.activeTicket carries expected files, criteria, done definition, verification command", async () => {
  const { projectId, prefix } = await newProject();
  const agent = await pairAgent(projectId);
  assert.equal((await ctxOf(agent.token)).resume.activeTicket, null);
  const t = await insertTicket(projectId, {
    ...CONTEXT_TICKET,
    status: "in_progress",
    assignee: agent.agentId,
    expectedFiles: ["src/a.ts", "src/b.ts"],
    criteria: [{ title: "A works", requiresEvidence: true }],
  });
  const active = (await ctxOf(agent.token)).resume.activeTicket;
  assert.equal(active.id, t.id);
  assert.equal(active.ticketRef, `${prefix}-${t.number}`);
  assert.deepEqual(active.expectedFiles, ["src/a.ts", "src/b.ts"]);
  assert.deepEqual(active.acceptanceCriteria, [{ title: "A works", requiresEvidence: true }]);
  assert.equal(active.doneDefinition, "Done when the thing works end to end");
  assert.equal(active.verificationCommand, "deno task test");
});

test("CTX-020 resume adds riskyFiles, staleClaims, envBlockers and nextAction only when relevant", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  const other = await pairAgent(projectId);
  assert.deepEqual(Object.keys((await ctxOf(agent.token)).resume), ["activeTicket"]);
  const t = await insertTicket(projectId, {
    ...CONTEXT_TICKET,
    status: "in_progress",
    assignee: agent.agentId,
    expectedFiles: ["src/shared.ts", "src/mine.ts"],
  });
  const base = await now();
  await insertClaim(projectId, { agentId: other.agentId, files: ["src/shared.ts"] });
  await insertClaim(projectId, {
    agentId: agent.agentId,
    files: ["src/mine.ts"],
    ticketId: t.id,
    claimedAt: minutesAgo(base, 12),
  });
  await insertLedgerEntry(projectId, {
    type: "PROGRESS",
    agentId: agent.agentId,
    envHealth: { status: "broken", notes: ["no db"] },
  });
  const resume = (await ctxOf(agent.token)).resume;
  assert.deepEqual(Object.keys(resume).sort(), [
    "activeTicket",
    "envBlockers",
    "nextAction",
    "riskyFiles",
    "staleClaims",
  ]);
  assert.equal(resume.riskyFiles[0].file, "src/shared.ts");
  assert.equal(resume.riskyFiles[0].claimant, other.name);
  assert.equal(resume.staleClaims[0].file, "src/mine.ts");
  assert.ok(resume.staleClaims[0].ageMinutes >= 12);
  assert.equal(resume.envBlockers[0].status, "broken");
  assert.equal(resume.nextAction.action, "RESUME_WORK");
});

test("CTX-021 project has id, name, phase, moduleCount and modulesDone", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  await insertTicket(projectId, { ...CONTEXT_TICKET, status: "done" });
  await insertTicket(projectId, { ...CONTEXT_TICKET, status: "cancelled" });
  await insertTicket(projectId, { ...CONTEXT_TICKET, status: "in_progress" });
  const project = (await ctxOf(agent.token)).project;
  assert.deepEqual(Object.keys(project).sort(), ["id", "moduleCount", "modulesDone", "name", "phase"]);
  assert.equal(project.id, projectId);
  assert.equal(project.moduleCount, 2);
  assert.equal(project.phase, "building");
  assert.equal(project.modulesDone, 0);
});

test("CTX-022 brief is { version, content } with the serialized brief", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  await setBrief(projectId, { scope: "Build it", goals: ["fast"] }, 3);
  const data = await ctxOf(agent.token);
  assert.deepEqual(data.brief, {
    version: 3,
    content: JSON.stringify({ scope: "Build it", goals: ["fast"] }),
  });
  assert.equal(data.briefTruncated, false);
  assert.equal(data.briefFetchUrl, null);
});

test("CTX-023 a cut brief sets briefTruncated and briefFetchUrl", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  await setBrief(projectId, { scope: "x".repeat(20_000) }, 1);
  const data = await ctxOf(agent.token);
  assert.equal(data.briefTruncated, true);
  assert.equal(data.brief.content.length, 16_000);
  assert.match(data.briefFetchUrl, /\/api\/context\/more\?section=brief$/);
});

test("CTX-024 expiringClaims lists the caller's claims expiring within 5 minutes", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  const base = await now();
  await insertClaim(projectId, {
    agentId: agent.agentId,
    files: ["src/soon.ts"],
    expiresAt: new Date(base.getTime() + 4 * 60_000),
  });
  await insertClaim(projectId, {
    agentId: agent.agentId,
    files: ["src/later.ts"],
    expiresAt: new Date(base.getTime() + 6 * 60_000),
  });
  await insertClaim(projectId, {
    agentId: agent.agentId,
    files: ["src/gone.ts"],
    expiresAt: minutesAgo(base, 1),
  });
  const data = await ctxOf(agent.token);
  assert.deepEqual(data.expiringClaims.map((c: { file: string }) => c.file), ["src/soon.ts"]);
  assert.deepEqual(data.expiredClaims.map((c: { file: string }) => c.file), ["src/gone.ts"]);
  assert.deepEqual(data.openClaims.map((c: { file: string }) => c.file).sort(), [
    "src/later.ts",
    "src/soon.ts",
  ]);
});

test("CTX-025 CTX-026 pendingReviews: 20 oldest first, total beyond, cursor lists the rest", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId, { role: "evaluator" });
  const other = await pairAgent(projectId);
  const base = await now();
  const ids: string[] = [];
  for (let i = 0; i < 23; i++) {
    const t = await insertTicket(projectId, {
      ...CONTEXT_TICKET,
      status: "review",
      assignee: other.agentId,
      statusChangedAt: minutesAgo(base, 100 - i),
    });
    ids.push(t.id);
  }
  await insertTicket(projectId, {
    ...CONTEXT_TICKET,
    status: "review",
    assignee: agent.agentId,
    statusChangedAt: minutesAgo(base, 500),
  });
  const data = await ctxOf(agent.token);
  assert.equal(data.pendingReviews.length, 20);
  assert.deepEqual(data.pendingReviews.map((r: { ticketId: string }) => r.ticketId), ids.slice(0, 20));
  assert.equal(data.pendingReviewsTotal, 23);
  const more = await call("GET", `/context/more?section=reviews&cursor=${data.pendingReviewsCursor}`, {
    token: agent.token,
  });
  assert.deepEqual(more.body.data.rows.map((r: { ticketId: string }) => r.ticketId), ids.slice(20).reverse());
  assert.equal(more.body.data.nextCursor, null);
  const compact = await ctxOf(agent.token, "?compact=true");
  assert.equal(compact.pendingReviews.count, 23);
});

test("CTX-027 workqueue lists at most 20 unassigned tickets in sprint_backlog or in_progress", async () => {
  const { projectId } = await newProject({
    settings: { columns: ["sprint_backlog", "in_progress", "done"] },
  });
  const agent = await pairAgent(projectId);
  for (let i = 0; i < 12; i++) await insertTicket(projectId, { ...CONTEXT_TICKET, status: "in_progress" });
  for (let i = 0; i < 12; i++) await insertTicket(projectId, { ...CONTEXT_TICKET, status: "sprint_backlog" });
  await insertTicket(projectId, { ...CONTEXT_TICKET, status: "in_progress", assignee: agent.agentId });
  await insertTicket(projectId, { ...CONTEXT_TICKET, status: "done" });
  const queue = (await ctxOf(agent.token)).workqueue;
  assert.equal(queue.length, 20);
  assert.ok(queue.every((t: { status: string }) => ["in_progress", "sprint_backlog"].includes(t.status)));
});

test("CTX-028 staleTickets lists in-progress tickets silent for 30 minutes, only when present", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  const base = await now();
  const fresh = await insertTicket(projectId, {
    ...CONTEXT_TICKET,
    status: "in_progress",
    statusChangedAt: minutesAgo(base, 40),
  });
  await insertLedgerEntry(projectId, {
    type: "PROGRESS",
    ticketId: fresh.id,
    createdAt: minutesAgo(base, 10),
  });
  await insertTicket(projectId, {
    ...CONTEXT_TICKET,
    status: "in_progress",
    statusChangedAt: minutesAgo(base, 20),
  });
  assert.equal("staleTickets" in (await ctxOf(agent.token)), false);
  const stale = await insertTicket(projectId, {
    ...CONTEXT_TICKET,
    status: "in_progress",
    statusChangedAt: minutesAgo(base, 31),
  });
  const data = await ctxOf(agent.token);
  assert.deepEqual(data.staleTickets.map((t: { ticketId: string }) => t.ticketId), [stale.id]);
  assert.ok(data.staleTickets[0].minutesSilent >= 31);
});

test("CTX-029 CTX-037 documents carry previews of at most 8,000 characters; compact sends contentText null", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  await setBrief(projectId, {
    scope: "s",
    custom: { documents: [{ title: "Design", content: "d".repeat(9000), url: "https://example.com/d" }] },
  }, 1);
  const docs = (await ctxOf(agent.token)).documents;
  assert.equal(docs[0].kind, "skill");
  const design = docs.find((d: { title: string }) => d.title === "Design");
  assert.equal(design.contentText.length, 8000);
  assert.equal(design.truncated, true);
  assert.equal(design.totalChars, 9000);
  const compact = (await ctxOf(agent.token, "?compact=true")).documents;
  assert.ok(compact.length === 2 && compact.every((d: { contentText: unknown }) => d.contentText === null));
});

test("CTX-030 skillVersion is opaque; skillStale is true when the agent's skill hash differs", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  const first = await ctxOf(agent.token);
  assert.equal(typeof first.skillVersion, "string");
  assert.equal(first.skillStale, false);
  const { db } = await env();
  await db.updateTable("sessions").set({ report: toJson({ skill_hash: "old-skill" }) })
    .where("id", "=", agent.sessionId).execute();
  assert.equal((await ctxOf(agent.token)).skillStale, true);
  await db.updateTable("sessions").set({ report: toJson({ skill_hash: first.skillVersion }) })
    .where("id", "=", agent.sessionId).execute();
  assert.equal((await ctxOf(agent.token)).skillStale, false);
});

test("CTX-031 design: a silent agent holding work gets a blocking LOG_LEDGER_ENTRY action", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  const base = await now();
  await insertClaim(projectId, {
    agentId: agent.agentId,
    files: ["src/held.ts"],
    claimedAt: minutesAgo(base, 40),
  });
  await insertLedgerEntry(projectId, {
    type: "PROGRESS",
    agentId: agent.agentId,
    createdAt: minutesAgo(base, 16),
  });
  const data = await ctxOf(agent.token);
  assert.equal(data.hasBlockingActions, true);
  const action = data.pendingActions.find((a: { action: string }) => a.action === "LOG_LEDGER_ENTRY");
  assert.equal(action.blocking, true);
  assert.equal(action.endpoint, "POST /ledger");
  assert.ok(data.complianceScore < 100);
  await insertLedgerEntry(projectId, { type: "PROGRESS", agentId: agent.agentId });
  const after = await ctxOf(agent.token);
  assert.equal(after.hasBlockingActions, false);
  assert.equal(after.complianceScore, 100);
});

test("CTX-031 design: conflictRisk, collisionWarnings, connectedAgents, reviewConfig, isFirstSession", async () => {
  const { projectId } = await newProject({ reviewMode: "light" });
  const agent = await pairAgent(projectId);
  const other = await pairAgent(projectId);
  await insertTicket(projectId, {
    ...CONTEXT_TICKET,
    status: "in_progress",
    assignee: agent.agentId,
    expectedFiles: ["src/x.ts"],
  });
  await insertTicket(projectId, {
    ...CONTEXT_TICKET,
    status: "in_progress",
    assignee: other.agentId,
    expectedFiles: ["src/x.ts"],
  });
  const data = await ctxOf(agent.token);
  assert.deepEqual(data.conflictRisk, { level: "low", files: ["src/x.ts"] });
  assert.equal(data.collisionWarnings[0].agentName, other.name);
  assert.deepEqual(data.collisionWarnings[0].conflictingFiles, ["src/x.ts"]);
  await insertClaim(projectId, { agentId: other.agentId, files: ["src/x.ts"] });
  assert.equal((await ctxOf(agent.token)).conflictRisk.level, "high");
  const names = data.connectedAgents.map((a: { name: string }) => a.name).sort();
  assert.deepEqual(names, [agent.name, other.name].sort());
  assert.equal(data.reviewConfig.mode, "light");
  assert.equal(data.reviewConfig.directDoneAllowed, true);
  assert.equal(data.isFirstSession, true);
  const again = await pairAgent(projectId, { name: agent.name });
  assert.equal((await ctxOf(again.token)).isFirstSession, false);
});

test("CTX-032 compact ledger: the 5 newest entries plus non-superseded CONTEXT entries of the active ticket", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  const t = await insertTicket(projectId, {
    ...CONTEXT_TICKET,
    status: "in_progress",
    assignee: agent.agentId,
  });
  const base = await now();
  await insertLedgerEntry(projectId, {
    ticketId: t.id,
    type: "CONTEXT",
    fileRef: "src/a.ts",
    content: "old a",
    createdAt: minutesAgo(base, 50),
  });
  await insertLedgerEntry(projectId, {
    ticketId: t.id,
    type: "CONTEXT",
    fileRef: "src/a.ts",
    content: "new a",
    createdAt: minutesAgo(base, 40),
  });
  await insertLedgerEntry(projectId, {
    ticketId: t.id,
    type: "CONTEXT",
    fileRef: "src/b.ts",
    content: "b",
    createdAt: minutesAgo(base, 30),
  });
  for (let i = 0; i < 8; i++) {
    await insertLedgerEntry(projectId, { type: "PROGRESS", agentId: agent.agentId, content: `p${i}` });
  }
  const ledger = (await ctxOf(agent.token, "?compact=true")).ledger.map((e: { content: string }) =>
    e.content
  );
  assert.deepEqual(ledger, ["p7", "p6", "p5", "p4", "p3", "b", "new a"]);
});

test("CTX-033 compact brief.content is cut to its first 500 characters", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  await setBrief(projectId, { scope: "é".repeat(800) }, 1);
  const data = await ctxOf(agent.token, "?compact=true");
  assert.equal(Array.from(data.brief.content).length, 500);
  assert.ok(JSON.stringify({ scope: "é".repeat(800) }).startsWith(data.brief.content));
  assert.equal(data.briefTruncated, true);
});

test("CTX-034 CTX-035 CTX-036 compact openClaims, threads and pendingReviews are counts with ids", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  const other = await pairAgent(projectId);
  const t = await insertTicket(projectId, {
    ...CONTEXT_TICKET,
    status: "in_progress",
    assignee: other.agentId,
  });
  await insertClaim(projectId, { agentId: other.agentId, files: ["src/1.ts", "src/2.ts"], ticketId: t.id });
  const thread = await insertThread(projectId);
  const review = await insertTicket(projectId, {
    ...CONTEXT_TICKET,
    status: "review",
    assignee: other.agentId,
  });
  const data = await ctxOf(agent.token, "?compact=true");
  assert.deepEqual(data.openClaims, { count: 2, ticketIds: [t.id] });
  assert.deepEqual(data.threads, { count: 1, ids: [thread] });
  assert.deepEqual(data.pendingReviews, { count: 1, ticketIds: [review.id] });
});

test("CTX-053 context returns a pollingHint for GET /events", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  const hint = (await ctxOf(agent.token)).pollingHint;
  assert.equal(hint.endpoint, "GET /events");
  assert.equal(typeof hint.intervalSeconds, "number");
  const poll = await call("GET", `/events?since=${hint.cursor}`, { token: agent.token });
  assert.equal(poll.status, 200);
  assert.deepEqual(poll.body.data.events, []);
  const { db } = await env();
  const head = await db.selectFrom("event_cursors").select(sql<number>`seq::int`.as("seq"))
    .where("project_id", "=", projectId).executeTakeFirstOrThrow();
  assert.ok(head.seq >= 1);
});
