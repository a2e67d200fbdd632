import assert from "node:assert/strict";
import { sql } from "kysely";
import { JOB_HANDLERS } from "@/domain/jobs/handlers.ts";
import { runPendingJobs } from "@/domain/jobs/run.ts";
import { call, env, test } from "../helpers/mod.ts";
import { insertClaim, insertLedgerEntry, ticketRow } from "../helpers/fixtures.ts";
import { apiKeyFor, entriesOf, handOff, liveClaimFiles, type Ready, ready, sessionRow } from "./fixtures.ts";

/** Everything a handoff may write, to compare before and after a refused or duplicate call. */
async function snapshot(r: Ready) {
  const { db } = await env();
  const count = async (
    table: "ledger_entries" | "events" | "ticket_artifacts" | "qa_runs" | "pending_jobs",
  ) => {
    const q = table === "ticket_artifacts" || table === "qa_runs"
      ? db.selectFrom(table).select(sql<number>`count(*)::int`.as("n")).where("ticket_id", "=", r.ticket!.id)
      : table === "pending_jobs"
      ? db.selectFrom(table).select(sql<number>`count(*)::int`.as("n"))
      : db.selectFrom(table).select(sql<number>`count(*)::int`.as("n")).where("project_id", "=", r.projectId);
    return Number((await q.executeTakeFirstOrThrow()).n);
  };
  const ticket = await ticketRow(r.ticket!.id);
  const session = await sessionRow(r.agent.sessionId);
  const tokens = await db.selectFrom("tokens").select("revoked_at").where(
    "session_id",
    "=",
    r.agent.sessionId,
  )
    .execute();
  return {
    ticket: {
      status: ticket.status,
      assignee: ticket.assignee_agent_id,
      updatedAt: ticket.updated_at.getTime(),
    },
    session: { status: session.status, endedAt: session.ended_at },
    revoked: tokens.map((t) => t.revoked_at),
    claims: await liveClaimFiles(r.agent.agentId),
    ledger: await count("ledger_entries"),
    events: await count("events"),
    artifacts: await count("ticket_artifacts"),
    qaRuns: await count("qa_runs"),
    jobs: await count("pending_jobs"),
  };
}

const FULL = {
  diffStat: "2 files changed, 10 insertions(+)",
  testResults: "12 passed",
  artifacts: [{ type: "pull_request", url: "https://git.example.com/pr/1" }],
  toolResults: [{ command: "deno test", exitCode: 0 }],
};

test("HAND-036 a handoff releases every claim of the identity, sub-agents included", async () => {
  const r = await ready({ claim: ["src/a.ts", "src/b.ts"] });
  await insertClaim(r.projectId, { agentId: r.agent.agentId, subAgentName: "worker-1", files: ["src/c.ts"] });
  await insertClaim(r.projectId, { agentId: r.agent.agentId, files: ["docs/x.md"] });
  assert.deepEqual(await liveClaimFiles(r.agent.agentId), ["docs/x.md", "src/a.ts", "src/b.ts", "src/c.ts"]);
  const res = await handOff(r);
  assert.equal(res.status, 200, res.text);
  assert.deepEqual(await liveClaimFiles(r.agent.agentId), []);
});

test("HAND-037 a handoff writes a STATUS entry listing the released files", async () => {
  const r = await ready({ claim: ["src/a.ts", "src/b.ts"] });
  assert.equal((await handOff(r)).status, 200);
  const status = (await entriesOf(r.agent.sessionId)).filter((e) => e.type === "STATUS");
  assert.equal(status.length, 1);
  assert.match(status[0]!.content, /src\/a\.ts, src\/b\.ts/);
  assert.deepEqual(status[0]!.payload?.files, ["src/a.ts", "src/b.ts"]);
});

test("HAND-038 a handoff writes a DONE entry with the module and summary", async () => {
  const r = await ready();
  assert.equal((await handOff(r, { moduleName: "billing", summary: "Invoices render" })).status, 200);
  const done = (await entriesOf(r.agent.sessionId)).filter((e) => e.type === "DONE");
  assert.equal(done.length, 1);
  assert.equal(done[0]!.content, "billing: Invoices render");
  assert.equal(done[0]!.ticket_id, r.ticket!.id);
  assert.equal(done[0]!.payload?.moduleName, "billing");
  const lifecycle = (await entriesOf(r.agent.sessionId)).filter((e) => e.type === "AGENT_COMPLETED");
  assert.equal(lifecycle.length, 1);
});

test("HAND-039 a handoff completes the session and its token stops working", async () => {
  const r = await ready();
  assert.equal((await call("GET", "/me", { token: r.agent.token })).status, 200);
  assert.equal((await handOff(r)).status, 200);
  const session = await sessionRow(r.agent.sessionId);
  assert.equal(session.status, "complete");
  assert.ok(session.ended_at);
  assert.equal((await call("GET", "/me", { token: r.agent.token })).status, 401);
});

test("HAND-040 a repeat for a session with a DONE entry answers duplicate and writes nothing", async () => {
  const r = await ready({ reviewMode: "medium" });
  const first = await handOff(r, FULL);
  assert.equal(first.status, 200, first.text);
  const key = await apiKeyFor(r.projectId, r.agent.name);
  const before = await snapshot(r);
  const again = await handOff(r, { ...FULL, moduleName: "other-module" }, key);
  assert.equal(again.status, 200, again.text);
  assert.deepEqual(again.body.data, { ok: true, modulesDone: first.body.data.modulesDone, duplicate: true });
  const after = await snapshot(r);
  // The API key's own rate-limit bookkeeping aside, nothing of the handoff was written again.
  assert.deepEqual(after, before);
});

