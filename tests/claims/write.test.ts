import assert from "node:assert/strict";
import { acquireLocked, planClaim } from "@/domain/claims/acquire.ts";
import type { Holder } from "@/domain/core/claim-holders.ts";
import type { AcquireInput } from "@/domain/claims/types.ts";
import { liveHolders } from "@/domain/core/claim-holders.ts";
import { DomainError } from "@/domain/core/errors.ts";
import { advanceClock, type AgentFixture, call, env, newProject, pairAgent, test } from "../helpers/mod.ts";

// A claim decides from the holders it read, then writes everything in ONE statement (src/domain/claims/
// write.ts). Claims serialise on the project's claim lock; these tests change the holders between the read
// and the write anyway (the unique index stays a backstop, and a release takes no lock), and check that the
// statement writes nothing at all.

/** The write of a claim planned from `holders` read earlier (stale by now), in a transaction of its own. */
async function writeStale(input: AcquireInput, holders: Holder[]) {
  const { db } = await env();
  return await db.transaction().execute((trx) => acquireLocked(trx, input, holders));
}

async function claim(token: string, files: string[], extra: Record<string, unknown> = {}) {
  const res = await call("POST", "/claim", { token, body: { files, ...extra } });
  assert.equal(res.status, 200, res.text);
  return res.body.data;
}

async function inputOf(agent: AgentFixture, files: string[]): Promise<AcquireInput> {
  const { clock } = await env();
  return {
    projectId: agent.projectId,
    agentId: agent.agentId,
    agentName: agent.name,
    subAgentName: null,
    sessionId: agent.sessionId,
    ticketId: null,
    files,
    now: clock.now(),
  };
}

/** What a refused claim could have left behind: entries, events, claims. */
async function writes(projectId: string) {
  const { db } = await env();
  const count = async (table: "ledger_entries" | "events" | "claims") =>
    Number(
      (await db.selectFrom(table).select((eb) => eb.fn.countAll().as("n")).where("project_id", "=", projectId)
        .executeTakeFirstOrThrow()).n,
    );
  return {
    entries: await count("ledger_entries"),
    events: await count("events"),
    claims: await count("claims"),
  };
}

async function refusal(promise: Promise<unknown>): Promise<DomainError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof DomainError, String(error));
    return error;
  }
  assert.fail("the claim was not refused");
}

test("CLAIM-023 CLAIM-024 a free file taken between the read and the write: 409 naming the holder, nothing written", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const b = await pairAgent(projectId);
  const { db } = await env();
  const input = await inputOf(b, ["src/x.ts", "src/y.ts"]);
  const stale = await liveHolders(db, projectId, input.files, input.now);
  const plan = planClaim(input, stale);
  assert.deepEqual(plan.split.free, ["src/x.ts", "src/y.ts"]);
  await claim(a.token, ["src/y.ts"]);
  const before = await writes(projectId);

  const error = await refusal(writeStale(input, stale));
  assert.equal(error.code, "CONFLICT");
  const conflicts = error.details!.conflicts as { file: string; claimantName: string }[];
  assert.deepEqual(conflicts.map((c) => [c.file, c.claimantName]), [["src/y.ts", a.name]]);
  assert.deepEqual(await writes(projectId), before);
  const holders = await liveHolders(db, projectId, ["src/x.ts", "src/y.ts"], input.now);
  assert.deepEqual(holders.map((h) => [h.file, h.agentId]), [["src/y.ts", a.agentId]]);
});

test("CLAIM-022 an own claim released between the read and the renewal: 409, nothing written", async () => {
  const { projectId } = await newProject();
  const b = await pairAgent(projectId);
  await claim(b.token, ["src/x.ts"]);
  const { db } = await env();
  const input = await inputOf(b, ["src/x.ts", "src/new.ts"]);
  const stale = await liveHolders(db, projectId, input.files, input.now);
  const plan = planClaim(input, stale);
  assert.deepEqual(plan.split.own.map((h) => h.file), ["src/x.ts"]);
  assert.equal((await call("POST", "/release", { token: b.token, body: { all: true } })).status, 200);
  const before = await writes(projectId);

  const error = await refusal(writeStale(input, stale));
  assert.equal(error.code, "CONFLICT");
  const conflicts = error.details!.conflicts as { file: string; warning: string }[];
  assert.deepEqual(conflicts.map((c) => c.file), ["src/x.ts"]);
  assert.match(conflicts[0]!.warning, /released while it was being renewed/);
  assert.deepEqual(await writes(projectId), before);
  assert.deepEqual(await liveHolders(db, projectId, input.files, input.now), []);
});

test("LEDGER-007 a claim over an expired claim releases it in the same write: claim.released, ledger.appended, claim.acquired in a row", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const b = await pairAgent(projectId);
  const first = await claim(a.token, ["src/x.ts", "src/z.ts"], { estimatedSeconds: 60 });
  assert.equal(first.claims.length, 2);
  await advanceClock(2 * 60_000);
  const { db } = await env();
  const since = await db.selectFrom("event_cursors").select("seq").where("project_id", "=", projectId)
    .executeTakeFirstOrThrow();
  const taken = await claim(b.token, ["src/x.ts"]);
  assert.deepEqual(taken.claims.map((c: { file: string }) => c.file), ["src/x.ts"]);

  const events = await db.selectFrom("events").select(["seq", "kind", "agent_id", "data"])
    .where("project_id", "=", projectId).where("seq", ">", since.seq).orderBy("seq").execute();
  assert.deepEqual(events.map((e) => e.kind), ["claim.released", "ledger.appended", "claim.acquired"]);
  assert.deepEqual(events.map((e) => Number(e.seq) - Number(since.seq)), [1, 2, 3]);
  const released = events[0]!;
  assert.equal(released.agent_id, a.agentId);
  assert.deepEqual((released.data as { files: string[] }).files, ["src/x.ts", "src/z.ts"]);
  assert.equal((released.data as { reason: string }).reason, "expired");
  const aClaims = await db.selectFrom("claims").select("released_at").where("agent_id", "=", a.agentId)
    .execute();
  assert.ok(aClaims.every((c) => c.released_at !== null));
  assert.equal(events[2]!.agent_id, b.agentId);
});
