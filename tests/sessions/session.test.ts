import assert from "node:assert/strict";
import { admin, call, env, newProject, pairAgent, test } from "../helpers/mod.ts";

async function twoAgents(roleB = "generator") {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const b = await pairAgent(projectId, { role: roleB });
  return { projectId, a, b };
}

function patch(token: string, sessionId: string, body: unknown) {
  return call("PATCH", `/session/${sessionId}`, { token, body });
}

const item = (content: string, status = "pending") => ({ content, status });

test("SESS-001 SESS-005 a session has id, status, startedAt, plan, plan version and activities", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const res = await call("GET", `/session/${a.sessionId}`, { token: a.token });
  assert.equal(res.status, 200);
  const { session, activities } = res.body.data;
  assert.equal(session.id, a.sessionId);
  assert.equal(session.status, "active");
  assert.ok(!Number.isNaN(Date.parse(session.startedAt)));
  assert.deepEqual(session.plan, []);
  assert.equal(session.planVersion, 0);
  assert.ok(Array.isArray(activities));
  // The documented remaining fields (SESS-005).
  assert.deepEqual(session.agent, { id: a.agentId, name: a.name, subAgentName: null });
  assert.equal(session.source, "pairing");
  assert.equal(session.endedAt, null);
  assert.equal(session.ticketId, null);
  assert.equal(session.environmentReport, null);
  assert.equal(session.reportedAt, null);
  assert.equal(session.activityCount, 0);
});

test("SESS-002 session status takes only the five documented values", async () => {
  const { a } = await twoAgents();
  const seen = new Set<string>();
  const read = async () =>
    seen.add((await call("GET", `/session/${a.sessionId}`, { token: a.token })).body.data.session.status);
  await read();
  for (const type of ["elicitation", "error", "thought"]) {
    await call("POST", `/session/${a.sessionId}/activity`, { token: a.token, body: { type, body: "x" } });
    await read();
  }
  const { db } = await env();
  await assert.rejects(
    db.updateTable("sessions").set({ status: "paused" as never }).where("id", "=", a.sessionId).execute(),
  );
  for (const s of seen) assert.ok(["active", "awaiting_input", "error", "complete", "canceled"].includes(s));
  assert.deepEqual([...seen].sort(), ["active", "awaiting_input", "error"]);
});

test("SESS-003 SESS-053 a plan holds at most 50 { content, status } items", async () => {
  const { a } = await twoAgents();
  const fifty = Array.from({ length: 50 }, (_, i) => item(`step ${i}`));
  const ok = await patch(a.token, a.sessionId, { plan: fifty });
  assert.equal(ok.status, 200);
  assert.equal(ok.body.data.plan.length, 50);
  const over = await patch(a.token, a.sessionId, { plan: [...fifty, item("one too many")] });
  assert.equal(over.status, 400);
  assert.equal(over.body.error.code, "VALIDATION_ERROR");
  assert.equal(over.body.error.details.fields[0].path, "plan");
  const extraKey = await patch(a.token, a.sessionId, { plan: [{ content: "x", status: "pending", due: 1 }] });
  assert.equal(extraKey.status, 400);
  const empty = await patch(a.token, a.sessionId, { plan: [item("")] });
  assert.equal(empty.status, 400);
});

test("SESS-004 plan item status is pending, in_progress, completed or canceled", async () => {
  const { a } = await twoAgents();
  const statuses = ["pending", "in_progress", "completed", "canceled"];
  const ok = await patch(a.token, a.sessionId, { plan: statuses.map((s) => item(`do ${s}`, s)) });
  assert.equal(ok.status, 200);
  assert.deepEqual(ok.body.data.plan.map((p: { status: string }) => p.status), statuses);
  const bad = await patch(a.token, a.sessionId, { plan: [item("x", "done")] });
  assert.equal(bad.status, 400);
  assert.equal(bad.body.error.details.fields[0].path, "plan.0.status");
});

test("SESS-048 GET /session/:id returns your own session as { session, activities }", async () => {
  const { a } = await twoAgents();
  await call("POST", `/session/${a.sessionId}/activity`, {
    token: a.token,
    body: { type: "thought", body: "t1" },
  });
  await call("POST", `/session/${a.sessionId}/activity`, {
    token: a.token,
    body: { type: "action", action: "edit", parameter: "src/a.ts", result: "ok" },
  });
  const res = await call("GET", `/session/${a.sessionId}`, { token: a.token });
  assert.equal(res.status, 200);
  assert.ok("session" in res.body.data && "activities" in res.body.data);
  const [first, second] = res.body.data.activities;
  assert.equal(first.type, "thought");
  assert.equal(first.body, "t1");
  assert.deepEqual(
    { type: second.type, action: second.action, parameter: second.parameter, result: second.result },
    { type: "action", action: "edit", parameter: "src/a.ts", result: "ok" },
  );
  assert.equal(res.body.data.pagination.total, 2);
});

