import assert from "node:assert/strict";
import { sql } from "kysely";
import { createApp } from "@/app.ts";
import { systemClock } from "@/clock.ts";
import { contractChecked } from "../helpers/contract-check.ts";
import { insertSubAgent } from "../helpers/fixtures.ts";
import {
  admin,
  advanceClock,
  call,
  callOn,
  env,
  newProject,
  pairAgent,
  test,
  type TestEnv,
} from "../helpers/mod.ts";

/** Another instance of the service on the test file's database (as another process would be). */
async function instance(): Promise<TestEnv> {
  const e = await env();
  const app = createApp({ db: e.db, engine: e.engine, clock: systemClock(), config: e.config });
  return {
    ...e,
    fetch: contractChecked((path: string, init?: RequestInit) =>
      Promise.resolve(app.fetch(new Request(`http://localhost:8787${path}`, init)))
    ),
    close: () => Promise.resolve(),
  };
}

async function ledgerCount(projectId: string): Promise<number> {
  const { db } = await env();
  const row = await db.selectFrom("ledger_entries").select(sql<number>`count(*)::int`.as("n"))
    .where("project_id", "=", projectId).executeTakeFirstOrThrow();
  return row.n;
}

test("PROOF-1 fences are strictly increasing across 32 concurrent grants on 3 instances; renewals keep them", async () => {
  const { projectId } = await newProject();
  const instances = [await env(), await instance(), await instance()];
  const keys: string[] = [];
  for (let i = 0; i < 32; i++) {
    keys.push((await admin("POST", `/projects/${projectId}/api-keys`, { agentName: `fencer-${i}` })).key);
  }
  const before = await call("POST", "/claim", { token: keys[0]!, body: { files: ["src/first.ts"] } });
  assert.equal(before.status, 200, before.text);
  const first = before.body.data.claims[0].fence;
  assert.ok(Number.isInteger(first) && first > 0);
  const results = await Promise.all(keys.map((token, i) =>
    callOn(instances[i % 3]!, "POST", "/api/claim", {
      token,
      body: { files: [`src/f${i}.ts`, `src/g${i}.ts`] },
    })
  ));
  const fences: number[] = [];
  for (const r of results) {
    assert.equal(r.status, 200, r.text);
    for (const c of r.body.data.claims) fences.push(c.fence);
  }
  assert.equal(new Set(fences).size, 64, "every grant has its own fence");
  assert.ok(fences.every((f) => Number.isInteger(f) && f > first), "each is greater than every earlier one");
  const after = await call("POST", "/claim", { token: keys[1]!, body: { files: ["src/last.ts"] } });
  assert.ok(after.body.data.claims[0].fence > Math.max(...fences));

  // A renewal keeps the entry's fence; GET /claim/check shows it for held entries only.
  const renewed = await call("POST", "/claim", { token: keys[0]!, body: { files: ["src/first.ts"] } });
  assert.equal(renewed.body.data.renewed, true);
  assert.equal(renewed.body.data.claims[0].fence, first);
  const check = await call("GET", "/claim/check?files=SRC/first.ts,src/free.ts", { token: keys[5]! });
  assert.equal(check.body.data.files[0].fence, first);
  assert.equal(check.body.data.files[1].fence, undefined);

  // Released and granted again (to anyone): a greater fence.
  await call("POST", "/release", { token: keys[0]!, body: { files: ["src/first.ts"] } });
  const again = await call("POST", "/claim", { token: keys[2]!, body: { files: ["src/first.ts"] } });
  assert.ok(again.body.data.claims[0].fence > after.body.data.claims[0].fence);
});

test("PROOF-1 POST /begin returns a fence per claimed entry", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  await call("PATCH", "/brief", { token: a.token, body: { scope: "A small demo project" } });
  const created = await call("POST", "/ticket", {
    token: a.token,
    body: {
      title: "Fenced work",
      expectedFiles: ["src/b1.ts"],
      doneDefinition: "Both files are written",
      verificationCommand: "deno test tests/b",
      riskClass: "local",
      acceptanceCriteria: [{ title: "Works", requiresEvidence: false }],
    },
  });
  assert.equal(created.status, 201, created.text);
  const res = await call("POST", "/begin", {
    token: a.token,
    body: { ticketId: created.body.data.id, files: ["src/b1.ts", "src/b2.ts"], acknowledgeCriteria: true },
  });
  assert.equal(res.status, 200, res.text);
  const [one, two] = res.body.data.claims;
  assert.ok(one.fence > 0 && two.fence > 0 && one.fence !== two.fence);
});

