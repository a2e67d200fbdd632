import assert from "node:assert/strict";
import { ADMIN_TOKEN, advanceClock, call, env, newProject, pairAgent, test } from "../helpers/mod.ts";
import { insertClaim, insertSubAgent } from "../helpers/fixtures.ts";
import { board, liveFiles, patch, ticket } from "../workflow/fixtures.ts";

// A claim that sweeps away expired claims of several agents records one `claim.released` event per
// owner, attributed to that owner, with only that owner's claim ids and files.

async function claim(token: string, files: string[], extra: Record<string, unknown> = {}) {
  const res = await call("POST", "/claim", { token, body: { files, ...extra } });
  assert.equal(res.status, 200, res.text);
  return res.body.data;
}

test("claim.released (reason expired): one event per owner of the swept claims, each under its owner's agentId", async () => {
  const { projectId } = await newProject();
  const [a, b, c] = await Promise.all([pairAgent(projectId), pairAgent(projectId), pairAgent(projectId)]);
  await claim(a!.token, ["src/a1.ts", "src/a2.ts"], { estimatedSeconds: 60 });
  await claim(b!.token, ["src/b1.ts"], { estimatedSeconds: 60 });
  const { db } = await env();
  const idsOf = async (agentId: string) =>
    (await db.selectFrom("claims").select("id").where("agent_id", "=", agentId).execute()).map((r) => r.id);
  const [aIds, bIds] = [await idsOf(a!.agentId), await idsOf(b!.agentId)];
  await advanceClock(2 * 60_000);
  const before = await call("GET", "/events?limit=500", { token: c!.token });
  const since = before.body.data.nextCursor;
  await claim(c!.token, ["src/a1.ts", "src/b1.ts"]);
  const page = await call("GET", `/events?since=${since}&kinds=claim.released`, { token: c!.token });
  assert.equal(page.status, 200, page.text);
  const events = page.body.data.events as Array<
    { agentId: string; entityId: string; data: Record<string, unknown> }
  >;
  assert.equal(events.length, 2, page.text);
  const byAgent = new Map(events.map((e) => [e.agentId, e]));
  assert.deepEqual(byAgent.get(a!.agentId)?.data, {
    claimIds: aIds,
    files: ["src/a1.ts", "src/a2.ts"],
    reason: "expired",
  });
  assert.deepEqual(byAgent.get(b!.agentId)?.data, {
    claimIds: bIds,
    files: ["src/b1.ts"],
    reason: "expired",
  });
  assert.equal(byAgent.get(a!.agentId)?.entityId, aIds[0]);
  assert.equal(byAgent.get(b!.agentId)?.entityId, bIds[0]);
});

