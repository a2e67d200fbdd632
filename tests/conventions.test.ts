import assert from "node:assert/strict";
import { admin, call, newProject, pairAgent, test } from "./helpers/mod.ts";

test("CONV-014 unknown path under /api answers JSON 404 NOT_FOUND", async () => {
  for (const base of ["/api", "/svc"]) {
    const res = await call("GET", `${base}/no/such/path`);
    assert.equal(res.status, 404);
    assert.equal(res.body.error.code, "NOT_FOUND");
    assert.match(res.headers.get("content-type") ?? "", /application\/json/);
  }
});

test("CONV-002 the /svc alias gives the same response as /api", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  const a = await call("GET", "/api/me", { token: agent.token });
  const b = await call("GET", "/svc/me", { token: agent.token });
  assert.equal(a.status, 200);
  assert.equal(b.status, 200);
  assert.equal(b.body.data.agent.id, a.body.data.agent.id);
});

test("CONV-005 success answers 200 with { data, meta }", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  const res = await call("GET", "/me", { token: agent.token });
  assert.equal(res.status, 200);
  assert.deepEqual(Object.keys(res.body).sort(), ["data", "meta"]);
});

test("CONV-007 meta.callsRemaining is a number on a limited plan", async () => {
  const { projectId } = await newProject({ plan: "free" });
  const agent = await pairAgent(projectId);
  const res = await call("GET", "/me", { token: agent.token });
  assert.equal(typeof res.body.meta.callsRemaining, "number");
});

test("CONV-008 meta.callsRemaining is omitted on enterprise", async () => {
  const { projectId } = await newProject({ plan: "enterprise" });
  const agent = await pairAgent(projectId);
  const res = await call("GET", "/me", { token: agent.token });
  assert.equal(res.status, 200);
  assert.equal("callsRemaining" in res.body.meta, false);
  assert.equal(res.headers.get("X-RateLimit-Limit"), "unlimited");
});

test("CONV-016 a body without JSON content type answers 415 VALIDATION_ERROR", async () => {
  const res = await call("POST", "/pair/connect", {
    raw: "code=ABC",
    headers: { "Content-Type": "text/plain" },
  });
  assert.equal(res.status, 415);
  assert.equal(res.body.error.code, "VALIDATION_ERROR");
});

test("CONV-019 a supplied X-Request-Id is echoed; CONV-020 one is generated otherwise", async () => {
  const echoed = await call("GET", "/api/nothing", { headers: { "X-Request-Id": "req-123" } });
  assert.equal(echoed.headers.get("X-Request-Id"), "req-123");
  const generated = await call("GET", "/api/nothing");
  assert.match(generated.headers.get("X-Request-Id") ?? "", /^[0-9a-f-]{36}$/);
});

test("CONV-022 an X-Request-Id over 64 characters is replaced by a generated one", async () => {
  const long = "x".repeat(65);
  const res = await call("GET", "/api/nothing", { headers: { "X-Request-Id": long } });
  const id = res.headers.get("X-Request-Id") ?? "";
  assert.notEqual(id, long);
  assert.match(id, /^[0-9a-f-]{36}$/);
  const exact = "y".repeat(64);
  assert.equal(
    (await call("GET", "/api/nothing", { headers: { "X-Request-Id": exact } })).headers.get("X-Request-Id"),
    exact,
  );
});

test("CONV-021 errors carry X-Request-Id too", async () => {
  const res = await call("GET", "/me");
  assert.equal(res.status, 401);
  assert.ok(res.headers.get("X-Request-Id"));
  assert.equal(res.body.error.code, "UNAUTHORIZED");
});

test("CONV-040 a body over 1 MiB answers 413 PAYLOAD_TOO_LARGE before parsing", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  const res = await call("GET", "/me", { token: agent.token });
  assert.equal(res.status, 200);
  const big = JSON.stringify({ padding: "x".repeat(1024 * 1024 + 10) });
  const refused = await call("POST", "/me", {
    token: agent.token,
    raw: big,
    headers: { "Content-Type": "application/json" },
  });
  assert.equal(refused.status, 413);
  assert.equal(refused.body.error.code, "PAYLOAD_TOO_LARGE");
});

test("operator API refuses a wrong admin token with 401", async () => {
  const res = await call("POST", "/admin/orgs", { token: "wrong", body: { name: "x" } });
  assert.equal(res.status, 401);
  assert.equal(res.body.error.code, "UNAUTHORIZED");
  const org = await admin("POST", "/orgs", { name: "Acme", plan: "builder" });
  assert.equal(org.plan, "builder");
  assert.equal(org.status, "active");
});
