import assert from "node:assert/strict";
import { advanceClock, call, env, newProject, pairAgent, test } from "../helpers/mod.ts";
import { insertSubAgent, insertTicket } from "../helpers/fixtures.ts";

/** The claim wait queue (issue 24 points 1, 2 and 4). */

async function claim(token: string, body: Record<string, unknown>, headers: Record<string, string> = {}) {
  return await call("POST", "/claim", { token, body, headers });
}

async function events(token: string, kinds: string) {
  const res = await call("GET", `/events?kinds=${kinds}&limit=500`, { token });
  assert.equal(res.status, 200, res.text);
  return res.body.data.events as Array<
    { kind: string; agentId: string | null; data: Record<string, unknown> }
  >;
}

async function liveHolder(projectId: string, file: string) {
  const { db } = await env();
  const row = await db.selectFrom("claim_files as f").innerJoin("claims as c", "c.id", "f.claim_id")
    .select(["c.agent_id", "c.sub_agent_name"]).where("f.project_id", "=", projectId).where(
      "f.file",
      "=",
      file,
    )
    .where("f.released_at", "is", null).where("c.released_at", "is", null).executeTakeFirst();
  return row?.agent_id ?? null;
}

test("CLAIMQ-1 a claim with waitSeconds on a held file answers 202 with a waiting request, granted by the release", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const b = await pairAgent(projectId);
  assert.equal((await claim(a.token, { files: ["src/x.ts"] })).status, 200);
  const res = await claim(b.token, { files: ["src/x.ts", "src/free.ts"], waitSeconds: 600 });
  assert.equal(res.status, 202, res.text);
  const request = res.body.data.request;
  assert.equal(request.status, "waiting");
  assert.deepEqual(request.files, ["src/x.ts", "src/free.ts"]);
  assert.deepEqual(request.position, { "src/x.ts": 0 });
  assert.deepEqual(request.holders, { "src/x.ts": a.name });
  assert.ok(Date.parse(request.expiresAt) > Date.now());
  assert.equal(res.body.data.nextAction.action, "WAIT_FOR_GRANT");
  // All or nothing: the free file is not claimed while the request waits.
  assert.equal(await liveHolder(projectId, "src/free.ts"), null);

  const release = await call("POST", "/release", { token: a.token, body: { files: ["src/x.ts"] } });
  assert.equal(release.status, 200, release.text);
  assert.deepEqual(release.body.data.released, ["src/x.ts"]);
  // Granted in the release's transaction: B holds both files now.
  assert.equal(await liveHolder(projectId, "src/x.ts"), b.agentId);
  assert.equal(await liveHolder(projectId, "src/free.ts"), b.agentId);

  const seen = await events(b.token, "claim.");
  const granted = seen.filter((e) => e.kind === "claim.granted");
  assert.equal(granted.length, 1);
  assert.deepEqual(granted[0]!.data, {
    requestId: request.id,
    files: ["src/x.ts", "src/free.ts"],
    agentId: b.agentId,
  });
  assert.equal(granted[0]!.agentId, b.agentId);
  const acquired = seen.filter((e) => e.kind === "claim.acquired" && e.agentId === b.agentId);
  assert.equal(acquired.length, 1, "the grant is a claim like POST /claim's: claim.acquired");

  const got = await call("GET", `/claim/requests/${request.id}`, { token: b.token });
  assert.equal(got.status, 200, got.text);
  assert.equal(got.body.data.status, "granted");
  assert.deepEqual(got.body.data.claims.map((c: { file: string }) => c.file).sort(), [
    "src/free.ts",
    "src/x.ts",
  ]);
  assert.ok(got.body.data.grantedAt);

  const context = await call("GET", "/context", { token: b.token });
  assert.equal(context.status, 200, context.text);
  assert.equal(context.body.data.claims.granted.length, 1);
  assert.equal(context.body.data.claims.granted[0].requestId, request.id);
  assert.deepEqual(context.body.data.claims.granted[0].files, ["src/x.ts", "src/free.ts"]);
  // A CONTEXT ledger entry for the waiter's claim, as POST /claim writes.
  const { db } = await env();
  const entry = await db.selectFrom("ledger_entries").select(["content"]).where("project_id", "=", projectId)
    .where("agent_id", "=", b.agentId).where("type", "=", "CONTEXT").executeTakeFirst();
  assert.ok(entry?.content.includes("claimed src/x.ts"), entry?.content);

  // Once the granted claim is released, context no longer lists it (and has no `claims` key).
  await call("POST", "/release", { token: b.token, body: { all: true } });
  const after = await call("GET", "/context", { token: b.token });
  assert.equal(after.body.data.claims, undefined);
});

