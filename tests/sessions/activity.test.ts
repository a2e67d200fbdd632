import assert from "node:assert/strict";
import { admin, advanceClock, call, newProject, pairAgent, test } from "../helpers/mod.ts";
import { alignToWindow } from "./helpers.ts";

function post(token: string, sessionId: string, body: unknown) {
  return call("POST", `/session/${sessionId}/activity`, { token, body });
}

async function agent(role = "generator") {
  const { projectId } = await newProject();
  return { projectId, a: await pairAgent(projectId, { role }) };
}

async function status(token: string, sessionId: string): Promise<string> {
  return (await call("GET", `/session/${sessionId}`, { token })).body.data.session.status;
}

test("SESS-006 an activity has type, body, action, parameter, result and ephemeral", async () => {
  const { a } = await agent();
  await post(a.token, a.sessionId, { type: "action", action: "run", parameter: "deno test", result: "ok" });
  const [activity] = (await call("GET", `/session/${a.sessionId}`, { token: a.token })).body.data.activities;
  for (const key of ["type", "body", "action", "parameter", "result", "ephemeral"]) {
    assert.ok(key in activity, key);
  }
  assert.equal(activity.ephemeral, false);
  assert.equal(activity.body, null);
});

test("SESS-007 SESS-062 type is required and one of the five types", async () => {
  const { a } = await agent();
  for (const type of ["thought", "elicitation", "response", "error"]) {
    assert.equal((await post(a.token, a.sessionId, { type, body: "b" })).status, 201, type);
  }
  assert.equal(
    (await post(a.token, a.sessionId, { type: "action", action: "x", parameter: "y" })).status,
    201,
  );
  for (const body of [{ body: "no type" }, { type: "note", body: "x" }, { type: "", body: "x" }]) {
    const res = await post(a.token, a.sessionId, body);
    assert.equal(res.status, 400);
    assert.equal(res.body.error.code, "VALIDATION_ERROR");
    assert.equal(res.body.error.details.fields[0].path, "type");
  }
});

test("SESS-013 an elicitation sets the session to awaiting_input", async () => {
  const { a } = await agent();
  const res = await post(a.token, a.sessionId, { type: "elicitation", body: "Which database?" });
  assert.equal(res.body.data.status, "awaiting_input");
  assert.equal(await status(a.token, a.sessionId), "awaiting_input");
});

test("SESS-014 an error activity sets the session to error", async () => {
  const { a } = await agent();
  const res = await post(a.token, a.sessionId, { type: "error", body: "build broke" });
  assert.equal(res.body.data.status, "error");
  assert.equal(await status(a.token, a.sessionId), "error");
});

test("SESS-015 thought, action and response set the session back to active", async () => {
  const { a } = await agent();
  const others = [
    { type: "thought", body: "thinking" },
    { type: "action", action: "edit", parameter: "a.ts" },
    { type: "response", body: "done" },
  ];
  for (const next of others) {
    for (const from of ["elicitation", "error"]) {
      await post(a.token, a.sessionId, { type: from, body: "x" });
      assert.notEqual(await status(a.token, a.sessionId), "active");
      const res = await post(a.token, a.sessionId, next);
      assert.equal(res.body.data.status, "active", `${from} -> ${next.type}`);
      assert.equal(await status(a.token, a.sessionId), "active");
    }
  }
});

test("SESS-020 an activity on a complete or canceled session answers 409 CONFLICT", async () => {
  const { projectId } = await newProject();
  const key = await admin("POST", `/projects/${projectId}/api-keys`, { agentName: "keyed" });
  // The same agent pairs twice: its first session is complete; the API key is not bound to a session.
  const first = await pairAgent(projectId, { name: "keyed" });
  const second = await pairAgent(projectId, { name: "keyed" });
  const onComplete = await post(key.key, first.sessionId, { type: "thought", body: "late" });
  assert.equal(onComplete.status, 409);
  assert.equal(onComplete.body.error.code, "CONFLICT");
  await call("PATCH", `/session/${second.sessionId}`, { token: second.token, body: { status: "canceled" } });
  const onCanceled = await post(key.key, second.sessionId, { type: "thought", body: "late" });
  assert.equal(onCanceled.status, 409);
  assert.equal(onCanceled.body.error.details.status, "canceled");
});

