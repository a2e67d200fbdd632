import assert from "node:assert/strict";
import { admin, call, newProject, pairAgent, test } from "../helpers/mod.ts";

function report(token: string, sessionId: string, body: unknown) {
  return call("POST", `/session/${sessionId}/report`, { token, body });
}

async function stored(token: string, sessionId: string) {
  return (await call("GET", `/session/${sessionId}`, { token })).body.data.session;
}

async function agent() {
  const { projectId } = await newProject();
  return { projectId, a: await pairAgent(projectId) };
}

test("SESS-008 every report field is optional and unknown fields are kept", async () => {
  const { a } = await agent();
  assert.equal((await report(a.token, a.sessionId, {})).status, 200);
  const body = { git_branch: "main", os: "linux", tools: { node: "22" }, flags: [1, 2] };
  assert.equal((await report(a.token, a.sessionId, body)).status, 200);
  const session = await stored(a.token, a.sessionId);
  assert.deepEqual(session.environmentReport, body);
  assert.ok(session.reportedAt);
});

test("SESS-009 model, company and platform are at most 100 characters", async () => {
  const { a } = await agent();
  for (const field of ["model", "company", "platform"]) {
    assert.equal((await report(a.token, a.sessionId, { [field]: "m".repeat(100) })).status, 200, field);
    const over = await report(a.token, a.sessionId, { [field]: "m".repeat(101) });
    assert.equal(over.status, 400, field);
    assert.equal(over.body.error.code, "VALIDATION_ERROR");
    assert.equal(over.body.error.details.fields[0].path, field);
  }
});

test("SESS-010 git_branch, git_remote and working_dir are at most 500 characters", async () => {
  const { a } = await agent();
  for (const field of ["git_branch", "git_remote", "working_dir"]) {
    assert.equal((await report(a.token, a.sessionId, { [field]: "b".repeat(500) })).status, 200, field);
    const over = await report(a.token, a.sessionId, { [field]: "b".repeat(501) });
    assert.equal(over.status, 400, field);
    assert.equal(over.body.error.details.fields[0].path, field);
  }
});

test("SESS-011 git_head and skill_hash are at most 100 characters", async () => {
  const { a } = await agent();
  for (const field of ["git_head", "skill_hash"]) {
    assert.equal((await report(a.token, a.sessionId, { [field]: "h".repeat(100) })).status, 200, field);
    const over = await report(a.token, a.sessionId, { [field]: "h".repeat(101) });
    assert.equal(over.status, 400, field);
    assert.equal(over.body.error.details.fields[0].path, field);
  }
});

test("SESS-012 uncommitted_files holds at most 200 paths", async () => {
  const { a } = await agent();
  const paths = (n: number) => Array.from({ length: n }, (_, i) => `src/file-${i}.ts`);
  assert.equal((await report(a.token, a.sessionId, { uncommitted_files: paths(200) })).status, 200);
  const over = await report(a.token, a.sessionId, { uncommitted_files: paths(201) });
  assert.equal(over.status, 400);
  assert.equal(over.body.error.details.fields[0].path, "uncommitted_files");
  const notList = await report(a.token, a.sessionId, { uncommitted_files: "a.ts" });
  assert.equal(notList.status, 400);
});

test("SESS-072 the report needs scope write:ledger and your own session", async () => {
  const { projectId, a } = await agent();
  const key = await admin("POST", `/projects/${projectId}/api-keys`, {
    agentName: a.name,
    scopes: ["read:board"],
  });
  const noScope = await report(key.key, a.sessionId, { model: "x" });
  assert.equal(noScope.status, 403);
  assert.equal(noScope.body.error.details.requiredScope, "write:ledger");
  const b = await pairAgent(projectId);
  const notYours = await report(b.token, a.sessionId, { model: "x" });
  assert.equal(notYours.status, 404);
  assert.equal(notYours.body.error.code, "NOT_FOUND");
  assert.equal((await stored(a.token, a.sessionId)).environmentReport, null);
});

test("SESS-073 posting again replaces the report whole, no merge", async () => {
  const { a } = await agent();
  await report(a.token, a.sessionId, { model: "m1", git_branch: "feature", custom: true });
  await report(a.token, a.sessionId, { platform: "codex" });
  assert.deepEqual((await stored(a.token, a.sessionId)).environmentReport, { platform: "codex" });
});

test("SESS-074 the report response is { ok: true, sessionId }", async () => {
  const { a } = await agent();
  const res = await report(a.token, a.sessionId, { model: "claude" });
  assert.equal(res.status, 200);
  assert.deepEqual(res.body.data, { ok: true, sessionId: a.sessionId });
});
