import assert from "node:assert/strict";
import { createApp } from "@/app.ts";
import { logWriter } from "@/http/access-log.ts";
import { Metrics } from "@/http/metrics.ts";
import { ADMIN_TOKEN, call, callOn, env, newProject, pairAgent, test } from "../helpers/mod.ts";
import { startTestEnv } from "../helpers/env.ts";
import { contractChecked } from "../helpers/contract-check.ts";

/** A second app on the test file's database whose access log goes to `lines`. */
async function loggedApp() {
  const e = await env();
  const lines: string[] = [];
  const metrics = new Metrics();
  const app = createApp(
    { db: e.db, engine: e.engine, clock: e.clock, config: e.config },
    { metrics, log: logWriter("json", (l) => lines.push(l)) },
  );
  const fetch = contractChecked((path: string, init?: RequestInit) =>
    Promise.resolve(app.fetch(new Request(`http://localhost:8787${path}`, init)))
  );
  return { lines, metrics, fetch };
}

test("one JSON access-log line per request: request id, method, route template, status, duration, agent and project, never a token", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  const { lines, fetch } = await loggedApp();
  const res = await fetch(`/api/ticket?id=${crypto.randomUUID()}`, {
    headers: { Authorization: `Bearer ${agent.token}` },
  });
  assert.equal(res.status, 404);
  await res.body?.cancel();
  assert.equal(lines.length, 1, lines.join("\n"));
  const line = JSON.parse(lines[0]!);
  assert.equal(line.msg, "request");
  assert.equal(line.level, "warn");
  assert.equal(line.method, "GET");
  assert.equal(line.route, "/api/ticket");
  assert.equal(line.status, 404);
  assert.equal(line.requestId, res.headers.get("X-Request-Id"));
  assert.equal(typeof line.durationMs, "number");
  assert.equal(line.agentId, agent.agentId);
  assert.equal(line.projectId, projectId);
  assert.match(line.error, /NOT_FOUND$/);
  assert.ok(!lines[0]!.includes(agent.token), "the token must never be logged");

  // A pairing code in the body and a password never reach the log either.
  const code = await call("POST", `/admin/projects/${projectId}/pairing-codes`, {
    token: ADMIN_TOKEN,
    body: {},
  });
  await (await fetch("/api/pair/connect", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ code: code.body.data.code, agentName: "logged", password: "hunter2-secret" }),
  })).body?.cancel();
  const last = lines.at(-1)!;
  assert.equal(JSON.parse(last).route, "/api/pair/connect");
  assert.ok(!last.includes(code.body.data.code) && !last.includes("hunter2"), last);
});

test("the text log format is one readable line with key=value fields", () => {
  const lines: string[] = [];
  logWriter("text", (l) => lines.push(l))("info", "request", { method: "GET", status: 200, agentId: null });
  assert.equal(lines.length, 1);
  assert.match(lines[0]!, /^\d{4}-\d\d-\d\dT\S+ INFO request method=GET status=200$/);
});

test("GET /metrics needs the admin token and answers Prometheus text with requests by route and status", async () => {
  const { fetch } = await loggedApp();
  const anonymous = await fetch("/metrics");
  assert.equal(anonymous.status, 401);
  assert.equal((await anonymous.json()).error.code, "UNAUTHORIZED");
  await (await fetch("/health")).body?.cancel();
  await (await fetch("/api/me")).body?.cancel(); // 401, no token
  const res = await fetch("/metrics", { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` } });
  assert.equal(res.status, 200);
  assert.match(res.headers.get("Content-Type")!, /^text\/plain; version=0\.0\.4/);
  const text = await res.text();
  // Parse the exposition format: every non-comment line is `name{labels} value`.
  const samples = new Map<string, number>();
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})? (\S+)$/.exec(line);
    assert.ok(m, `not a sample line: ${line}`);
    samples.set(m[1]! + (m[2] ?? ""), Number(m[3] === "+Inf" ? Infinity : m[3]));
  }
  assert.equal(samples.get('svc_http_requests_total{method="GET",route="/health",status="200"}'), 1);
  assert.equal(
    samples.get('svc_http_requests_total{method="GET",route="/api/me",status="401"}'),
    1,
  );
  assert.equal(
    samples.get('svc_http_request_duration_seconds_count{method="GET",route="/health",status="200"}'),
    1,
  );
  assert.equal(samples.get("svc_db_up"), 1);
  assert.ok(samples.has('svc_db_pool_max_connections{engine="' + (await env()).engine + '"}'));
  assert.ok(samples.has('svc_background_jobs_pending{state="queued"}'));
  // The process's memory: resident set and V8 heap, in bytes (the soak of `deno task bench` watches RSS).
  assert.ok(samples.get("process_resident_memory_bytes")! > 10 * 1024 * 1024);
  const heapUsed = samples.get('svc_heap_bytes{kind="used"}')!;
  assert.ok(heapUsed > 0 && heapUsed <= samples.get('svc_heap_bytes{kind="total"}')!);
  assert.ok(samples.get("svc_external_memory_bytes")! >= 0);
  for (const type of ["counter", "histogram", "gauge"]) assert.match(text, new RegExp(`# TYPE \\S+ ${type}`));
});

test("limiter refusals are counted by error code and route", async () => {
  const { metrics, fetch } = await loggedApp();
  // The pairing limiter: wrong codes from one address until 429.
  let refused = false;
  for (let i = 0; i < 40 && !refused; i++) {
    const res = await fetch("/api/pair/connect", {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-Forwarded-For": "10.250.250.7" },
      body: JSON.stringify({ code: "WRONG-0000", agentName: "x" }),
    });
    refused = res.status === 429;
    await res.body?.cancel();
  }
  assert.ok(refused, "the pairing limiter never refused");
  assert.ok(metrics.refusals.value({ code: "RATE_LIMITED", route: "/api/pair/connect" }) >= 1);
});

test("GET /health is liveness; GET /ready is 200 with the database current and 503 without a database", async () => {
  const health = await call("GET", "/health");
  assert.deepEqual(health.body, { ok: true, version: "1.0.0" });
  const ready = await call("GET", "/ready");
  assert.equal(ready.status, 200, ready.text);
  assert.equal(ready.body.ready, true);
  assert.deepEqual(ready.body.migrations, { current: true, pending: [] });

  const gone = await startTestEnv();
  await gone.close();
  const down = await callOn(gone, "GET", "/ready");
  assert.equal(down.status, 503, down.text);
  assert.equal(down.body.ready, false);
  assert.equal(down.body.database.ok, false);
  assert.equal((await callOn(gone, "GET", "/health")).status, 200, "liveness does not need the database");
});