test("SESS-060 posting an activity needs scope write:ledger", async () => {
  const { projectId } = await newProject();
  const key = await admin("POST", `/projects/${projectId}/api-keys`, {
    agentName: "no-ledger",
    scopes: ["read:board"],
  });
  const session = await pairAgent(projectId, { name: "no-ledger" });
  const res = await post(key.key, session.sessionId, { type: "thought", body: "x" });
  assert.equal(res.status, 403);
  assert.equal(res.body.error.details.requiredScope, "write:ledger");
});

test("SESS-061 another agent's session: 404 NOT_FOUND, or 403 for an orchestrator", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const b = await pairAgent(projectId);
  const orch = await pairAgent(projectId, { role: "orchestrator" });
  const stranger = await post(b.token, a.sessionId, { type: "thought", body: "x" });
  assert.equal(stranger.status, 404);
  assert.equal(stranger.body.error.code, "NOT_FOUND");
  const coordinator = await post(orch.token, a.sessionId, { type: "thought", body: "x" });
  assert.equal(coordinator.status, 403);
  assert.equal(coordinator.body.error.code, "FORBIDDEN");
  assert.equal(coordinator.body.error.details.recovery.action, "PROVIDE_SESSION_ID");
  assert.equal((await post(a.token, crypto.randomUUID(), { type: "thought", body: "x" })).status, 404);
});

test("SESS-063 body is required for every type except action", async () => {
  const { a } = await agent();
  for (const type of ["thought", "elicitation", "response", "error"]) {
    const res = await post(a.token, a.sessionId, { type });
    assert.equal(res.status, 400, type);
    assert.equal(res.body.error.details.fields[0].path, "body");
  }
  assert.equal(
    (await post(a.token, a.sessionId, { type: "action", action: "a", parameter: "p" })).status,
    201,
  );
  const withBody = await post(a.token, a.sessionId, {
    type: "action",
    action: "a",
    parameter: "p",
    body: "why",
  });
  assert.equal(withBody.status, 201);
});

test("SESS-064 body is at most 4000 characters, 8000 for response", async () => {
  const { a } = await agent();
  assert.equal((await post(a.token, a.sessionId, { type: "thought", body: "x".repeat(4000) })).status, 201);
  const over = await post(a.token, a.sessionId, { type: "thought", body: "x".repeat(4001) });
  assert.equal(over.status, 400);
  assert.equal(over.body.error.details.fields[0].path, "body");
  assert.equal((await post(a.token, a.sessionId, { type: "response", body: "x".repeat(8000) })).status, 201);
  assert.equal((await post(a.token, a.sessionId, { type: "response", body: "x".repeat(8001) })).status, 400);
  assert.equal((await post(a.token, a.sessionId, { type: "error", body: "x".repeat(4001) })).status, 400);
});

test("SESS-065 an action activity requires action and parameter", async () => {
  const { a } = await agent();
  const noAction = await post(a.token, a.sessionId, { type: "action", parameter: "p" });
  assert.equal(noAction.status, 400);
  assert.equal(noAction.body.error.details.fields[0].path, "action");
  const noParameter = await post(a.token, a.sessionId, { type: "action", action: "a" });
  assert.equal(noParameter.status, 400);
  assert.equal(noParameter.body.error.details.fields[0].path, "parameter");
  const misplaced = await post(a.token, a.sessionId, { type: "thought", body: "b", action: "a" });
  assert.equal(misplaced.status, 400);
  assert.equal(misplaced.body.error.details.fields[0].path, "action");
});