test("CLAIMQ-1 without waitSeconds the answers are the spec's: 200 on free files, 409 CONFLICT without queue", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const b = await pairAgent(projectId);
  const ok = await claim(a.token, { files: ["src/x.ts"] });
  assert.equal(ok.status, 200);
  assert.deepEqual(Object.keys(ok.body.data).sort(), ["claims", "nextAction"]);
  const refused = await claim(b.token, { files: ["src/x.ts"] });
  assert.equal(refused.status, 409);
  assert.equal(refused.body.error.code, "CONFLICT");
  assert.deepEqual(Object.keys(refused.body.error.details), ["conflicts"]);
  // With waitSeconds but nothing held: claimed at once, 200 like without it.
  const free = await claim(b.token, { files: ["src/y.ts"], waitSeconds: 60 });
  assert.equal(free.status, 200, free.text);
  assert.equal(free.body.data.claims[0].file, "src/y.ts");
  const check = await call("GET", "/claim/check?files=src/x.ts,src/z.ts", { token: b.token });
  assert.equal(check.body.data.files[0].queue, undefined);
  assert.deepEqual(check.body.data.files[1], { file: "src/z.ts", available: true });
});

test("CLAIMQ-1 waitSeconds must be an integer from 1 to 3600 (400 VALIDATION_ERROR)", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  for (const waitSeconds of [0, -1, 3601, 1.5, "60", null]) {
    const res = await claim(a.token, { files: ["src/x.ts"], waitSeconds });
    assert.equal(res.status, 400, `${waitSeconds}: ${res.text}`);
    assert.equal(res.body.error.code, "VALIDATION_ERROR");
  }
  for (const waitSeconds of [1, 3600]) {
    const res = await claim(a.token, { files: [`src/${waitSeconds}.ts`], waitSeconds });
    assert.equal(res.status, 200, res.text);
  }
});

test("CLAIMQ-1 a waiting request expires at expiresAt (claim.wait_expired) and lists by status", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const b = await pairAgent(projectId);
  await claim(a.token, { files: ["src/x.ts"], estimatedSeconds: 3600 });
  const res = await claim(b.token, { files: ["src/x.ts"], waitSeconds: 30 });
  assert.equal(res.status, 202, res.text);
  const id = res.body.data.request.id;
  const waiting = await call("GET", "/claim/requests?status=waiting", { token: b.token });
  assert.deepEqual(waiting.body.data.requests.map((r: { id: string }) => r.id), [id]);
  await advanceClock(31_000);
  const got = await call("GET", `/claim/requests/${id}`, { token: b.token });
  assert.equal(got.body.data.status, "expired");
  assert.deepEqual(got.body.data.position, {});
  const expired = await events(b.token, "claim.wait_expired");
  assert.equal(expired.length, 1);
  assert.deepEqual(expired[0]!.data, { requestId: id, files: ["src/x.ts"], agentId: b.agentId });
  assert.equal(
    (await call("GET", "/claim/requests?status=waiting", { token: b.token })).body.data.requests.length,
    0,
  );
  // The release afterwards grants nothing.
  await call("POST", "/release", { token: a.token, body: { all: true } });
  assert.equal(await liveHolder(projectId, "src/x.ts"), null);
});

test("CLAIMQ-1 cancel: DELETE answers the request cancelled; another agent's request is 404", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const b = await pairAgent(projectId);
  const c = await pairAgent(projectId);
  await claim(a.token, { files: ["src/x.ts"] });
  const res = await claim(b.token, { files: ["src/x.ts"], waitSeconds: 600 });
  const id = res.body.data.request.id;
  assert.equal((await call("GET", `/claim/requests/${id}`, { token: c.token })).status, 404);
  assert.equal((await call("DELETE", `/claim/requests/${id}`, { token: c.token })).status, 404);
  const cancelled = await call("DELETE", `/claim/requests/${id}`, { token: b.token });
  assert.equal(cancelled.status, 200, cancelled.text);
  assert.equal(cancelled.body.data.status, "cancelled");
  assert.equal(cancelled.body.data.id, id);
  await call("POST", "/release", { token: a.token, body: { all: true } });
  assert.equal(await liveHolder(projectId, "src/x.ts"), null, "a cancelled request is never granted");
  const listed = await call("GET", "/claim/requests", { token: b.token });
  assert.equal(listed.body.data.requests[0].status, "cancelled");
});

