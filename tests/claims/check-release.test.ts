import assert from "node:assert/strict";
import { admin, advanceClock, call, env, newProject, pairAgent, test } from "../helpers/mod.ts";
import { insertSubAgent } from "../helpers/fixtures.ts";

const MIN = 60_000;

async function claim(token: string, files: string[], headers: Record<string, string> = {}) {
  const res = await call("POST", "/claim", { token, body: { files }, headers });
  assert.equal(res.status, 200, res.text);
  return res;
}

async function check(token: string, files: string, headers: Record<string, string> = {}) {
  return await call("GET", `/claim/check?files=${encodeURIComponent(files)}`, { token, headers });
}

async function release(token: string, body: unknown, headers: Record<string, string> = {}) {
  return await call("POST", "/release", { token, body, headers });
}

test("CLAIM-025 GET /claim/check needs scope read:board", async () => {
  const { projectId } = await newProject();
  const key = await admin("POST", `/projects/${projectId}/api-keys`, {
    agentName: "no-board",
    scopes: ["write:claim"],
  });
  const res = await check(key.key, "src/a.ts");
  assert.equal(res.status, 403);
  assert.equal(res.body.error.code, "FORBIDDEN");
  const ok = await admin("POST", `/projects/${projectId}/api-keys`, {
    agentName: "board",
    scopes: ["read:board"],
  });
  assert.equal((await check(ok.key, "src/a.ts")).status, 200);
});

test("CLAIM-026 files is required, 1 to 20 comma-separated paths", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const missing = await call("GET", "/claim/check", { token: a.token });
  assert.equal(missing.status, 400);
  assert.equal(missing.body.error.code, "VALIDATION_ERROR");
  const empty = await check(a.token, "");
  assert.equal(empty.status, 400);
  const twentyOne = Array.from({ length: 21 }, (_, i) => `f${i}.ts`).join(",");
  const over = await check(a.token, twentyOne);
  assert.equal(over.status, 400);
  assert.equal(over.body.error.code, "VALIDATION_ERROR");
  const twenty = await check(a.token, Array.from({ length: 20 }, (_, i) => `f${i}.ts`).join(","));
  assert.equal(twenty.status, 200);
  assert.equal(twenty.body.data.files.length, 20);
  assert.equal((await check(a.token, "one.ts")).body.data.files.length, 1);
});

test("CLAIM-027 CLAIM-028 check answers { files[] { file, available, claimant?, isSelf?, isStale?, claimedAt? } }", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const b = await pairAgent(projectId);
  await insertSubAgent(projectId, b.agentId, "scout");
  await claim(a.token, ["src/a.ts"]);
  await claim(b.token, ["src/b.ts"], { "X-Svc-SubAgent": "scout" });
  const res = await check(a.token, "src/a.ts,src/b.ts,src/free.ts");
  assert.equal(res.status, 200);
  const [held, sub, free] = res.body.data.files;
  assert.equal(held.file, "src/a.ts");
  assert.equal(held.available, false);
  assert.equal(held.claimant, a.name);
  assert.equal(held.isSelf, true);
  assert.equal(held.isStale, false);
  assert.equal(typeof held.claimedAt, "string");
  assert.equal(sub.claimant, `${b.name}/scout`);
  assert.equal(sub.isSelf, false);
  assert.deepEqual(free, { file: "src/free.ts", available: true });
  // The sub-agent sees its own claim as isSelf; its parent does not.
  const asSub = await check(b.token, "src/b.ts", { "X-Svc-SubAgent": "scout" });
  assert.equal(asSub.body.data.files[0].isSelf, true);
  assert.equal((await check(b.token, "src/b.ts")).body.data.files[0].isSelf, false);
});

test("CLAIM-003 check reports isStale after 10 minutes and available once the claim expired", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const b = await pairAgent(projectId);
  await call("POST", "/claim", { token: a.token, body: { files: ["src/s.ts"], estimatedSeconds: 720 } });
  await advanceClock(10 * MIN + 5_000);
  const stale = await check(b.token, "src/s.ts");
  assert.equal(stale.body.data.files[0].isStale, true);
  await advanceClock(2 * MIN);
  assert.equal((await check(b.token, "src/s.ts")).body.data.files[0].available, true);
});

