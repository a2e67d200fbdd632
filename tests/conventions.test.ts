import assert from "node:assert/strict";
import { sql } from "kysely";
import { admin, ADMIN_TOKEN, call, callOn, env, newProject, pairAgent, test } from "./helpers/mod.ts";
import { startTestEnv } from "./helpers/env.ts";
import { alignToWindow } from "./sessions/helpers.ts";

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

test("CONV-013 every error body is { error: { code, message, details? } }", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  const errors = [
    await call("GET", "/me"),
    await call("GET", "/api/no/such/path"),
    await call("GET", `/session/${crypto.randomUUID()}`, { token: agent.token }),
    await call("PATCH", `/session/${agent.sessionId}`, { token: agent.token, body: {} }),
    await call("POST", "/pair/code", { token: agent.token, body: { agentName: "x" } }),
    await call("POST", "/session/refresh", { body: { token: "svc_sess_nope" } }),
  ];
  for (const res of errors) {
    assert.ok(res.status >= 400, String(res.status));
    assert.deepEqual(Object.keys(res.body), ["error"]);
    const keys = Object.keys(res.body.error);
    assert.ok(keys.every((k) => ["code", "message", "details"].includes(k)), keys.join());
    assert.equal(typeof res.body.error.code, "string");
    assert.equal(typeof res.body.error.message, "string");
    if ("details" in res.body.error) assert.equal(typeof res.body.error.details, "object");
  }
});

test("CONV-015 every documented operation needs a bearer token except pairing, refresh and prompt", async () => {
  const doc = (await call("GET", "/openapi.json")).body;
  const publicOps = new Set(["post /pair/connect", "post /session/refresh", "get /pair/prompt"]);
  let checked = 0;
  for (
    const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, { security?: unknown[] }>>)
  ) {
    for (const [method, op] of Object.entries(ops)) {
      const key = `${method} ${path}`;
      const concrete = path.replace(/\{[^}]+\}/g, crypto.randomUUID());
      const res = await call(method.toUpperCase(), concrete, method === "get" ? {} : { body: {} });
      if (publicOps.has(key)) {
        assert.deepEqual(op.security, [], key);
        assert.notEqual(res.status, 401, key);
      } else if ((op.security ?? []).length > 0) {
        assert.equal(res.status, 401, key);
        assert.equal(res.body.error.code, "UNAUTHORIZED", key);
        checked++;
      }
    }
  }
  assert.ok(checked > 5);
  assert.equal((await call("GET", "/health")).status, 200);
});

test("CONV-017 X-Svc-Platform is ignored outside GET /context", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId, { platform: "claude-code" });
  const headers = { "X-Svc-Platform": "some-other-platform" };
  assert.equal((await call("GET", "/me", { token: agent.token, headers })).status, 200);
  const posted = await call("POST", `/session/${agent.sessionId}/activity`, {
    token: agent.token,
    headers,
    body: { type: "thought", body: "platform header ignored" },
  });
  assert.equal(posted.status, 201);
  assert.equal(
    (await call("GET", `/session/${agent.sessionId}`, { token: agent.token, headers })).status,
    200,
  );
});