test("CLAIMQ-1 a grant after the holder's claim expires (test clock), observed by the next request", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const b = await pairAgent(projectId);
  await claim(a.token, { files: ["src/x.ts"], estimatedSeconds: 60 });
  const res = await claim(b.token, { files: ["src/x.ts"], waitSeconds: 600 });
  assert.equal(res.status, 202);
  await advanceClock(61_000);
  const context = await call("GET", "/context", { token: b.token });
  assert.equal(context.status, 200, context.text);
  assert.equal(context.body.data.claims?.granted?.[0]?.requestId, res.body.data.request.id);
  assert.equal(await liveHolder(projectId, "src/x.ts"), b.agentId);
});

test("CLAIMQ-1 a grant after a handoff releases the holder's claims", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const b = await pairAgent(projectId);
  await claim(a.token, { files: ["src/x.ts"] });
  const res = await claim(b.token, { files: ["src/x.ts"], waitSeconds: 600 });
  assert.equal(res.status, 202);
  const progress = await call("POST", "/ledger", {
    token: a.token,
    body: { type: "PROGRESS", content: "Worked on x", sessionId: a.sessionId },
  });
  assert.equal(progress.status, 201, progress.text);
  const handoff = await call("POST", "/handoff", {
    token: a.token,
    body: { moduleName: "x", summary: "Done with x for now", sessionId: a.sessionId },
  });
  assert.ok(handoff.status < 300, handoff.text);
  assert.equal(await liveHolder(projectId, "src/x.ts"), b.agentId);
});

test("CLAIMQ-1 a grant after the holder is revoked; a revoked waiter is never granted", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const b = await pairAgent(projectId);
  const c = await pairAgent(projectId);
  await claim(a.token, { files: ["src/x.ts"] });
  assert.equal((await claim(c.token, { files: ["src/x.ts"], waitSeconds: 600 })).status, 202);
  assert.equal((await claim(b.token, { files: ["src/x.ts"], waitSeconds: 600 })).status, 202);
  const { db } = await env();
  const { revokeAgentIn } = await import("@/domain/agents/revoke.ts");
  const now = (await env()).clock.now();
  await db.transaction().execute(async (trx) => {
    await revokeAgentIn(trx, {
      projectId,
      agentId: c.agentId,
      byAgentId: null,
      byLabel: "test",
      via: "operator",
      now,
    });
    await revokeAgentIn(trx, {
      projectId,
      agentId: a.agentId,
      byAgentId: null,
      byLabel: "test",
      via: "operator",
      now,
    });
  });
  assert.equal(await liveHolder(projectId, "src/x.ts"), b.agentId);
});

test("CLAIMQ-2 grants follow arrival order; a new claim without waitSeconds gets 409 with details.queue", async () => {
  const { projectId } = await newProject();
  const holder = await pairAgent(projectId);
  const w1 = await pairAgent(projectId);
  const w2 = await pairAgent(projectId);
  const late = await pairAgent(projectId);
  await claim(holder.token, { files: ["src/x.ts", "src/y.ts"] });
  const r1 = await claim(w1.token, { files: ["src/x.ts", "src/y.ts"], waitSeconds: 600 });
  const r2 = await claim(w2.token, { files: ["src/y.ts"], waitSeconds: 600 });
  assert.deepEqual(r1.body.data.request.position, { "src/x.ts": 0, "src/y.ts": 0 });
  assert.deepEqual(r2.body.data.request.position, { "src/y.ts": 1 });
  await call("POST", "/release", { token: holder.token, body: { all: true } });
  assert.equal(await liveHolder(projectId, "src/x.ts"), w1.agentId);
  assert.equal(await liveHolder(projectId, "src/y.ts"), w1.agentId);
  // w2 is next for y: a later request waits behind it.
  const r3 = await claim(late.token, { files: ["src/y.ts"], waitSeconds: 600 });
  assert.deepEqual(r3.body.data.request.position, { "src/y.ts": 1 });
  await call("POST", "/release", { token: w1.token, body: { files: ["src/y.ts"] } });
  assert.equal(await liveHolder(projectId, "src/y.ts"), w2.agentId);
  // x is free now; y waits for w2's claim with late queued.
  const refused = await claim(holder.token, { files: ["src/y.ts"] });
  assert.equal(refused.status, 409);
  assert.equal(refused.body.error.code, "CONFLICT");
  assert.deepEqual(refused.body.error.details.queue, { waiting: 1 });
});