// An approval releases every claim on the ticket, whoever holds it: each holder's CONTEXT entry and each
// owner's `claim.released` event are attributed to that holder or owner, never all to the first one.
test("TKT-076 approve: one claim.released per owner of the ticket's claims and a CONTEXT entry per holder, each attributed to it", async () => {
  const b = await board({ reviewMode: "light" });
  const t = await ticket(b, { status: "review", assignee: b.dev.agentId });
  await insertSubAgent(b.projectId, b.dev.agentId, "kid");
  const devOwn = await insertClaim(b.projectId, {
    agentId: b.dev.agentId,
    ticketId: t.id,
    files: ["src/d.ts"],
  });
  const devKid = await insertClaim(b.projectId, {
    agentId: b.dev.agentId,
    subAgentName: "kid",
    ticketId: t.id,
    files: ["src/k1.ts", "src/k2.ts"],
  });
  const other = await insertClaim(b.projectId, {
    agentId: b.other.agentId,
    ticketId: t.id,
    files: ["src/o.ts"],
  });
  const elsewhere = await insertClaim(b.projectId, { agentId: b.other.agentId, files: ["src/x.ts"] });
  const { db } = await env();
  const since = await db.selectFrom("event_cursors").select("seq").where("project_id", "=", b.projectId)
    .executeTakeFirstOrThrow();
  const res = await patch(b.dev.token, { ticketId: t.id, action: "approve" });
  assert.equal(res.status, 200, res.text);
  const released = await db.selectFrom("events").select(["agent_id", "entity_id", "data"])
    .where("project_id", "=", b.projectId).where("seq", ">", since.seq).where("kind", "=", "claim.released")
    .orderBy("seq").execute();
  const byAgent = new Map(released.map((e) => [e.agent_id, e]));
  assert.equal(released.length, 2, JSON.stringify(released));
  assert.deepEqual(byAgent.get(b.dev.agentId)?.data, {
    claimIds: [devOwn, devKid].sort(),
    files: ["src/d.ts", "src/k1.ts", "src/k2.ts"],
    ticketId: t.id,
  });
  assert.equal(byAgent.get(b.dev.agentId)?.entity_id, [devOwn, devKid].sort()[0]);
  assert.deepEqual(byAgent.get(b.other.agentId)?.data, {
    claimIds: [other],
    files: ["src/o.ts"],
    ticketId: t.id,
  });
  assert.equal(byAgent.get(b.other.agentId)?.entity_id, other);
  const entries = await db.selectFrom("ledger_entries")
    .select(["id", "agent_id", "sub_agent_name", "ticket_id", "file_ref", "content", "payload"])
    .where("project_id", "=", b.projectId).where("type", "=", "CONTEXT").where("content", "like", "Released%")
    .orderBy("content").execute();
  const rows = entries.map((
    e,
  ) => [e.agent_id, e.sub_agent_name, e.ticket_id, e.file_ref, e.content, e.payload]);
  const expected = [
    [b.dev.agentId, null, t.id, "src/d.ts", "Released src/d.ts", { action: "release", files: ["src/d.ts"] }],
    [b.dev.agentId, "kid", t.id, null, "Released src/k1.ts, src/k2.ts", {
      action: "release",
      files: ["src/k1.ts", "src/k2.ts"],
    }],
    [b.other.agentId, null, t.id, "src/o.ts", "Released src/o.ts", {
      action: "release",
      files: ["src/o.ts"],
    }],
  ];
  assert.deepEqual(rows, expected);
  // Each entry has its ledger.appended, under the entry's agent.
  const appended = await db.selectFrom("events").select(["entity_id", "agent_id"])
    .where("project_id", "=", b.projectId).where("seq", ">", since.seq).where("kind", "=", "ledger.appended")
    .execute();
  for (const e of entries) {
    assert.ok(appended.some((a) => a.entity_id === e.id && a.agent_id === e.agent_id), e.id);
  }
  // The claim on another ticket stays.
  assert.deepEqual(await liveFiles(b), ["src/x.ts"]);
  assert.ok(elsewhere);
});

test("claim.released: revoking an agent releases its and its sub-agents' claims with one event for that owner and an entry per holder", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  await insertSubAgent(projectId, agent.agentId, "kid");
  const own = await insertClaim(projectId, { agentId: agent.agentId, files: ["src/p.ts"] });
  const kid = await insertClaim(projectId, {
    agentId: agent.agentId,
    subAgentName: "kid",
    files: ["src/k.ts"],
  });
  const res = await call("POST", `/admin/projects/${projectId}/agents/${agent.agentId}/revoke`, {
    token: ADMIN_TOKEN,
  });
  assert.equal(res.status, 200, res.text);
  assert.deepEqual([...res.body.data.releasedFiles].sort(), ["src/k.ts", "src/p.ts"]);
  const { db } = await env();
  const released = await db.selectFrom("events").select(["agent_id", "data"]).where(
    "project_id",
    "=",
    projectId,
  )
    .where("kind", "=", "claim.released").execute();
  assert.deepEqual(released.map((e) => [e.agent_id, e.data]), [[agent.agentId, {
    claimIds: [own, kid].sort(),
    files: ["src/k.ts", "src/p.ts"],
    ticketId: null,
  }]]);
  const entries = await db.selectFrom("ledger_entries").select(["agent_id", "sub_agent_name", "content"])
    .where("project_id", "=", projectId).where("type", "=", "CONTEXT").where("content", "like", "Released%")
    .orderBy("content").execute();
  assert.deepEqual(entries.map((e) => [e.agent_id, e.sub_agent_name, e.content]), [
    [agent.agentId, "kid", "Released src/k.ts"],
    [agent.agentId, null, "Released src/p.ts"],
  ]);
});