test("CONV-033 gates carry details.recovery { action, endpoint, payloadHint, hint }", async () => {
  const { projectId } = await newProject({ password: "pw-conv" });
  const generator = await pairAgent(projectId, { password: "pw-conv" });
  const code = await admin("POST", `/projects/${projectId}/pairing-codes`, {});
  const gates = [
    // A validation gate (pairing password) and permission gates (role, scope, own session).
    await call("POST", "/pair/connect", {
      body: { code: code.code },
      headers: { "X-Forwarded-For": "10.9.9.9" },
    }),
    await call("POST", "/subagent/session", {
      token: generator.token,
      body: { name: "w", role: "generator" },
    }),
    await call("PATCH", `/session/${generator.sessionId}`, {
      token: generator.token,
      body: { status: "complete" },
    }),
  ];
  const key = await admin("POST", `/projects/${projectId}/api-keys`, {
    agentName: "ro",
    scopes: ["read:board"],
  });
  gates.push(await call("POST", `/session/${generator.sessionId}/report`, { token: key.key, body: {} }));
  for (const res of gates) {
    const recovery = res.body.error.details?.recovery;
    assert.ok(recovery, `${res.status} ${res.body.error.code} has a recovery`);
    assert.deepEqual(Object.keys(recovery).sort(), ["action", "endpoint", "hint", "payloadHint"]);
    assert.equal(typeof recovery.action, "string");
    assert.match(recovery.endpoint, /^(GET|POST|PATCH|PUT|DELETE) \//);
    assert.equal(typeof recovery.hint, "string");
    assert.ok(recovery.payloadHint === null || typeof recovery.payloadHint === "object");
    if (recovery.payloadHint) assert.match(JSON.stringify(recovery.payloadHint), /<[^>]+>/);
  }
});

test("CONV-035 a body or query failing validation answers 400 VALIDATION_ERROR with field errors", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  const body = await call("POST", `/session/${agent.sessionId}/activity`, {
    token: agent.token,
    body: { type: "thought", body: "x".repeat(4001), ephemeral: "no" },
  });
  assert.equal(body.status, 400);
  assert.equal(body.body.error.code, "VALIDATION_ERROR");
  const paths = body.body.error.details.fields.map((f: { path: string }) => f.path);
  assert.ok(paths.includes("ephemeral"), paths.join());
  for (const field of body.body.error.details.fields) {
    assert.deepEqual(Object.keys(field).sort(), ["code", "message", "path"]);
  }
  const query = await call("GET", `/session/${agent.sessionId}?limit=9999`, { token: agent.token });
  assert.equal(query.status, 400);
  assert.equal(query.body.error.code, "VALIDATION_ERROR");
  assert.equal(query.body.error.details.fields[0].path, "limit");
});

test("CONV-036 a missing scope or a wrong role answers 403 FORBIDDEN", async () => {
  const { projectId } = await newProject();
  const generator = await pairAgent(projectId);
  const scopedGenerator = await admin("POST", `/projects/${projectId}/api-keys`, {
    agentName: "gen-with-agents-scope",
    role: "generator",
    scopes: ["write:agents"],
  });
  const wrongRole = await call("POST", "/pair/code", {
    token: scopedGenerator.key,
    body: { agentName: "x" },
  });
  assert.equal(wrongRole.status, 403);
  assert.equal(wrongRole.body.error.code, "FORBIDDEN");
  assert.equal(typeof wrongRole.body.error.details.guidance, "string");
  const key = await admin("POST", `/projects/${projectId}/api-keys`, {
    agentName: "narrow",
    scopes: ["read:board"],
  });
  const noScope = await call("PATCH", `/session/${generator.sessionId}`, {
    token: key.key,
    body: { plan: [] },
  });
  assert.equal(noScope.status, 403);
  assert.equal(noScope.body.error.code, "FORBIDDEN");
});

test("CONV-043 CONV-044 an unexpected failure answers 500 INTERNAL with requestId = X-Request-Id", async () => {
  const e = await startTestEnv();
  try {
    const org = await callOn(e, "POST", "/admin/orgs", { token: ADMIN_TOKEN, body: { name: "Broken" } });
    const project = await callOn(e, "POST", "/admin/projects", {
      token: ADMIN_TOKEN,
      body: { orgId: org.body.data.id, name: "Broken", ticketPrefix: "BRK" },
    });
    const code = await callOn(e, "POST", `/admin/projects/${project.body.data.id}/pairing-codes`, {
      token: ADMIN_TOKEN,
      body: {},
    });
    const paired = await callOn(e, "POST", "/pair/connect", {
      body: { code: code.body.data.code, agentName: "a" },
    });
    const { sessionToken, sessionId } = paired.body.data;
    await sql`DROP TABLE session_activities`.execute(e.db);
    const res = await callOn(e, "GET", `/session/${sessionId}`, {
      token: sessionToken,
      headers: { "X-Request-Id": "trace-500-check" },
    });
    assert.equal(res.status, 500);
    assert.equal(res.body.error.code, "INTERNAL");
    assert.equal(res.body.error.details.requestId, "trace-500-check");
    assert.equal(res.headers.get("X-Request-Id"), "trace-500-check");
    // A generated request id is reported the same way, and no internals leak.
    const generated = await callOn(e, "GET", `/session/${sessionId}`, { token: sessionToken });
    assert.equal(generated.body.error.details.requestId, generated.headers.get("X-Request-Id"));
    assert.doesNotMatch(generated.text, /session_activities|relation|stack/i);
  } finally {
    await e.close();
  }
});