test("SESS-048 activities are offset-paginated, oldest first", async () => {
  const { a } = await twoAgents();
  for (let i = 0; i < 5; i++) {
    await call("POST", `/session/${a.sessionId}/activity`, {
      token: a.token,
      body: { type: "thought", body: `n${i}` },
    });
  }
  const page = await call("GET", `/session/${a.sessionId}?limit=2&offset=2`, { token: a.token });
  assert.deepEqual(page.body.data.activities.map((x: { body: string }) => x.body), ["n2", "n3"]);
  assert.deepEqual(page.body.data.pagination, { limit: 2, offset: 2, total: 5, hasMore: true });
  for (const bad of ["limit=0", "limit=501", "offset=-1", "limit=abc"]) {
    const res = await call("GET", `/session/${a.sessionId}?${bad}`, { token: a.token });
    assert.equal(res.status, 400, bad);
    assert.equal(res.body.error.code, "VALIDATION_ERROR");
  }
  assert.equal((await call("GET", `/session/${a.sessionId}?limit=500`, { token: a.token })).status, 200);
});

test("SESS-049 an orchestrator reads any session of its project", async () => {
  const { a, b: orch } = await twoAgents("orchestrator");
  const res = await call("GET", `/session/${a.sessionId}`, { token: orch.token });
  assert.equal(res.status, 200);
  assert.equal(res.body.data.session.agent.id, a.agentId);
  // ...but not one of another project.
  const other = await newProject();
  const stranger = await pairAgent(other.projectId);
  const foreign = await call("GET", `/session/${stranger.sessionId}`, { token: orch.token });
  assert.equal(foreign.status, 404);
});

test("SESS-050 a non-orchestrator reading another agent's session gets 404 NOT_FOUND", async () => {
  const { a, b } = await twoAgents();
  const res = await call("GET", `/session/${a.sessionId}`, { token: b.token });
  assert.equal(res.status, 404);
  assert.equal(res.body.error.code, "NOT_FOUND");
  const unknown = await call("GET", `/session/${crypto.randomUUID()}`, { token: b.token });
  assert.equal(unknown.status, 404);
  assert.deepEqual(Object.keys(unknown.body.error).sort(), Object.keys(res.body.error).sort());
  assert.equal((await call("GET", "/session/not-a-uuid", { token: b.token })).status, 404);
});

test("SESS-051 PATCH /session needs scope write:ledger", async () => {
  const { projectId } = await newProject();
  const key = await admin("POST", `/projects/${projectId}/api-keys`, {
    agentName: "reader",
    scopes: ["read:board"],
  });
  const a = await pairAgent(projectId);
  const res = await patch(key.key, a.sessionId, { plan: [] });
  assert.equal(res.status, 403);
  assert.equal(res.body.error.code, "FORBIDDEN");
  assert.equal(res.body.error.details.requiredScope, "write:ledger");
});

test("SESS-052 PATCH status accepts only canceled or complete", async () => {
  const { a } = await twoAgents();
  for (const status of ["active", "error", "done", "awaiting_input"]) {
    const res = await patch(a.token, a.sessionId, { status });
    assert.equal(res.status, 400, status);
    assert.equal(res.body.error.code, "VALIDATION_ERROR");
  }
});

test("SESS-054 each plan replacement increases the plan version", async () => {
  const { a } = await twoAgents();
  const v1 = await patch(a.token, a.sessionId, { plan: [item("a")] });
  assert.equal(v1.body.data.planVersion, 1);
  const v2 = await patch(a.token, a.sessionId, { plan: [item("a", "completed"), item("b")] });
  assert.equal(v2.body.data.planVersion, 2);
  assert.deepEqual(v2.body.data.plan, [item("a", "completed"), item("b")]);
  const cleared = await patch(a.token, a.sessionId, { plan: [] });
  assert.equal(cleared.body.data.planVersion, 3);
  assert.deepEqual(cleared.body.data.plan, []);
});