test("HAND-041 with a session token the repeat answers 401: the token was revoked", async () => {
  const r = await ready();
  assert.equal((await handOff(r)).status, 200);
  const again = await handOff(r);
  assert.equal(again.status, 401);
  assert.equal(again.body.error.code, "UNAUTHORIZED");
});

test("HAND-035 a status change during the call answers 409 REFRESH_TICKET_STATE and writes nothing", async () => {
  const r = await ready({ reviewMode: "light" });
  const { db } = await env();
  // Simulates a concurrent move: inserting the artifact (first write of the handoff) moves the ticket.
  await sql`CREATE FUNCTION race_${
    sql.raw(r.projectId.replace(/-/g, ""))
  }() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      UPDATE tickets SET status = 'blocked' WHERE id = NEW.ticket_id;
      RETURN NEW;
    END $$`.execute(db);
  await sql`CREATE TRIGGER race_${sql.raw(r.projectId.replace(/-/g, ""))} AFTER INSERT ON ticket_artifacts
    FOR EACH ROW WHEN (NEW.ticket_id = ${sql.lit(r.ticket!.id)}::uuid)
    EXECUTE FUNCTION race_${sql.raw(r.projectId.replace(/-/g, ""))}()`.execute(db);
  const before = await snapshot(r);
  const res = await handOff(r, FULL);
  await sql`DROP TRIGGER race_${sql.raw(r.projectId.replace(/-/g, ""))} ON ticket_artifacts`.execute(db);
  assert.equal(res.status, 409, res.text);
  assert.equal(res.body.error.code, "CONFLICT");
  assert.equal(res.body.error.details.recovery.action, "REFRESH_TICKET_STATE");
  assert.equal(res.body.error.details.observedStatus, "blocked");
  assert.deepEqual(await snapshot(r), before);
});

test("HAND-026 toolResults are classified after the response into PROGRESS and TESTED, skipping duplicates", async () => {
  const r = await ready();
  const { db, clock } = await env();
  await runPendingJobs({ db, clock, jobs: JOB_HANDLERS });
  const res = await handOff(r, {
    toolResults: [
      { command: "deno test --allow-all", output: "18 passed", exitCode: 0 },
      { tool: "edit_file", result: "Updated src/a.ts" },
      "npm test: 3 failing",
      "Wrote src/a.ts", // duplicates the session's PROGRESS entry
      { tool: "edit_file", result: "Updated src/a.ts" }, // duplicates an earlier item
      null,
    ],
  });
  assert.equal(res.status, 200, res.text);
  const jobs = await db.selectFrom("pending_jobs").selectAll().where("done_at", "is", null).execute();
  assert.equal(jobs.length, 1, "the job is stored by the handoff transaction");
  const beforeRun = (await entriesOf(r.agent.sessionId)).filter((e) => e.payload?.source === "toolResults");
  assert.equal(beforeRun.length, 0, "classification happens after the response");
  assert.equal(await runPendingJobs({ db, clock, jobs: JOB_HANDLERS }), 1);
  const classified = (await entriesOf(r.agent.sessionId)).filter((e) => e.payload?.source === "toolResults");
  assert.deepEqual(classified.map((e) => [e.type, e.content]), [
    ["TESTED", "deno test --allow-all | 18 passed | outcome: passed"],
    ["PROGRESS", "edit_file | Updated src/a.ts"],
    ["TESTED", "npm test: 3 failing"],
  ]);
  assert.ok(classified.every((e) => e.ticket_id === r.ticket!.id && e.agent_id === r.agent.agentId));
  // Running again finds nothing to do and writes nothing more.
  assert.equal(await runPendingJobs({ db, clock, jobs: JOB_HANDLERS }), 0);
});

test("HAND-026 no job is queued without toolResults", async () => {
  const r = await ready();
  const { db, clock } = await env();
  await runPendingJobs({ db, clock, jobs: JOB_HANDLERS });
  assert.equal((await handOff(r, { toolResults: [] })).status, 200);
  const open = await db.selectFrom("pending_jobs").select("id").where("done_at", "is", null).execute();
  assert.equal(open.length, 0);
});

test("a handoff interrupted by a failing database write leaves no partial effect", async () => {
  const r = await ready({
    reviewMode: "medium",
    ticket: { criteria: [{ title: "c", requiresEvidence: true }] },
  });
  await insertLedgerEntry(r.projectId, {
    type: "CHANGED",
    agentId: r.agent.agentId,
    sessionId: r.agent.sessionId,
  });
  const { db } = await env();
  const name = `fail_done_${r.projectId.replace(/-/g, "")}`;
  await sql`CREATE FUNCTION ${sql.raw(name)}() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      RAISE EXCEPTION 'injected failure';
    END $$`.execute(db);
  await sql`CREATE TRIGGER ${sql.raw(name)} BEFORE INSERT ON ledger_entries
    FOR EACH ROW WHEN (NEW.type = 'DONE' AND NEW.project_id = ${sql.lit(r.projectId)}::uuid)
    EXECUTE FUNCTION ${sql.raw(name)}()`.execute(db);
  const before = await snapshot(r);
  const res = await handOff(r, FULL);
  await sql`DROP TRIGGER ${sql.raw(name)} ON ledger_entries`.execute(db);
  assert.equal(res.status, 500, res.text);
  assert.equal(res.body.error.code, "INTERNAL");
  const after = await snapshot(r);
  assert.deepEqual(after, before);
  assert.equal(after.ticket.status, "in_progress");
  assert.deepEqual(after.claims, ["src/a.ts"]);
  assert.equal(after.session.status, "active");
  // The token still works and the same handoff now succeeds.
  const retry = await handOff(r, FULL);
  assert.equal(retry.status, 200, retry.text);
  assert.equal((await ticketRow(r.ticket!.id)).status, "review");
});