test("CONV-045 the REST base path has no version segment", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  assert.equal((await call("GET", "/api/me", { token: agent.token })).status, 200);
  assert.equal((await call("GET", "/api/v1/me", { token: agent.token })).status, 404);
  const doc = (await call("GET", "/openapi.json")).body;
  for (const path of Object.keys(doc.paths)) assert.doesNotMatch(path, /^\/v\d+\//, path);
  for (const server of doc.servers ?? []) assert.doesNotMatch(server.url, /\/v\d+(\/|$)/);
});

test("CONV-001 REST paths live under /api", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  assert.equal((await call("GET", "/api/me", { token: agent.token })).status, 200);
  // Outside /api (and its alias) the same path does not exist.
  const bare = await (await env()).fetch("/me", { headers: { Authorization: `Bearer ${agent.token}` } });
  assert.equal(bare.status, 404);
  assert.equal((await bare.json()).error.code, "NOT_FOUND");
  const doc = (await call("GET", "/openapi.json")).body;
  assert.ok(Object.keys(doc.paths).includes("/session/{sessionId}"));
});

test("CONV-003 names carrying the service's name use svc: svc_sess_, svc_sub_, X-Svc-SubAgent", async () => {
  const { projectId } = await newProject();
  const orch = await pairAgent(projectId, { role: "orchestrator" });
  assert.match(orch.token, /^svc_sess_/);
  const sub = await call("POST", "/subagent/session", {
    token: orch.token,
    body: { name: "w", role: "generator" },
  });
  assert.match(sub.body.data.subAgentToken, /^svc_sub_/);
  const asSub = await call("GET", "/me", { token: orch.token, headers: { "X-Svc-SubAgent": "w" } });
  assert.equal(asSub.body.data.agent.subAgentName, "w");
});

test("CONV-004 session endpoints need a bearer token and JSON bodies", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  const noToken = await call("PATCH", `/session/${agent.sessionId}`, { body: { plan: [] } });
  assert.equal(noToken.status, 401);
  const notJson = await call("PATCH", `/session/${agent.sessionId}`, {
    token: agent.token,
    raw: "plan=[]",
    headers: { "Content-Type": "text/plain" },
  });
  assert.equal(notJson.status, 415);
  assert.equal(notJson.body.error.code, "VALIDATION_ERROR");
  const deleteNotJson = await call("DELETE", "/subagent/session", {
    token: agent.token,
    raw: "name=w",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
  });
  assert.equal(deleteNotJson.status, 415);
});

test("CONV-006 a create answers 201 with { data, meta }", async () => {
  const { projectId } = await newProject();
  const orch = await pairAgent(projectId, { role: "orchestrator" });
  const creates = [
    await call("POST", "/pair/code", { token: orch.token, body: { agentName: "new-worker" } }),
    await call("POST", "/subagent/session", { token: orch.token, body: { name: "w", role: "generator" } }),
    await call("POST", `/session/${orch.sessionId}/activity`, {
      token: orch.token,
      body: { type: "thought", body: "x" },
    }),
  ];
  for (const res of creates) {
    assert.equal(res.status, 201);
    assert.deepEqual(Object.keys(res.body).sort(), ["data", "meta"]);
  }
});

test("CONV-030 CONV-032 session activities use documented offset pagination", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  for (let i = 0; i < 3; i++) {
    await call("POST", `/session/${agent.sessionId}/activity`, {
      token: agent.token,
      body: { type: "thought", body: `${i}` },
    });
  }
  const page = await call("GET", `/session/${agent.sessionId}?limit=2&offset=1`, { token: agent.token });
  assert.deepEqual(page.body.data.pagination, { limit: 2, offset: 1, total: 3, hasMore: false });
  assert.equal(page.body.data.activities.length, 2);
  const doc = (await call("GET", "/openapi.json")).body;
  assert.match(doc.paths["/session/{sessionId}"].get.description, /offset pagination/);
});