test("CLAIM-029 POST /release needs scope write:claim", async () => {
  const { projectId } = await newProject();
  const key = await admin("POST", `/projects/${projectId}/api-keys`, {
    agentName: "no-claim",
    scopes: ["read:board"],
  });
  const res = await release(key.key, { all: true });
  assert.equal(res.status, 403);
  assert.equal(res.body.error.code, "FORBIDDEN");
});

test("CLAIM-030 release takes exactly one of files or all: true", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  for (const body of [{}, { files: ["a.ts"], all: true }, { all: false }, { files: [] }]) {
    const res = await release(a.token, body);
    assert.equal(res.status, 400, JSON.stringify(body));
    assert.equal(res.body.error.code, "VALIDATION_ERROR");
  }
  assert.equal((await release(a.token, { all: true })).status, 200);
  assert.equal((await release(a.token, { files: ["a.ts"] })).status, 200);
});

test("CLAIM-031 releasing one file frees every claim of yours that includes it, with all its files", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  await claim(a.token, ["src/1.ts", "src/2.ts"]);
  await claim(a.token, ["src/3.ts"]);
  const res = await release(a.token, { files: ["src/2.ts"] });
  assert.equal(res.status, 200);
  assert.deepEqual(res.body.data.released, ["src/1.ts", "src/2.ts"]);
  const after = await check(a.token, "src/1.ts,src/2.ts,src/3.ts");
  assert.deepEqual(after.body.data.files.map((f: { available: boolean }) => f.available), [
    true,
    true,
    false,
  ]);
});

test("CLAIM-032 all: true frees every active claim of yours", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  await claim(a.token, ["src/x.ts"]);
  await claim(a.token, ["src/y.ts", "src/z.ts"]);
  const res = await release(a.token, { all: true });
  assert.deepEqual(res.body.data.released, ["src/x.ts", "src/y.ts", "src/z.ts"]);
  const { db } = await env();
  const live = await db.selectFrom("claims").select("id").where("agent_id", "=", a.agentId)
    .where("released_at", "is", null).execute();
  assert.equal(live.length, 0);
});

test("CLAIM-033 release answers { released: [] } when nothing matched", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const res = await release(a.token, { files: ["src/nothing.ts"] });
  assert.equal(res.status, 200);
  assert.deepEqual(res.body.data, { released: [] });
  assert.deepEqual((await release(a.token, { all: true })).body.data, { released: [] });
});

test("CLAIM-034 release frees only your own claims", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const b = await pairAgent(projectId);
  await insertSubAgent(projectId, a.agentId, "kid");
  await claim(a.token, ["src/mine.ts"]);
  await claim(b.token, ["src/theirs.ts"]);
  await claim(a.token, ["src/kid.ts"], { "X-Svc-SubAgent": "kid" });
  const res = await release(a.token, { files: ["src/mine.ts", "src/theirs.ts", "src/kid.ts"] });
  assert.deepEqual(res.body.data.released, ["src/mine.ts"]);
  const after = await check(b.token, "src/theirs.ts,src/kid.ts");
  assert.deepEqual(after.body.data.files.map((f: { available: boolean }) => f.available), [false, false]);
  const all = await release(b.token, { all: true });
  assert.deepEqual(all.body.data.released, ["src/theirs.ts"]);
});

test("LEDGER-007 release writes a system CONTEXT entry and a claim.released event", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  await claim(a.token, ["src/r.ts"]);
  await release(a.token, { all: true });
  const { db } = await env();
  const entries = await db.selectFrom("ledger_entries").select(["content", "source"])
    .where("project_id", "=", projectId).where("type", "=", "CONTEXT").execute();
  assert.ok(entries.some((e) => e.source === "system" && /Released src\/r\.ts/.test(e.content)));
  const event = await db.selectFrom("events").select("kind").where("project_id", "=", projectId)
    .where("kind", "=", "claim.released").executeTakeFirst();
  assert.ok(event);
});