test("SESS-066 result is optional on action and at most 4000 characters", async () => {
  const { a } = await agent();
  const base = { type: "action", action: "run", parameter: "tests" };
  assert.equal((await post(a.token, a.sessionId, base)).status, 201);
  assert.equal((await post(a.token, a.sessionId, { ...base, result: "r".repeat(4000) })).status, 201);
  const over = await post(a.token, a.sessionId, { ...base, result: "r".repeat(4001) });
  assert.equal(over.status, 400);
  assert.equal(over.body.error.details.fields[0].path, "result");
});

test("SESS-067 ephemeral is a boolean, default false", async () => {
  const { a } = await agent();
  await post(a.token, a.sessionId, { type: "thought", body: "kept" });
  const bad = await post(a.token, a.sessionId, { type: "thought", body: "x", ephemeral: "yes" });
  assert.equal(bad.status, 400);
  assert.equal(bad.body.error.details.fields[0].path, "ephemeral");
  const [activity] = (await call("GET", `/session/${a.sessionId}`, { token: a.token })).body.data.activities;
  assert.equal(activity.ephemeral, false);
});

test("SESS-068 ephemeral only on thought and action; replaced by the next activity", async () => {
  const { a } = await agent();
  for (const type of ["elicitation", "response", "error"]) {
    const res = await post(a.token, a.sessionId, { type, body: "x", ephemeral: true });
    assert.equal(res.status, 400, type);
    assert.equal(res.body.error.details.fields[0].path, "ephemeral");
  }
  assert.equal((await post(a.token, a.sessionId, { type: "thought", body: "kept" })).status, 201);
  assert.equal(
    (await post(a.token, a.sessionId, { type: "thought", body: "tmp", ephemeral: true })).status,
    201,
  );
  let list = (await call("GET", `/session/${a.sessionId}`, { token: a.token })).body.data.activities;
  assert.deepEqual(list.map((x: { body: string }) => x.body), ["kept", "tmp"]);
  await post(a.token, a.sessionId, { type: "action", action: "a", parameter: "p", ephemeral: true });
  await post(a.token, a.sessionId, { type: "response", body: "final" });
  list = (await call("GET", `/session/${a.sessionId}`, { token: a.token })).body.data.activities;
  assert.deepEqual(list.map((x: { body: string }) => x.body), ["kept", "final"]);
});

test("SESS-069 the response is { activityId, sessionId, status }", async () => {
  const { a } = await agent();
  const res = await post(a.token, a.sessionId, { type: "elicitation", body: "?" });
  assert.equal(res.status, 201);
  assert.deepEqual(Object.keys(res.body.data).sort(), ["activityId", "sessionId", "status"]);
  assert.equal(res.body.data.sessionId, a.sessionId);
  assert.equal(res.body.data.status, "awaiting_input");
  const list = (await call("GET", `/session/${a.sessionId}`, { token: a.token })).body.data.activities;
  assert.equal(list[0].id, res.body.data.activityId);
});

test("SESS-070 SESS-071 over 100 activities per session in 5 minutes answers 429 BACKPRESSURE", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  await alignToWindow(5 * 60_000);
  for (let i = 0; i < 100; i++) {
    const res = await post(a.token, a.sessionId, { type: "thought", body: `t${i}`, ephemeral: true });
    assert.equal(res.status, 201, `activity ${i + 1}`);
  }
  const refused = await post(a.token, a.sessionId, { type: "thought", body: "one too many" });
  assert.equal(refused.status, 429);
  assert.equal(refused.body.error.code, "BACKPRESSURE");
  assert.equal(refused.body.error.details.limit, 100);
  assert.ok(Number(refused.headers.get("Retry-After")) > 0);
  // The cap is per session: a second agent's session is unaffected.
  const b = await pairAgent(projectId);
  assert.equal((await post(b.token, b.sessionId, { type: "thought", body: "fine" })).status, 201);
  // The next window accepts activities again.
  await advanceClock(5 * 60_000);
  assert.equal((await post(a.token, a.sessionId, { type: "thought", body: "later" })).status, 201);
});
