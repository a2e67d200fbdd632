import assert from "node:assert/strict";
import { call, env, test } from "../helpers/mod.ts";
import { insertClaim, ticketRow } from "../helpers/fixtures.ts";
import { board, liveFiles, ticket } from "./fixtures.ts";

function begin(token: string, body: Record<string, unknown>) {
  return call("POST", "/begin", { token, body });
}

test("TKT-183 TKT-186 begin claims the files, starts the ticket and links the session", async () => {
  const b = await board();
  const t = await ticket(b, { status: "backlog" });
  const res = await begin(b.dev.token, { ticketId: t.ref, files: ["src/a.ts", "src/b.ts"] });
  assert.equal(res.status, 200, res.text);
  assert.deepEqual(res.body.data.ticket, { id: t.id, status: "in_progress" });
  assert.equal(res.body.data.sessionId, b.dev.sessionId);
  assert.equal(typeof res.body.data.nextAction.action, "string");
  assert.deepEqual(res.body.data.claims.map((c: { file: string }) => c.file), ["src/a.ts", "src/b.ts"]);
  const row = await ticketRow(t.id);
  assert.equal(row.status, "in_progress");
  assert.equal(row.assignee_agent_id, b.dev.agentId);
  assert.deepEqual(await liveFiles(b, b.dev.agentId), ["src/a.ts", "src/b.ts"]);
  const { db } = await env();
  const session = await db.selectFrom("sessions").select("ticket_id").where("id", "=", b.dev.sessionId)
    .executeTakeFirstOrThrow();
  assert.equal(session.ticket_id, t.id);
});

test("TKT-183 a file held by another: 409 CONFLICT with details.conflicts, nothing half-applied", async () => {
  const b = await board();
  const t = await ticket(b, { status: "backlog", acknowledged: false });
  await insertClaim(b.projectId, { agentId: b.other.agentId, files: ["src/b.ts"] });
  const res = await begin(b.dev.token, {
    ticketId: t.id,
    files: ["src/a.ts", "src/b.ts"],
    acknowledgeCriteria: true,
  });
  assert.equal(res.status, 409, res.text);
  assert.equal(res.body.error.code, "CONFLICT");
  assert.equal(res.body.error.details.conflicts.length, 1);
  const row = await ticketRow(t.id);
  assert.equal(row.status, "backlog");
  assert.equal(row.assignee_agent_id, null);
  assert.equal(row.criteria_acknowledged_at, null, "the acknowledgement rolled back too");
  assert.deepEqual(await liveFiles(b, b.dev.agentId), []);
});

test("TKT-183 begin of a done ticket answers 422 and claims nothing", async () => {
  const b = await board();
  const t = await ticket(b, { status: "done" });
  const res = await begin(b.dev.token, { ticketId: t.id, files: ["src/a.ts"] });
  assert.equal(res.status, 422);
  assert.deepEqual(await liveFiles(b), []);
});

test("TKT-182 begin needs the generator role", async () => {
  const b = await board();
  const t = await ticket(b);
  for (const agent of [b.evaluator, b.orchestrator]) {
    const res = await begin(agent.token, { ticketId: t.id, files: ["src/a.ts"] });
    assert.equal(res.status, 403);
    assert.equal(res.body.error.code, "FORBIDDEN");
    assert.equal(typeof res.body.error.details.guidance, "string");
  }
  const orch = await begin(b.orchestrator.token, { ticketId: t.id, files: ["src/a.ts"] });
  assert.equal(orch.body.error.details.recovery.action, "MINT_SUBAGENT_SESSION");
});

