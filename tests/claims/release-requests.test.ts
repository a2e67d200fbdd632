import assert from "node:assert/strict";
import { advanceClock, call, newProject, pairAgent, test } from "../helpers/mod.ts";
import { insertSubAgent } from "../helpers/fixtures.ts";

const MIN = 60_000;

async function claim(token: string, files: string[], extra: Record<string, unknown> = {}) {
  const res = await call("POST", "/claim", { token, body: { files, ...extra } });
  assert.equal(res.status, 200, res.text);
  return res.body.data;
}

async function ask(token: string, files: string[], message?: string) {
  return await call("POST", "/claim/release-requests", {
    token,
    body: { files, ...(message !== undefined ? { message } : {}) },
  });
}

async function answer(token: string, id: string, body: Record<string, unknown>) {
  return await call("POST", `/claim/release-requests/${id}/answer`, { token, body });
}

async function holders(token: string, files: string[]) {
  const res = await call("GET", `/claim/check?files=${encodeURIComponent(files.join(","))}`, { token });
  assert.equal(res.status, 200, res.text);
  return Object.fromEntries(
    res.body.data.files.map((f: { file: string; claimant?: string }) => [f.file, f.claimant ?? null]),
  );
}

async function eventsOf(token: string, kinds: string) {
  const res = await call("GET", `/events?kinds=${encodeURIComponent(kinds)}`, { token });
  assert.equal(res.status, 200, res.text);
  return res.body.data.events;
}

test("CLAIMQ-3 B asks A for a file: 201 pending, A sees it in context, incoming list and events", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const b = await pairAgent(projectId);
  await claim(a.token, ["src/a.ts", "src/b.ts"]);
  const res = await ask(b.token, ["src/a.ts"], "I need src/a.ts for the login fix");
  assert.equal(res.status, 201, res.text);
  const request = res.body.data;
  assert.equal(request.status, "pending");
  assert.deepEqual(request.files, ["src/a.ts"]);
  assert.equal(request.holder, a.name);
  assert.equal(request.asker, b.name);
  assert.equal(request.message, "I need src/a.ts for the login fix");

  const context = await call("GET", "/context", { token: a.token });
  assert.equal(context.status, 200, context.text);
  assert.deepEqual(context.body.data.releaseRequests.map((r: { id: string }) => r.id), [request.id]);
  // The asker's own context has no incoming request (the field is absent when empty).
  const askerContext = await call("GET", "/context", { token: b.token });
  assert.equal(askerContext.body.data.releaseRequests, undefined);

  const incoming = await call("GET", "/claim/release-requests?incoming=true", { token: a.token });
  assert.deepEqual(incoming.body.data.requests.map((r: { id: string }) => r.id), [request.id]);
  const own = await call("GET", "/claim/release-requests", { token: b.token });
  assert.deepEqual(own.body.data.requests.map((r: { id: string }) => r.id), [request.id]);
  assert.deepEqual((await call("GET", "/claim/release-requests", { token: a.token })).body.data.requests, []);

  const [event] = await eventsOf(a.token, "claim.release_requested");
  assert.equal(event.kind, "claim.release_requested");
  assert.deepEqual(event.data, { requestId: request.id, files: ["src/a.ts"], holder: a.name, asker: b.name });
});

test("CLAIMQ-3 release frees exactly the requested files of the holder's claim, the rest stays held", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const b = await pairAgent(projectId);
  await claim(a.token, ["src/a.ts", "src/b.ts", "src/c.ts"]);
  const request = (await ask(b.token, ["src/a.ts", "SRC/B.ts"])).body.data;
  const res = await answer(a.token, request.id, { answer: "release", message: "take them" });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.data.status, "released");
  assert.equal(res.body.data.answerMessage, "take them");
  assert.deepEqual(res.body.data.releasedFiles, ["src/a.ts", "src/b.ts"]);
  assert.deepEqual(await holders(b.token, ["src/a.ts", "src/b.ts", "src/c.ts"]), {
    "src/a.ts": null,
    "src/b.ts": null,
    "src/c.ts": a.name,
  });
  // The asker can claim the freed files now; the holder keeps its other file.
  await claim(b.token, ["src/a.ts", "src/b.ts"]);
  const read = await call("GET", `/claim/release-requests/${request.id}`, { token: b.token });
  assert.equal(read.body.data.status, "released");
  assert.equal(read.body.data.claimEnded, false);
  const [answered] = await eventsOf(b.token, "claim.release_answered");
  assert.deepEqual(answered.data, {
    requestId: request.id,
    files: ["src/a.ts", "SRC/B.ts"],
    holder: a.name,
    asker: b.name,
    answer: "release",
    releasedFiles: ["src/a.ts", "src/b.ts"],
  });
  const released = await eventsOf(b.token, "claim.released");
  assert.deepEqual(released.at(-1).data.files, ["src/a.ts", "src/b.ts"]);
  // Answered requests leave the holder's context.
  assert.equal((await call("GET", "/context", { token: a.token })).body.data.releaseRequests, undefined);
});

