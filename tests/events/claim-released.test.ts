import assert from "node:assert/strict";
import { advanceClock, call, env, newProject, pairAgent, test } from "../helpers/mod.ts";

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