test("TKT-184 files holds 1 to 20 paths", async () => {
  const b = await board({ reviewMode: "light" });
  const files = (n: number) => Array.from({ length: n }, (_, i) => `src/f${i}.ts`);
  const t = await ticket(b);
  assert.equal((await begin(b.dev.token, { ticketId: t.id, files: [] })).status, 400);
  assert.equal((await begin(b.dev.token, { ticketId: t.id, files: files(21) })).status, 400);
  assert.equal((await begin(b.dev.token, { ticketId: t.id })).status, 400);
  assert.equal((await begin(b.dev.token, { ticketId: t.id, files: files(20) })).status, 200);
  const u = await ticket(b);
  assert.equal((await begin(b.dev.token, { ticketId: u.id, files: ["src/one.ts"] })).status, 200);
});

test("TKT-185 acknowledgeCriteria acknowledges before moving, so guard 3 passes", async () => {
  const b = await board();
  const t = await ticket(b, { acknowledged: false, criteria: [{ title: "A" }, { title: "B" }] });
  const refused = await begin(b.dev.token, { ticketId: t.id, files: ["src/a.ts"] });
  assert.equal(refused.status, 400);
  assert.equal(refused.body.error.details.recovery.action, "ACKNOWLEDGE_CRITERIA");
  assert.equal(refused.body.error.details.acceptanceCriteria.length, 2);
  assert.equal(refused.body.error.details.nextStep.payload.acknowledgeCriteria, true);
  assert.deepEqual(await liveFiles(b), []);
  const res = await begin(b.dev.token, { ticketId: t.id, files: ["src/a.ts"], acknowledgeCriteria: true });
  assert.equal(res.status, 200, res.text);
  assert.notEqual((await ticketRow(t.id)).criteria_acknowledged_at, null);
});

test("TKT-187 no criteria: 400 ADD_CRITERIA with nextStep to acknowledge with additionalCriteria", async () => {
  const b = await board({ reviewMode: "strict" });
  const t = await ticket(b, { criteria: [], acknowledged: false });
  const res = await begin(b.dev.token, { ticketId: t.id, files: ["src/a.ts"], acknowledgeCriteria: true });
  assert.equal(res.status, 400);
  assert.equal(res.body.error.details.recovery.action, "ADD_CRITERIA");
  assert.equal(res.body.error.details.nextStep.tool, "svc_ticket_acknowledge");
  assert.ok(res.body.error.details.nextStep.payload.additionalCriteria);
});

test("TKT-187 begin of a ticket assigned to another agent: 409; unknown ticket: 404", async () => {
  const b = await board();
  const t = await ticket(b, { status: "claimed", assignee: b.other.agentId });
  const res = await begin(b.dev.token, { ticketId: t.id, files: ["src/a.ts"] });
  assert.equal(res.status, 409);
  assert.deepEqual(await liveFiles(b), []);
  const missing = await begin(b.dev.token, { ticketId: `${b.prefix}-4040`, files: ["src/a.ts"] });
  assert.equal(missing.status, 404);
  assert.equal(missing.body.error.details.recovery.action, "RESOLVE_TICKET_REF");
});

test("TKT-187 begin again on the caller's in-progress ticket renews claims without a status write", async () => {
  const b = await board();
  const t = await ticket(b, { status: "in_progress", assignee: b.dev.agentId });
  const res = await begin(b.dev.token, { ticketId: t.id, files: ["src/a.ts"] });
  assert.equal(res.status, 200, res.text);
  const again = await begin(b.dev.token, { ticketId: t.id, files: ["src/a.ts", "src/c.ts"] });
  assert.equal(again.status, 200, again.text);
  assert.deepEqual(await liveFiles(b, b.dev.agentId), ["src/a.ts", "src/c.ts"]);
});

test("TKT-031 begin of a human-only ticket is refused", async () => {
  const b = await board();
  const t = await ticket(b, { humanOnly: true });
  const res = await begin(b.dev.token, { ticketId: t.id, files: ["src/a.ts"] });
  assert.equal(res.status, 403);
  assert.deepEqual(await liveFiles(b), []);
});