test("CONV-034 recovery actions come from the documented set", async () => {
  const documented = new Set([
    "REPAIR_OR_REFRESH",
    "REPAIR",
    "PROVIDE_SESSION_ID",
    "MINT_SUBAGENT_SESSION",
    "RETRY_WITH_PASSWORD",
    "REQUEST_NEW_PAIRING_CODE",
    "RETRY_LATER",
  ]);
  const { projectId } = await newProject({ password: "pw-34" });
  const gen = await pairAgent(projectId, { password: "pw-34" });
  const orch = await pairAgent(projectId, { role: "orchestrator", password: "pw-34" });
  const code = await admin("POST", `/projects/${projectId}/pairing-codes`, {});
  const ip = { "X-Forwarded-For": "10.34.34.34" };
  const key = await admin("POST", `/projects/${projectId}/api-keys`, {
    agentName: "ro-34",
    scopes: ["read:board"],
  });
  const refusals = [
    await call("POST", "/pair/connect", { body: { code: code.code }, headers: ip }),
    await call("POST", "/pair/connect", { body: { code: "NOPENOPE" }, headers: ip }),
    await call("POST", "/session/refresh", { body: { token: "svc_sess_unknown" } }),
    await call("POST", `/session/${gen.sessionId}/activity`, {
      token: orch.token,
      body: { type: "thought", body: "x" },
    }),
    await call("PATCH", `/session/${gen.sessionId}`, { token: key.key, body: { plan: [] } }),
    await call("POST", "/subagent/session", { token: gen.token, body: { name: "w", role: "generator" } }),
  ];
  for (const res of refusals) {
    const action = res.body.error.details?.recovery?.action;
    assert.ok(documented.has(action), `${res.body.error.code}: ${action}`);
  }
});

test("CONV-037 CONV-038 CONV-041 CONV-042 session refusals use the documented codes per status", async () => {
  await alignToWindow(3600_000);
  const { projectId } = await newProject();
  const orch = await pairAgent(projectId, { role: "orchestrator" });
  const missing = await call("GET", `/session/${crypto.randomUUID()}`, { token: orch.token });
  assert.equal(missing.status, 404);
  assert.equal(missing.body.error.code, "NOT_FOUND");
  await call("PATCH", `/session/${orch.sessionId}`, { token: orch.token, body: { plan: [] } });
  const stale = await call("PATCH", `/session/${orch.sessionId}`, {
    token: orch.token,
    body: { plan: [], expectedPlanVersion: 0 },
  });
  assert.equal(stale.status, 409);
  assert.equal(stale.body.error.code, "CONFLICT");
  const rule = await call("POST", "/subagent/session", {
    token: orch.token,
    body: { name: "o", role: "orchestrator" },
  });
  assert.equal(rule.status, 422);
  assert.ok(
    ["VALIDATION_ERROR", "INVALID", "INVALID_TRANSITION", "BRIEF_REQUIRED"].includes(rule.body.error.code),
  );
  let token = orch.token;
  let limited;
  for (let i = 0; i < 6; i++) {
    limited = await call("POST", "/session/refresh", { body: { token } });
    if (limited.status === 200) token = limited.body.data.sessionToken;
  }
  assert.equal(limited!.status, 429);
  assert.ok(
    ["RATE_LIMITED", "BACKPRESSURE", "LEDGER_STALE", "ENDPOINT_RATE_LIMITED"].includes(
      limited!.body.error.code,
    ),
  );
});

test("CONV-039 a 413 answer uses PAYLOAD_TOO_LARGE", async () => {
  const res = await call("POST", "/pair/connect", {
    body: { code: "X", padding: "y".repeat(70 * 1024) },
    headers: { "X-Forwarded-For": "10.39.39.39" },
  });
  assert.equal(res.status, 413);
  assert.equal(res.body.error.code, "PAYLOAD_TOO_LARGE");
});