test("CLAIMQ-2 a free file with waiters is not granted to a newcomer; GET /claim/check shows queue", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const b = await pairAgent(projectId);
  const c = await pairAgent(projectId);
  // b waits for x (free) and y (held by a): x stays free but queued.
  await claim(a.token, { files: ["src/y.ts"] });
  const r = await claim(b.token, { files: ["src/x.ts", "src/y.ts"], waitSeconds: 600 });
  assert.equal(r.status, 202);
  assert.deepEqual(r.body.data.request.position, { "src/y.ts": 0 });
  const refused = await claim(c.token, { files: ["src/x.ts"] });
  assert.equal(refused.status, 409, refused.text);
  assert.equal(refused.body.error.code, "CONFLICT");
  assert.deepEqual(refused.body.error.details.queue, { waiting: 1 });
  assert.equal(refused.body.error.details.conflicts[0].file, "src/x.ts");
  const check = await call("GET", "/claim/check?files=src/x.ts,src/y.ts", { token: c.token });
  const [x, y] = check.body.data.files;
  assert.equal(x.available, false);
  assert.equal(x.queue, 1);
  assert.equal(y.available, false);
  assert.equal(y.queue, 1);
  // c waits behind b for x.
  const cw = await claim(c.token, { files: ["src/x.ts"], waitSeconds: 600 });
  assert.equal(cw.status, 202);
  assert.deepEqual(cw.body.data.request.position, { "src/x.ts": 1 });
  await call("POST", "/release", { token: a.token, body: { all: true } });
  assert.equal(await liveHolder(projectId, "src/x.ts"), b.agentId);
});

test("CLAIMQ-2 at most 5 waiting requests per agent: the sixth is 409 QUEUE_FULL", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const b = await pairAgent(projectId);
  await claim(a.token, { files: ["src/0.ts", "src/1.ts", "src/2.ts", "src/3.ts", "src/4.ts", "src/5.ts"] });
  for (let i = 0; i < 5; i++) {
    const res = await claim(b.token, { files: [`src/${i}.ts`], waitSeconds: 600 });
    assert.equal(res.status, 202, res.text);
  }
  const full = await claim(b.token, { files: ["src/5.ts"], waitSeconds: 600 });
  assert.equal(full.status, 409, full.text);
  assert.equal(full.body.error.code, "QUEUE_FULL");
  assert.equal(full.body.error.details.scope, "agent");
  assert.equal(full.body.error.details.limit, 5);
  // Cancelling one makes room.
  const listed = await call("GET", "/claim/requests?status=waiting", { token: b.token });
  assert.equal(listed.body.data.requests.length, 5);
  await call("DELETE", `/claim/requests/${listed.body.data.requests[0].id}`, { token: b.token });
  assert.equal((await claim(b.token, { files: ["src/5.ts"], waitSeconds: 600 })).status, 202);
});

test("CLAIMQ-4 a 3-agent wait cycle is refused with 409 DEADLOCK and RELEASE_HELD_FILES", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const b = await pairAgent(projectId);
  const c = await pairAgent(projectId);
  await claim(a.token, { files: ["src/a.ts"] });
  await claim(b.token, { files: ["src/b.ts"] });
  await claim(c.token, { files: ["src/c.ts"] });
  assert.equal((await claim(a.token, { files: ["src/b.ts"], waitSeconds: 600 })).status, 202);
  assert.equal((await claim(b.token, { files: ["src/c.ts"], waitSeconds: 600 })).status, 202);
  const refused = await claim(c.token, { files: ["src/a.ts"], waitSeconds: 600 });
  assert.equal(refused.status, 409, refused.text);
  assert.equal(refused.body.error.code, "DEADLOCK");
  const { cycle, recovery } = refused.body.error.details;
  assert.deepEqual(cycle, [
    { claimantName: c.name, holds: ["src/c.ts"], waitsFor: ["src/a.ts"] },
    { claimantName: a.name, holds: ["src/a.ts"], waitsFor: ["src/b.ts"] },
    { claimantName: b.name, holds: ["src/b.ts"], waitsFor: ["src/c.ts"] },
  ]);
  assert.equal(recovery.action, "RELEASE_HELD_FILES");
  assert.equal(recovery.endpoint, "POST /release");
  assert.deepEqual(recovery.payloadHint, { files: ["src/c.ts"] });
  assert.equal(typeof recovery.hint, "string");
  // Nothing was queued for c.
  assert.equal((await call("GET", "/claim/requests", { token: c.token })).body.data.requests.length, 0);
  // Following the recovery: c releases, then waits; b is granted c.ts at once.
  await call("POST", "/release", { token: c.token, body: { files: ["src/c.ts"] } });
  assert.equal(await liveHolder(projectId, "src/c.ts"), b.agentId);
  assert.equal((await claim(c.token, { files: ["src/a.ts"], waitSeconds: 600 })).status, 202);
});