test("SESS-055 a stale expectedPlanVersion answers 409 CONFLICT with currentPlanVersion, plan unchanged", async () => {
  const { a } = await twoAgents();
  await patch(a.token, a.sessionId, { plan: [item("v1")], expectedPlanVersion: 0 });
  await patch(a.token, a.sessionId, { plan: [item("v2")], expectedPlanVersion: 1 });
  const stale = await patch(a.token, a.sessionId, { plan: [item("lost")], expectedPlanVersion: 1 });
  assert.equal(stale.status, 409);
  assert.equal(stale.body.error.code, "CONFLICT");
  assert.equal(stale.body.error.details.currentPlanVersion, 2);
  const now = await call("GET", `/session/${a.sessionId}`, { token: a.token });
  assert.deepEqual(now.body.data.session.plan, [item("v2")]);
  assert.equal(now.body.data.session.planVersion, 2);
  // A stale version with a status change changes nothing either.
  const staleCancel = await patch(a.token, a.sessionId, { status: "canceled", expectedPlanVersion: 0 });
  assert.equal(staleCancel.status, 409);
  assert.equal((await call("GET", "/me", { token: a.token })).status, 200);
});

test("SESS-056 a PATCH with neither status nor plan answers 400", async () => {
  const { a } = await twoAgents();
  for (const body of [{}, { expectedPlanVersion: 0 }]) {
    const res = await patch(a.token, a.sessionId, body);
    assert.equal(res.status, 400);
    assert.equal(res.body.error.code, "VALIDATION_ERROR");
  }
});

test("SESS-057 a non-orchestrator patching someone else's session gets 403 use_closeout_path", async () => {
  const { a, b } = await twoAgents();
  for (const body of [{ plan: [item("mine now")] }, { status: "canceled" }, { status: "complete" }]) {
    const res = await patch(b.token, a.sessionId, body);
    assert.equal(res.status, 403);
    assert.equal(res.body.error.code, "FORBIDDEN");
    assert.equal(res.body.error.details.recovery.action, "use_closeout_path");
  }
  const after = await call("GET", `/session/${a.sessionId}`, { token: a.token });
  assert.equal(after.body.data.session.status, "active");
  assert.equal(after.body.data.session.planVersion, 0);
});

test("SESS-058 PATCH on an unknown session answers 404 NOT_FOUND", async () => {
  const { a } = await twoAgents();
  const res = await patch(a.token, crypto.randomUUID(), { plan: [] });
  assert.equal(res.status, 404);
  assert.equal(res.body.error.code, "NOT_FOUND");
});

test("SESS-059 a successful PATCH answers the updated session", async () => {
  const { a } = await twoAgents();
  const res = await patch(a.token, a.sessionId, { plan: [item("shape")] });
  assert.equal(res.status, 200);
  assert.equal(res.body.data.id, a.sessionId);
  assert.equal(res.body.data.status, "active");
  assert.deepEqual(res.body.data.plan, [item("shape")]);
  assert.equal(res.body.data.planVersion, 1);
});

test("SESS-018 PATCH status canceled cancels the session and revokes its token", async () => {
  const { a, b: orch } = await twoAgents("orchestrator");
  const res = await patch(a.token, a.sessionId, { status: "canceled" });
  assert.equal(res.status, 200);
  assert.equal(res.body.data.status, "canceled");
  assert.ok(res.body.data.endedAt);
  const after = await call("GET", "/me", { token: a.token });
  assert.equal(after.status, 401);
  const seen = await call("GET", `/session/${a.sessionId}`, { token: orch.token });
  assert.equal(seen.body.data.session.status, "canceled");
  const again = await patch(orch.token, a.sessionId, { status: "complete" });
  assert.equal(again.status, 409);
  assert.equal(again.body.error.code, "CONFLICT");
  // The state changes are in the project's event feed.
  const { db } = await env();
  const kinds = (await db.selectFrom("events").select("kind").where("entity_id", "=", a.sessionId)
    .orderBy("seq").execute()).map((e) => e.kind);
  assert.deepEqual(kinds, ["session.opened", "session.canceled"]);
});

test("SESS-019 only an orchestrator force-completes, and only another agent's session", async () => {
  const { a, b: orch } = await twoAgents("orchestrator");
  const own = await patch(a.token, a.sessionId, { status: "complete" });
  assert.equal(own.status, 403);
  assert.equal(own.body.error.details.recovery.action, "use_closeout_path");
  assert.equal(own.body.error.details.recovery.endpoint, "POST /session/complete");
  const self = await patch(orch.token, orch.sessionId, { status: "complete" });
  assert.equal(self.status, 403);
  const forced = await patch(orch.token, a.sessionId, { status: "complete" });
  assert.equal(forced.status, 200);
  assert.equal(forced.body.data.status, "complete");
  assert.equal((await call("GET", "/me", { token: a.token })).status, 401);
  assert.equal((await call("GET", "/me", { token: orch.token })).status, 200);
});
