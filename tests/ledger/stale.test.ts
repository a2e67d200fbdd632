import assert from "node:assert/strict";
import { sql } from "kysely";
import { advanceClock, call, env, newProject, pairAgent, test } from "../helpers/mod.ts";
import { insertTicket } from "../helpers/fixtures.ts";
import { staleTickets } from "@/domain/ledger/stale.ts";

const MIN = 60_000;

async function claim(token: string, files: string[]) {
  return await call("POST", "/claim", { token, body: { files, estimatedSeconds: 3600 } });
}

test("LEDGER-059 LEDGER-060 LEDGER-062 LEDGER-063 a claim holder silent past 15 minutes gets 429 LEDGER_STALE", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  assert.equal((await claim(a.token, ["src/a.ts"])).status, 200);
  await advanceClock(14 * MIN);
  // Within the threshold: mutating calls pass (the claim's own system CONTEXT entry does not count as logging).
  assert.equal((await claim(a.token, ["src/b.ts"])).status, 200);
  await advanceClock(2 * MIN);
  const res = await claim(a.token, ["src/c.ts"]);
  assert.equal(res.status, 429, res.text);
  assert.equal(res.body.error.code, "LEDGER_STALE");
  const d = res.body.error.details;
  assert.equal(d.minutesSilent, 16);
  assert.equal(d.thresholdMinutes, 15);
  assert.equal(d.reason, "active_claim");
  assert.equal(d.suggestedLogEntry.type, "PROGRESS");
  assert.equal(res.headers.get("X-Ledger-Stale-Reason"), "active_claim");
  assert.ok(Number(res.headers.get("Retry-After")) >= 1);
  // Reads are never gated.
  assert.equal((await call("GET", "/claim/check?files=src/a.ts", { token: a.token })).status, 200);
});

test("LEDGER-034 LEDGER-064 the ledger write is never refused and ends LEDGER_STALE", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  await claim(a.token, ["src/a.ts"]);
  await advanceClock(20 * MIN);
  assert.equal((await claim(a.token, ["src/b.ts"])).status, 429);
  const logged = await call("POST", "/ledger", {
    token: a.token,
    body: { type: "PROGRESS", payload: { did: "refactored a.ts", next: "b.ts" } },
  });
  assert.equal(logged.status, 201, logged.text);
  assert.equal((await claim(a.token, ["src/b.ts"])).status, 200);
});

test("LEDGER-065 POST /ledger/batch and POST /release are exempt from LEDGER_STALE", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  await claim(a.token, ["src/a.ts"]);
  await advanceClock(20 * MIN);
  assert.equal((await claim(a.token, ["src/b.ts"])).status, 429);
  const released = await call("POST", "/release", { token: a.token, body: { all: true } });
  assert.equal(released.status, 200);
  assert.deepEqual(released.body.data.released, ["src/a.ts"]);
  // Nothing held any more: the condition is over without a ledger entry.
  assert.equal((await claim(a.token, ["src/b.ts"])).status, 200);
  await advanceClock(20 * MIN);
  assert.equal((await claim(a.token, ["src/c.ts"])).status, 429);
  const batch = await call("POST", "/ledger/batch", {
    token: a.token,
    body: { entries: [{ type: "PROGRESS", content: "still on b.ts" }] },
  });
  assert.equal(batch.status, 200);
  assert.equal((await claim(a.token, ["src/c.ts"])).status, 200);
});

test("LEDGER-059 an assignee of an in-progress ticket silent past the threshold is stale", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const ticket = await insertTicket(projectId, { status: "in_progress", assignee: a.agentId });
  await advanceClock(16 * MIN);
  const res = await claim(a.token, ["src/a.ts"]);
  assert.equal(res.status, 429);
  assert.equal(res.body.error.details.reason, "in_progress_ticket");
  assert.equal(res.body.error.details.suggestedLogEntry.ticketId, ticket.key);
});

