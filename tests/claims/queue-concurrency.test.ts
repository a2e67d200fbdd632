import assert from "node:assert/strict";
import { createApp } from "@/app.ts";
import { systemClock } from "@/clock.ts";
import { contractChecked } from "../helpers/contract-check.ts";
import { startBackgroundWork } from "@/worker.ts";
import {
  advanceClock,
  call,
  callOn,
  env,
  newProject,
  pairAgent,
  test,
  type TestEnv,
} from "../helpers/mod.ts";

/**
 * The claim wait queue under concurrency (issue 24 points 1, 2 and 4): run on PGlite by default and on
 * PostgreSQL with TEST_DATABASE_URL (a pool of connections: real races).
 */

async function claim(token: string, body: Record<string, unknown>, on?: TestEnv) {
  return on
    ? await callOn(on, "POST", "/api/claim", { token, body })
    : await call("POST", "/claim", { token, body });
}

async function holderOf(projectId: string, file: string): Promise<string[]> {
  const { db } = await env();
  const rows = await db.selectFrom("claim_files as f").innerJoin("claims as c", "c.id", "f.claim_id")
    .select("c.agent_id").where("f.project_id", "=", projectId).where("f.file", "=", file)
    .where("f.released_at", "is", null).where("c.released_at", "is", null).execute();
  return rows.map((r) => r.agent_id);
}

/** A second app on the test file's database: another instance, or the service after a restart. */
async function anotherInstance(): Promise<TestEnv> {
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

test("CLAIMQ-2 32 concurrent waiters: unique positions, granted one at a time in arrival order, no double grant", async () => {
  const { projectId } = await newProject();
  const holder = await pairAgent(projectId);
  const waiters = await Promise.all(Array.from({ length: 32 }, () => pairAgent(projectId)));
  assert.equal((await claim(holder.token, { files: ["src/hot.ts"] })).status, 200);
  const answers = await Promise.all(
    waiters.map((w) => claim(w.token, { files: ["src/hot.ts"], waitSeconds: 3600 })),
  );
  for (const res of answers) assert.equal(res.status, 202, res.text);
  const positions = answers.map((r) => r.body.data.request.position["src/hot.ts"] as number);
  assert.deepEqual([...positions].sort((a, b) => a - b), Array.from({ length: 32 }, (_, i) => i));
  // Arrival order: the order of positions.
  const order = waiters.map((w, i) => ({ w, position: positions[i]! })).sort((a, b) =>
    a.position - b.position
  );
  let current = holder;
  for (const { w } of order) {
    const released = await call("POST", "/release", { token: current.token, body: { all: true } });
    assert.equal(released.status, 200, released.text);
    assert.deepEqual(await holderOf(projectId, "src/hot.ts"), [w.agentId]);
    current = w;
  }
  const { db } = await env();
  const granted = await db.selectFrom("events").select("data").where("project_id", "=", projectId)
    .where("kind", "=", "claim.granted").execute();
  assert.equal(granted.length, 32);
  assert.equal(new Set(granted.map((g) => (g.data as { requestId: string }).requestId)).size, 32);
});

test("CLAIMQ-2 concurrent releases and waits on several hot files never grant one file twice", async () => {
  const { projectId } = await newProject();
  const agents = await Promise.all(Array.from({ length: 12 }, () => pairAgent(projectId)));
  const files = ["src/h1.ts", "src/h2.ts", "src/h3.ts"];
  // Everyone claims or waits for one or two hot files, all at once, then everyone releases at once, twice.
  for (let round = 0; round < 2; round++) {
    const asks = await Promise.all(agents.map((a, i) =>
      claim(a.token, {
        files: i % 3 === 0 ? [files[i % 3]!, files[(i + 1) % 3]!] : [files[i % 3]!],
        waitSeconds: 600,
      })
    ));
    for (const res of asks) assert.ok([200, 202, 409].includes(res.status), res.text);
    await Promise.all(agents.map((a) => call("POST", "/release", { token: a.token, body: { all: true } })));
  }
  for (const file of files) assert.ok((await holderOf(projectId, file)).length <= 1, file);
  const { db } = await env();
  const events = await db.selectFrom("events").select("data").where("project_id", "=", projectId)
    .where("kind", "=", "claim.granted").execute();
  const ids = events.map((e) => (e.data as { requestId: string }).requestId);
  assert.equal(new Set(ids).size, ids.length, "a request is granted once");
});

test("CLAIMQ-4 two racing waits that would close a cycle: exactly one is refused with DEADLOCK", async () => {
  for (let i = 0; i < 4; i++) {
    const { projectId } = await newProject();
    const a = await pairAgent(projectId);
    const b = await pairAgent(projectId);
    await claim(a.token, { files: ["src/x.ts"] });
    await claim(b.token, { files: ["src/y.ts"] });
    const [ra, rb] = await Promise.all([
      claim(a.token, { files: ["src/y.ts"], waitSeconds: 600 }),
      claim(b.token, { files: ["src/x.ts"], waitSeconds: 600 }),
    ]);
    const statuses = [ra.status, rb.status].sort();
    assert.deepEqual(statuses, [202, 409], `${ra.text} ${rb.text}`);
    const refused = ra.status === 409 ? ra : rb;
    assert.equal(refused.body.error.code, "DEADLOCK");
    assert.equal(refused.body.error.details.cycle.length, 2);
  }
});

test("CLAIMQ-1 waiting requests survive a restart: the restarted service grants them on release", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const b = await pairAgent(projectId);
  const c = await pairAgent(projectId);
  await claim(a.token, { files: ["src/x.ts"] });
  const rb = await claim(b.token, { files: ["src/x.ts"], waitSeconds: 600 });
  const rc = await claim(c.token, { files: ["src/x.ts"], waitSeconds: 600 });
  assert.equal(rb.status, 202);
  // The service restarts: a new process (app) on the same database, nothing kept in memory.
  const restarted = await anotherInstance();
  const listed = await callOn(restarted, "GET", "/api/claim/requests?status=waiting", { token: c.token });
  assert.equal(listed.status, 200, listed.text);
  assert.deepEqual(listed.body.data.requests[0].position, { "src/x.ts": 1 });
  const released = await callOn(restarted, "POST", "/api/release", { token: a.token, body: { all: true } });
  assert.equal(released.status, 200);
  assert.deepEqual(await holderOf(projectId, "src/x.ts"), [b.agentId]);
  await callOn(restarted, "POST", "/api/release", { token: b.token, body: { all: true } });
  assert.deepEqual(await holderOf(projectId, "src/x.ts"), [c.agentId]);
  const got = await callOn(restarted, "GET", `/api/claim/requests/${rc.body.data.request.id}`, {
    token: c.token,
  });
  assert.equal(got.body.data.status, "granted");
});

test("CLAIMQ-1 the background sweep grants within 2 seconds of a claim's expiry, with no request to observe it", async () => {
  const e = await env();
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const b = await pairAgent(projectId);
  await claim(a.token, { files: ["src/x.ts"], estimatedSeconds: 60 });
  const waiting = await claim(b.token, { files: ["src/x.ts"], waitSeconds: 3600 });
  assert.equal(waiting.status, 202);
  const stop = startBackgroundWork({ db: e.db, clock: e.clock, testClock: true, log: () => {} }, 200);
  try {
    await advanceClock(60_000);
    const deadline = Date.now() + 2000;
    while (Date.now() < deadline && (await holderOf(projectId, "src/x.ts"))[0] !== b.agentId) {
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.deepEqual(await holderOf(projectId, "src/x.ts"), [b.agentId]);
  } finally {
    await stop();
  }
});