test("CLAIMQ-3 a whole claim of only requested files is released; the holder can still release the rest", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const b = await pairAgent(projectId);
  await claim(a.token, ["src/x.ts"]);
  await claim(a.token, ["src/y.ts"]);
  const request = (await ask(b.token, ["src/x.ts"])).body.data;
  assert.equal((await answer(a.token, request.id, { answer: "release" })).status, 200);
  const context = (await call("GET", "/context", { token: a.token })).body.data;
  assert.deepEqual(
    context.openClaims.filter((c: { isSelf: boolean }) => c.isSelf).map((c: { file: string }) => c.file),
    [
      "src/y.ts",
    ],
  );
  const rest = await call("POST", "/release", { token: a.token, body: { all: true } });
  assert.deepEqual(rest.body.data.released, ["src/y.ts"]);
});

test("CLAIMQ-3 decline keeps the files; only the holder answers (asker 403, others 404), once (409)", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const b = await pairAgent(projectId);
  const c = await pairAgent(projectId);
  await claim(a.token, ["src/a.ts"]);
  const request = (await ask(b.token, ["src/a.ts"])).body.data;
  const byAsker = await answer(b.token, request.id, { answer: "release" });
  assert.equal(byAsker.status, 403, byAsker.text);
  assert.equal(byAsker.body.error.code, "FORBIDDEN");
  const byOther = await answer(c.token, request.id, { answer: "release" });
  assert.equal(byOther.status, 404);
  assert.equal((await call("GET", `/claim/release-requests/${request.id}`, { token: c.token })).status, 404);
  assert.deepEqual(await holders(b.token, ["src/a.ts"]), { "src/a.ts": a.name });

  const declined = await answer(a.token, request.id, { answer: "decline", message: "still editing" });
  assert.equal(declined.status, 200, declined.text);
  assert.equal(declined.body.data.status, "declined");
  assert.equal(declined.body.data.releasedFiles, null);
  assert.deepEqual(await holders(b.token, ["src/a.ts"]), { "src/a.ts": a.name });
  const seen = await call("GET", `/claim/release-requests/${request.id}`, { token: b.token });
  assert.equal(seen.body.data.status, "declined");
  assert.equal(seen.body.data.answerMessage, "still editing");
  const again = await answer(a.token, request.id, { answer: "release" });
  assert.equal(again.status, 409);
  assert.equal(again.body.error.code, "CONFLICT");
  const [event] = await eventsOf(b.token, "claim.release_answered");
  assert.equal(event.data.answer, "decline");
});

