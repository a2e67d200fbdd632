import assert from "node:assert/strict";
import { env, test } from "../helpers/mod.ts";
import { ticketRow } from "../helpers/fixtures.ts";
import {
  apiKeyFor,
  entriesOf,
  handOff,
  liveClaimFiles,
  type Ready,
  ready,
  sessionRow,
} from "../handoff/fixtures.ts";

/**
 * Races of POST /handoff (issue 8, item 4). The other races live with their areas: claims
 * (tests/claims/concurrency.test.ts, CLAIM-023), compare-and-swap moves (tests/workflow/guards.test.ts,
 * TKT-097), ticket numbers and idempotency keys (tests/tickets/create.test.ts TKT-002, TKT-118;
 * tests/sprints/assign.test.ts SPRINT-041); artifacts and credentials are in this folder.
 */

async function invariants(r: Ready) {
  const { db } = await env();
  const entries = await entriesOf(r.agent.sessionId);
  const released = await db.selectFrom("claim_files as f").innerJoin("claims as c", "c.id", "f.claim_id")
    .select(["f.file", "f.released_at"]).where("c.agent_id", "=", r.agent.agentId).execute();
  const events = await db.selectFrom("events").select("kind").where("project_id", "=", r.projectId)
    .where("kind", "in", ["handoff.completed", "ticket.moved", "session.completed"]).execute();
  return {
    done: entries.filter((e) => e.type === "DONE").length,
    completed: entries.filter((e) => e.type === "AGENT_COMPLETED").length,
    releases: entries.filter((e) => e.type === "STATUS" && e.payload?.action === "handoff_release")
      .map((e) => e.payload?.files),
    liveClaims: await liveClaimFiles(r.agent.agentId),
    releasedFiles: released.filter((f) => f.released_at !== null).map((f) => f.file),
    events: events.map((e) => e.kind).sort(),
  };
}

const ONCE = {
  done: 1,
  completed: 1,
  releases: [["src/a.ts"]],
  liveClaims: [],
  releasedFiles: ["src/a.ts"],
  events: ["handoff.completed", "session.completed", "ticket.moved"],
};

test("HAND-038 HAND-040 two handoffs of one session at once (API key): one DONE, the other answers duplicate", async () => {
  const r = await ready();
  const key = await apiKeyFor(r.projectId, r.agent.name);
  const results = await Promise.all([handOff(r, {}, key), handOff(r, {}, key)]);
  for (const res of results) assert.equal(res.status, 200, res.text);
  const duplicates = results.filter((res) => res.body.data.duplicate === true);
  assert.equal(duplicates.length, 1, results.map((res) => res.text).join("\n"));
  const winner = results.find((res) => res.body.data.duplicate !== true)!;
  assert.deepEqual(duplicates[0]!.body.data, {
    ok: true,
    modulesDone: winner.body.data.modulesDone,
    duplicate: true,
  });
  assert.deepEqual(await invariants(r), ONCE);
  assert.equal((await ticketRow(r.ticket!.id)).status, "review");
  assert.equal((await sessionRow(r.agent.sessionId)).status, "complete");
});

test("HAND-038 HAND-041 two handoffs of one session at once (session token): one DONE; the other duplicate or 401", async () => {
  const r = await ready();
  const results = await Promise.all([handOff(r), handOff(r)]);
  const ok = results.filter((res) => res.status === 200 && res.body.data.duplicate !== true);
  assert.equal(ok.length, 1, results.map((res) => res.text).join("\n"));
  const other = results.find((res) => res !== ok[0])!;
  if (other.status === 200) {
    // Authenticated before the winner revoked the token: the repeat's answer.
    assert.deepEqual(other.body.data, {
      ok: true,
      modulesDone: ok[0]!.body.data.modulesDone,
      duplicate: true,
    });
  } else {
    // Authenticated after: the token is revoked (HAND-041).
    assert.equal(other.status, 401, other.text);
    assert.equal(other.body.error.code, "UNAUTHORIZED");
  }
  assert.deepEqual(await invariants(r), ONCE);
});

test("HAND-038 HAND-040 ten handoffs of one session without a ticket at once: one DONE, nine duplicates", async () => {
  const r = await ready({ ticket: false });
  const key = await apiKeyFor(r.projectId, r.agent.name);
  const results = await Promise.all(Array.from({ length: 10 }, () => handOff(r, {}, key)));
  for (const res of results) assert.equal(res.status, 200, res.text);
  assert.equal(results.filter((res) => res.body.data.duplicate === true).length, 9);
  assert.deepEqual(await invariants(r), {
    ...ONCE,
    events: ["handoff.completed", "session.completed"],
  });
});