test("LEDGER-007 the release record: content, file reference, payload and the two events in order", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const files = ["src/g.ts", "src/b.ts", "src/f.ts", "src/a.ts", "src/e.ts", "src/c.ts", "src/d.ts"];
  await claim(a.token, files);
  await claim(a.token, ["src/one.ts"]);
  const { db } = await env();
  const since = await db.selectFrom("event_cursors").select("seq").where("project_id", "=", projectId)
    .executeTakeFirstOrThrow();
  const many = await release(a.token, { files: ["src/a.ts"] });
  assert.deepEqual(many.body.data.released, [...files].sort());
  const one = await release(a.token, { files: ["src/one.ts"] });
  assert.deepEqual(one.body.data.released, ["src/one.ts"]);
  const entries = await db.selectFrom("ledger_entries").select([
    "id",
    "content",
    "file_ref",
    "payload",
    "agent_id",
  ])
    .where("project_id", "=", projectId).where("type", "=", "CONTEXT").where("source", "=", "system")
    .where("content", "like", "Released%").orderBy("seq").execute();
  assert.deepEqual(entries.map((e) => [e.content, e.file_ref, e.payload, e.agent_id]), [
    [
      "Released src/a.ts, src/b.ts, src/c.ts, src/d.ts, src/e.ts and 2 more",
      null,
      { action: "release", files: [...files].sort() },
      a.agentId,
    ],
    ["Released src/one.ts", "src/one.ts", { action: "release", files: ["src/one.ts"] }, a.agentId],
  ]);
  const events = await db.selectFrom("events").select(["seq", "kind", "entity_id", "agent_id", "data"])
    .where("project_id", "=", projectId).where("seq", ">", since.seq).orderBy("seq").execute();
  assert.deepEqual(events.map((e) => Number(e.seq) - Number(since.seq)), [1, 2, 3, 4]);
  assert.deepEqual(events.map((e) => e.kind), [
    "ledger.appended",
    "claim.released",
    "ledger.appended",
    "claim.released",
  ]);
  assert.equal(events[0]!.entity_id, entries[0]!.id);
  assert.deepEqual(events[0]!.data, { type: "CONTEXT", ticketId: null, source: "system" });
  assert.equal(events[1]!.agent_id, a.agentId);
  assert.deepEqual((events[1]!.data as { files: string[] }).files, [...files].sort());
  assert.equal((events[1]!.data as { claimIds: string[] }).claimIds.length, 1);
});

test("RATE-032 more than 30 release calls in 5 minutes answer 429 BACKPRESSURE with Retry-After", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  await advanceClock(5 * MIN - ((await env()).clock.now().getTime() % (5 * MIN)) + 1);
  for (let i = 0; i < 30; i++) {
    const res = await release(a.token, { all: true });
    assert.equal(res.status, 200, `call ${i + 1}`);
  }
  const over = await release(a.token, { all: true });
  assert.equal(over.status, 429);
  assert.equal(over.body.error.code, "BACKPRESSURE");
  assert.ok(Number(over.headers.get("Retry-After")) >= 1);
});

test("RATE-032 a release over the budget releases nothing and writes nothing", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  await advanceClock(5 * MIN - ((await env()).clock.now().getTime() % (5 * MIN)) + 1);
  await claim(a.token, ["src/kept.ts"]);
  for (let i = 0; i < 30; i++) {
    assert.equal((await release(a.token, { files: ["src/other.ts"] })).status, 200, `call ${i + 1}`);
  }
  const { db } = await env();
  const events = async () =>
    (await db.selectFrom("events").select("seq").where("project_id", "=", projectId).execute()).length;
  const before = await events();
  const over = await release(a.token, { files: ["src/kept.ts"] });
  assert.equal(over.status, 429);
  assert.equal(over.body.error.code, "BACKPRESSURE");
  assert.equal(await events(), before);
  const held = await check(a.token, "src/kept.ts");
  assert.equal(held.body.data.files[0].available, false);
});

test("RATE-028 backpressure budgets are counted per identity: a sub-agent has its own", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  await insertSubAgent(projectId, a.agentId, "own-budget");
  await advanceClock(5 * MIN - ((await env()).clock.now().getTime() % (5 * MIN)) + 1);
  for (let i = 0; i < 30; i++) assert.equal((await release(a.token, { all: true })).status, 200);
  assert.equal((await release(a.token, { all: true })).status, 429);
  const sub = await release(a.token, { all: true }, { "X-Svc-SubAgent": "own-budget" });
  assert.equal(sub.status, 200);
});