test("CLAIMQ-3 files must all be held by one other identity: 400 VALIDATION_ERROR naming the files", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const b = await pairAgent(projectId);
  const c = await pairAgent(projectId);
  await claim(a.token, ["src/a.ts"]);
  await claim(c.token, ["src/c.ts"]);
  await claim(b.token, ["src/b.ts"]);
  const cases: Array<[string[], string[]]> = [
    [["src/free.ts"], ["src/free.ts"]],
    [["src/a.ts", "src/free.ts"], ["src/free.ts"]],
    [["src/b.ts"], ["src/b.ts"]],
    [["src/a.ts", "src/c.ts"], ["src/c.ts"]],
  ];
  for (const [files, named] of cases) {
    const res = await ask(b.token, files);
    assert.equal(res.status, 400, `${files}: ${res.text}`);
    assert.equal(res.body.error.code, "VALIDATION_ERROR");
    assert.deepEqual(res.body.error.details.files, named);
    for (const file of named) assert.ok(res.body.error.message.includes(file) || res.text.includes(file));
  }
  assert.equal((await ask(b.token, [])).status, 400);
  assert.equal((await ask(b.token, Array.from({ length: 21 }, (_, i) => `f${i}.ts`))).status, 400);
  assert.equal((await ask(b.token, ["src/a.ts"], "x".repeat(501))).status, 400);
  assert.equal((await ask(b.token, ["src/a.ts"], "x".repeat(500))).status, 201);
  assert.equal((await answer(a.token, crypto.randomUUID(), { answer: "release" })).status, 404);
  const bad = await call("POST", `/claim/release-requests/${crypto.randomUUID()}/answer`, {
    token: a.token,
    body: { answer: "maybe" },
  });
  assert.equal(bad.status, 400);
});

test("CLAIMQ-3 a request whose claim ends before an answer reads released with claimEnded, and cannot be answered", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const b = await pairAgent(projectId);
  await claim(a.token, ["src/a.ts"], { estimatedSeconds: 600 });
  await claim(a.token, ["src/z.ts"], { estimatedSeconds: 3600 });
  const expires = (await ask(b.token, ["src/a.ts"])).body.data;
  const released = (await ask(b.token, ["src/z.ts"])).body.data;
  assert.equal(
    (await call("POST", "/release", { token: a.token, body: { files: ["src/z.ts"] } })).status,
    200,
  );
  await advanceClock(11 * MIN);
  for (const id of [expires.id, released.id]) {
    const read = await call("GET", `/claim/release-requests/${id}`, { token: b.token });
    assert.equal(read.body.data.status, "released", id);
    assert.equal(read.body.data.claimEnded, true);
    const late = await answer(a.token, id, { answer: "decline" });
    assert.equal(late.status, 409);
  }
  // A new claim of the same file by the same holder does not revive the old request.
  await claim(a.token, ["src/a.ts"]);
  const after = await call("GET", `/claim/release-requests/${expires.id}`, { token: b.token });
  assert.equal(after.body.data.status, "released");
  assert.equal((await call("GET", "/context", { token: a.token })).body.data.releaseRequests, undefined);
});

test("CLAIMQ-3 a sub-agent holder is its own identity: it answers, its parent cannot", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const b = await pairAgent(projectId);
  await insertSubAgent(projectId, a.agentId, "scout");
  const scout = { "X-Svc-SubAgent": "scout" };
  const held = await call("POST", "/claim", {
    token: a.token,
    body: { files: ["src/s.ts"] },
    headers: scout,
  });
  assert.equal(held.status, 200, held.text);
  const request = (await ask(b.token, ["src/s.ts"])).body.data;
  assert.equal(request.holder, `${a.name}/scout`);
  assert.equal((await answer(a.token, request.id, { answer: "release" })).status, 404);
  const res = await call("POST", `/claim/release-requests/${request.id}/answer`, {
    token: a.token,
    headers: scout,
    body: { answer: "release" },
  });
  assert.equal(res.status, 200, res.text);
  assert.deepEqual(res.body.data.releasedFiles, ["src/s.ts"]);
});

test("CLAIMQ-3 two concurrent answers: exactly one wins, the other is 409", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const b = await pairAgent(projectId);
  await claim(a.token, ["src/a.ts", "src/b.ts"]);
  const request = (await ask(b.token, ["src/a.ts"])).body.data;
  const answers = await Promise.all([
    answer(a.token, request.id, { answer: "release" }),
    answer(a.token, request.id, { answer: "decline" }),
    answer(a.token, request.id, { answer: "release" }),
  ]);
  assert.deepEqual(answers.map((r) => r.status).sort(), [200, 409, 409]);
  const won = answers.find((r) => r.status === 200)!.body.data.status;
  const events = await eventsOf(b.token, "claim.release_answered");
  assert.equal(events.length, 1);
  assert.equal(won, events[0].data.answer === "release" ? "released" : "declined");
  assert.deepEqual(await holders(b.token, ["src/b.ts"]), { "src/b.ts": a.name });
});