test("TKT-187 begin of the caller's ticket in review takes it back to work and clears the stale handoff", async () => {
  const b = await board();
  const t = await ticket(b, {
    status: "review",
    assignee: b.dev.agentId,
    reviewHandoff: { summary: "s", changedFiles: ["src/a.ts"], branch: "b" },
  });
  const res = await begin(b.dev.token, { ticketId: t.id, files: ["src/a.ts"] });
  assert.equal(res.status, 200, res.text);
  const row = await ticketRow(t.id);
  assert.equal(row.status, "in_progress");
  assert.equal(row.review_handoff, null);
});

test("TKT-183 concurrent begins by one agent that share a file all succeed (an agent is never refused by itself)", async () => {
  const b = await board();
  const tickets = await Promise.all(Array.from({ length: 4 }, () => ticket(b, { status: "backlog" })));
  const results = await Promise.all(
    tickets.map((t, i) =>
      begin(b.dev.token, { ticketId: t.id, files: ["src/shared.ts", `src/own-${i}.ts`] })
    ),
  );
  assert.deepEqual(results.map((r) => r.status), [200, 200, 200, 200], results.map((r) => r.text).join("\n"));
  assert.deepEqual(await liveFiles(b, b.dev.agentId), [
    "src/own-0.ts",
    "src/own-1.ts",
    "src/own-2.ts",
    "src/own-3.ts",
    "src/shared.ts",
  ]);
});

test("TKT-183 rounds of six concurrent begins by one agent that share a file: every begin succeeds, every round", async () => {
  // The race is timing-dependent (PostgreSQL: a begin that loses the shared file to its own sibling must
  // renew it without waiting on a lock while holding the event counter), so several rounds.
  for (let round = 0; round < 4; round++) {
    const b = await board();
    const tickets = await Promise.all(Array.from({ length: 6 }, () => ticket(b, { status: "backlog" })));
    const results = await Promise.all(
      tickets.map((t, i) =>
        begin(b.dev.token, { ticketId: t.id, files: [`src/own-${i}.ts`, "src/shared.ts"] })
      ),
    );
    assert.deepEqual(
      results.map((r) => r.status),
      [200, 200, 200, 200, 200, 200],
      `round ${round}: ${results.map((r) => r.text).join("\n")}`,
    );
    assert.deepEqual(await liveFiles(b, b.dev.agentId), [
      ...Array.from({ length: 6 }, (_, i) => `src/own-${i}.ts`),
      "src/shared.ts",
    ]);
    for (const t of tickets) assert.equal((await ticketRow(t.id)).status, "in_progress");
  }
});

test("TKT-183 concurrent begins racing another agent for a file: one side gets it, the other's 409 names the real holder", async () => {
  for (let round = 0; round < 3; round++) {
    const b = await board();
    const tickets = await Promise.all(Array.from({ length: 4 }, () => ticket(b, { status: "backlog" })));
    const theirs = await ticket(b, { status: "backlog" });
    const [other, ...mine] = await Promise.all([
      begin(b.other.token, { ticketId: theirs.id, files: ["src/shared.ts", "src/theirs.ts"] }),
      ...tickets.map((t, i) =>
        begin(b.dev.token, { ticketId: t.id, files: ["src/shared.ts", `src/own-${i}.ts`] })
      ),
    ]);
    const texts = [other!, ...mine].map((r) => r.text).join("\n");
    // The other agent won the shared file and every begin of dev is refused, or the other way round.
    const [winner, losers, winners] = other!.status === 200
      ? [b.other, mine, [other!]]
      : [b.dev, [other!], mine];
    assert.ok(winners.every((r) => r.status === 200), texts);
    for (const r of losers) {
      assert.equal(r.status, 409, texts);
      assert.equal(r.body.error.code, "CONFLICT");
      // Only the contested file, held by the winner under its own name (never "another agent").
      assert.deepEqual(
        r.body.error.details.conflicts.map((
          c: { file: string; claimantName: string },
        ) => [c.file, c.claimantName]),
        [["src/shared.ts", winner.name]],
        texts,
      );
    }
  }
});
