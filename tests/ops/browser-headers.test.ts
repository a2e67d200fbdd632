import assert from "node:assert/strict";
import { call, callOn, env, test } from "../helpers/mod.ts";
import { startTestEnv } from "../helpers/env.ts";
import { readConfig } from "@/config.ts";

test("CORS_ORIGINS is read as a comma-separated list; unset allows no browser origin", () => {
  assert.deepEqual(readConfig({}).corsOrigins, []);
  assert.deepEqual(readConfig({ CORS_ORIGINS: "https://a.example, https://b.example/" }).corsOrigins, [
    "https://a.example",
    "https://b.example",
  ]);
});

test("CORS: an allowed origin gets Access-Control-Allow-Origin and a preflight answer; others get none", async () => {
  const e = await startTestEnv({ corsOrigins: ["https://app.example"] });
  try {
    const preflight = await callOn(e, "OPTIONS", "/api/me", {
      headers: {
        Origin: "https://app.example",
        "Access-Control-Request-Method": "GET",
        "Access-Control-Request-Headers": "authorization",
      },
    });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get("Access-Control-Allow-Origin"), "https://app.example");
    assert.match(preflight.headers.get("Access-Control-Allow-Headers") ?? "", /Authorization/i);
    const allowed = await callOn(e, "GET", "/api/me", { headers: { Origin: "https://app.example" } });
    assert.equal(allowed.status, 401);
    assert.equal(allowed.headers.get("Access-Control-Allow-Origin"), "https://app.example");
    assert.match(allowed.headers.get("Access-Control-Expose-Headers") ?? "", /X-Request-Id/);
    const other = await callOn(e, "GET", "/api/me", { headers: { Origin: "https://evil.example" } });
    assert.equal(other.headers.get("Access-Control-Allow-Origin"), null);
    const refusedPreflight = await callOn(e, "OPTIONS", "/api/me", {
      headers: { Origin: "https://evil.example", "Access-Control-Request-Method": "GET" },
    });
    assert.equal(refusedPreflight.headers.get("Access-Control-Allow-Origin"), null);
    assert.notEqual(refusedPreflight.status, 204);
  } finally {
    await e.close();
  }
  // The default: no origin is allowed.
  await env();
  const none = await call("GET", "/api/me", { headers: { Origin: "https://app.example" } });
  assert.equal(none.headers.get("Access-Control-Allow-Origin"), null);
});

test("every HTML page carries security headers; the OAuth page keeps its own stricter policy", async () => {
  const docs = await call("GET", "/docs");
  assert.match(docs.headers.get("Content-Type")!, /text\/html/);
  assert.match(docs.headers.get("Content-Security-Policy")!, /frame-ancestors 'none'/);
  assert.match(docs.headers.get("Content-Security-Policy")!, /script-src 'self'/);
  assert.equal(docs.headers.get("X-Frame-Options"), "DENY");
  assert.equal(docs.headers.get("X-Content-Type-Options"), "nosniff");
  assert.equal(docs.headers.get("Referrer-Policy"), "no-referrer");
  const authorize = await call("GET", "/oauth/authorize?client_id=nope");
  assert.match(authorize.headers.get("Content-Type") ?? "", /text\/html/);
  assert.match(authorize.headers.get("Content-Security-Policy")!, /default-src 'none'/);
  assert.equal(authorize.headers.get("X-Frame-Options"), "DENY");
});