test("PROOF-1 a stale fence after expiry and a re-grant to another agent: 409 FENCE_STALE on ledger and handoff, nothing written", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const b = await pairAgent(projectId);
  const mine = await call("POST", "/claim", { token: a.token, body: { files: ["src/s.ts"] } });
  const stale = mine.body.data.claims[0].fence;
  const ok = await call("POST", "/ledger", {
    token: a.token,
    body: { type: "PROGRESS", content: "editing", fileRef: "src/s.ts", fence: stale },
  });
  assert.equal(ok.status, 201, ok.text);
  await advanceClock(31 * 60_000);
  const theirs = await call("POST", "/claim", { token: b.token, body: { files: ["src/s.ts"] } });
  assert.equal(theirs.status, 200, theirs.text);
  const current = theirs.body.data.claims[0].fence;
  assert.ok(current > stale);

  const count = await ledgerCount(projectId);
  const refused = await call("POST", "/ledger", {
    token: a.token,
    body: { type: "PROGRESS", content: "still editing", fileRef: "src/s.ts", fence: stale },
  });
  assert.equal(refused.status, 409, refused.text);
  assert.equal(refused.body.error.code, "FENCE_STALE");
  assert.deepEqual(
    { ...refused.body.error.details, recovery: refused.body.error.details.recovery.action },
    { file: "src/s.ts", yourFence: stale, currentFence: current, holder: b.name, recovery: "RECLAIM_FILES" },
  );
  assert.equal(await ledgerCount(projectId), count, "nothing written");

  const handoff = await call("POST", "/handoff", {
    token: a.token,
    body: {
      moduleName: "m",
      summary: "s",
      sessionId: a.sessionId,
      changedFiles: [{ file: "src/s.ts", fence: stale }],
    },
  });
  assert.equal(handoff.status, 409, handoff.text);
  assert.equal(handoff.body.error.code, "FENCE_STALE");
  assert.equal(handoff.body.error.details.recovery.action, "RECLAIM_FILES");
  assert.equal(await ledgerCount(projectId), count, "nothing written");
  const { db } = await env();
  const session = await db.selectFrom("sessions").select("status").where("id", "=", a.sessionId)
    .executeTakeFirstOrThrow();
  assert.notEqual(session.status, "complete");

  // fence without fileRef: 400; the holder's current fence is accepted.
  const bare = await call("POST", "/ledger", {
    token: b.token,
    body: { type: "FOUND", content: "x", fence: 1 },
  });
  assert.equal(bare.status, 400);
  const good = await call("POST", "/ledger", {
    token: b.token,
    body: { type: "FOUND", content: "x", fileRef: "SRC/s.ts", fence: current },
  });
  assert.equal(good.status, 201, good.text);
});

test("PROOF-2 POST /claim/verify: held, free, other, stale, sub-agent and parent entries", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const b = await pairAgent(projectId);
  await insertSubAgent(projectId, a.agentId, "helper");
  const held = await call("POST", "/claim", { token: a.token, body: { files: ["src/a.ts"] } });
  const fence = held.body.data.claims[0].fence;
  await call("POST", "/claim", { token: a.token, body: { files: ["src/shared.ts"], allowSubAgents: true } });
  await call("POST", "/claim", { token: b.token, body: { files: ["src/b.ts"] } });
  const sub = { "X-Svc-SubAgent": "helper" };
  const subClaim = await call("POST", "/claim", {
    token: a.token,
    headers: sub,
    body: { files: ["src/sub.ts"] },
  });
  assert.equal(subClaim.status, 200, subClaim.text);

  const verify = (token: string, files: unknown[], headers: Record<string, string> = {}) =>
    call("POST", "/claim/verify", { token, headers, body: { files } });
  const all = await verify(a.token, [
    "src/a.ts",
    { file: "src/a.ts", fence },
    "src/free.ts",
    "src/b.ts",
    { file: "src/a.ts", fence: fence + 1000 },
    "src/sub.ts",
  ]);
  assert.equal(all.status, 200, all.text);
  assert.equal(all.body.data.ok, false);
  assert.deepEqual(all.body.data.files.map((f: { status: string }) => f.status), [
    "held",
    "held",
    "not_claimed",
    "held_by_other",
    "fence_stale",
    "held_by_other",
  ]);
  assert.equal(all.body.data.files[0].fence, fence);
  assert.equal(all.body.data.files[3].holder, b.name);
  assert.equal(all.body.data.files[5].holder, `${a.name}/helper`);
  assert.equal((await verify(a.token, ["./src/a.ts", "SRC/A.ts"])).body.data.ok, true);

  // The sub-agent holds its own entries and its parent's held with allowSubAgents, not the others.
  const asSub = await verify(a.token, ["src/sub.ts", "src/shared.ts", "src/a.ts"], sub);
  assert.deepEqual(asSub.body.data.files.map((f: { status: string }) => f.status), [
    "held",
    "held",
    "held_by_other",
  ]);
  assert.equal((await verify(a.token, ["src/sub.ts", "src/shared.ts"], sub)).body.data.ok, true);

  // Expired: a fence sent is stale, a path alone is not claimed.
  await advanceClock(31 * 60_000);
  const later = await verify(a.token, [{ file: "src/a.ts", fence }, "src/a.ts"]);
  assert.deepEqual(later.body.data.files.map((f: { status: string }) => f.status), [
    "fence_stale",
    "not_claimed",
  ]);

  assert.equal((await verify(a.token, [])).status, 400);
  const tooMany = await verify(a.token, Array.from({ length: 501 }, (_, i) => `src/x${i}.ts`));
  assert.equal(tooMany.status, 400);
  assert.equal(tooMany.body.error.code, "VALIDATION_ERROR");
});

test("PROOF-1 a restored claim (reconnect in the grace period) is a new grant: greater fences, the old one stale", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const first = await call("POST", "/claim", { token: a.token, body: { files: ["src/r1.ts", "src/r2.ts"] } });
  const old = first.body.data.claims.map((c: { fence: number }) => c.fence);
  // Pairing again completes the agent's open sessions: its claims enter the grace period.
  const again = await pairAgent(projectId, { name: a.name });
  const restored = await call("POST", "/claim", {
    token: again.token,
    body: { files: ["src/r1.ts", "src/r2.ts"] },
  });
  assert.equal(restored.status, 200, restored.text);
  assert.equal(restored.body.data.restored, true);
  const fresh = restored.body.data.claims.map((c: { fence: number }) => c.fence);
  assert.ok(Math.min(...fresh) > Math.max(...old), `${fresh} > ${old}`);
  const verify = await call("POST", "/claim/verify", {
    token: again.token,
    body: { files: [{ file: "src/r1.ts", fence: old[0] }, { file: "src/r1.ts", fence: fresh[0] }] },
  });
  assert.deepEqual(verify.body.data.files.map((f: { status: string }) => f.status), ["fence_stale", "held"]);
});