test("LEDGER-059 an agent holding nothing is never stale, however long it was silent", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  await insertTicket(projectId, { status: "in_progress", assignee: null });
  await advanceClock(60 * MIN);
  assert.equal((await claim(a.token, ["src/a.ts"])).status, 200);
});

test("LEDGER-059 an expired claim no longer makes its holder stale", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  await call("POST", "/claim", { token: a.token, body: { files: ["src/a.ts"], estimatedSeconds: 600 } });
  await advanceClock(20 * MIN);
  assert.equal((await claim(a.token, ["src/b.ts"])).status, 200);
});

test("LEDGER-061 the threshold is the project's ledgerStaleMinutes (default 15)", async () => {
  const { projectId } = await newProject({ settings: { ledgerStaleMinutes: 5 } });
  const a = await pairAgent(projectId);
  await claim(a.token, ["src/a.ts"]);
  await advanceClock(4 * MIN);
  assert.equal((await claim(a.token, ["src/b.ts"])).status, 200);
  await advanceClock(2 * MIN);
  const res = await claim(a.token, ["src/c.ts"]);
  assert.equal(res.status, 429);
  assert.equal(res.body.error.details.thresholdMinutes, 5);
});

test("LEDGER-059 silence counts from the last own ledger entry", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  await claim(a.token, ["src/a.ts"]);
  await advanceClock(10 * MIN);
  await call("POST", "/ledger", { token: a.token, body: { type: "FOUND", content: "note" } });
  await advanceClock(10 * MIN);
  assert.equal((await claim(a.token, ["src/b.ts"])).status, 200);
  await advanceClock(6 * MIN);
  const res = await claim(a.token, ["src/c.ts"]);
  assert.equal(res.status, 429);
  assert.equal(res.body.error.details.minutesSilent, 16);
});

test("CTX-028 staleTickets lists in-progress tickets with no ledger entry for 30 minutes", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const quiet = await insertTicket(projectId, { status: "in_progress", assignee: a.agentId });
  const busy = await insertTicket(projectId, { status: "in_progress", assignee: a.agentId });
  await insertTicket(projectId, { status: "backlog" });
  await advanceClock(25 * MIN);
  await call("POST", "/ledger", {
    token: a.token,
    body: { type: "FOUND", content: "x", ticketId: busy.key },
  });
  await advanceClock(6 * MIN);
  const e = await env();
  const stale = await staleTickets(e.db, projectId, e.clock.now());
  assert.deepEqual(stale.map((t) => t.ticketId), [quiet.id]);
  assert.equal(stale[0]!.ticketRef, quiet.key);
  assert.ok(stale[0]!.minutesSilent >= 30);
});

test("LEDGER-001 the database refuses UPDATE and DELETE of ledger entries", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const res = await call("POST", "/ledger", { token: a.token, body: { type: "FOUND", content: "keep me" } });
  const id = res.body.data.id;
  const { db } = await env();
  await assert.rejects(() =>
    db.updateTable("ledger_entries").set({ content: "changed" }).where("id", "=", id).execute()
  );
  await assert.rejects(() => db.deleteFrom("ledger_entries").where("id", "=", id).execute());
  await assert.rejects(() => sql`UPDATE ledger_entries SET type = 'DONE' WHERE id = ${id}`.execute(db));
  const row = await db.selectFrom("ledger_entries").select("content").where("id", "=", id)
    .executeTakeFirstOrThrow();
  assert.equal(row.content, "keep me");
});

test("LEDGER-001 no endpoint edits or deletes a ledger entry", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const res = await call("POST", "/ledger", { token: a.token, body: { type: "FOUND", content: "x" } });
  const id = res.body.data.id;
  for (const method of ["PATCH", "PUT", "DELETE"]) {
    for (const path of ["/ledger", `/ledger/${id}`]) {
      const r = await call(method, path, { token: a.token, body: { content: "y" } });
      assert.ok(r.status === 404 || r.status === 405, `${method} ${path}: ${r.status}`);
    }
  }
});