test("CLAIMQ-4 sub-agents are their own identities in the wait-for graph", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const b = await pairAgent(projectId);
  await insertSubAgent(projectId, a.agentId, "w1");
  const sub = { "X-Svc-SubAgent": "w1" };
  await claim(a.token, { files: ["src/a.ts"] });
  await claim(a.token, { files: ["src/s.ts"] }, sub);
  await claim(b.token, { files: ["src/b.ts"] });
  // The sub-agent waits for b; b waits for the parent: no cycle (the parent waits for nobody).
  assert.equal((await claim(a.token, { files: ["src/b.ts"], waitSeconds: 600 }, sub)).status, 202);
  assert.equal((await claim(b.token, { files: ["src/a.ts"], waitSeconds: 600 })).status, 202);
  // b waits for the sub-agent's file: b -> w1 -> b is a cycle.
  const refused = await claim(b.token, { files: ["src/s.ts"], waitSeconds: 600 });
  assert.equal(refused.status, 409);
  assert.equal(refused.body.error.code, "DEADLOCK");
  assert.deepEqual(refused.body.error.details.cycle.map((e: { claimantName: string }) => e.claimantName), [
    b.name,
    `${a.name}/w1`,
  ]);
});

test("CLAIMQ-2 POST /begin never takes a free file other agents wait for (409 CONFLICT with details.queue)", async () => {
  const { projectId } = await newProject({ reviewMode: "light" });
  const a = await pairAgent(projectId);
  const b = await pairAgent(projectId);
  const c = await pairAgent(projectId);
  await claim(a.token, { files: ["src/y.ts"] });
  assert.equal((await claim(b.token, { files: ["src/x.ts", "src/y.ts"], waitSeconds: 600 })).status, 202);
  const ticket = await insertTicket(projectId, { status: "backlog" });
  const refused = await call("POST", "/begin", {
    token: c.token,
    body: { ticketId: ticket.key, files: ["src/x.ts"] },
  });
  assert.equal(refused.status, 409, refused.text);
  assert.equal(refused.body.error.code, "CONFLICT");
  assert.deepEqual(refused.body.error.details.queue, { waiting: 1 });
  assert.equal(await liveHolder(projectId, "src/x.ts"), null);
  const ok = await call("POST", "/begin", {
    token: c.token,
    body: { ticketId: ticket.key, files: ["src/z.ts"] },
  });
  assert.equal(ok.status, 200, ok.text);
});

test("CLAIMQ-4 CLAIMQ-5 a cycle through a directory claim is a deadlock; a waiter on a file under a held directory is granted on its release", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const b = await pairAgent(projectId);
  assert.equal((await claim(a.token, { files: ["src/auth/"] })).status, 200);
  assert.equal((await claim(b.token, { files: ["lib/x.ts"] })).status, 200);
  // b waits for a file under a's directory: position 0, a named as its holder.
  const waiting = await claim(b.token, { files: ["src/auth/token.ts#parse"], waitSeconds: 600 });
  assert.equal(waiting.status, 202, waiting.text);
  assert.deepEqual(waiting.body.data.request.holders, { "src/auth/token.ts#parse": a.name });
  assert.deepEqual(waiting.body.data.request.position, { "src/auth/token.ts#parse": 0 });
  // a now waits for b's file: a -> b -> a through the directory.
  const refused = await claim(a.token, { files: ["lib/x.ts"], waitSeconds: 600 });
  assert.equal(refused.status, 409, refused.text);
  assert.equal(refused.body.error.code, "DEADLOCK");
  assert.deepEqual(refused.body.error.details.cycle, [
    { claimantName: a.name, holds: ["src/auth/**"], waitsFor: ["lib/x.ts"] },
    { claimantName: b.name, holds: ["lib/x.ts"], waitsFor: ["src/auth/token.ts#parse"] },
  ]);
  // a releases the directory: b is granted the symbol in the same transaction.
  await call("POST", "/release", { token: a.token, body: { files: ["src/auth/"] } });
  const granted = await call("GET", `/claim/requests/${waiting.body.data.request.id}`, { token: b.token });
  assert.equal(granted.body.data.status, "granted", granted.text);
  // The granted claim carries its fence (issue 25), greater than the released directory's.
  assert.ok(granted.body.data.claims[0].fence > 0, granted.text);
});
