import assert from "node:assert/strict";
import { advanceClock, call, newProject, test } from "../helpers/mod.ts";
import { alignClock, apiKey } from "./helpers.ts";

test("RATE-036 RATE-038 RATE-039 the 21st PATCH /brief in a minute answers 429 ENDPOINT_RATE_LIMITED", async () => {
  const { projectId } = await newProject();
  const writer = await apiKey(projectId, ["write:brief"]);
  await alignClock(60_000);
  for (let i = 0; i < 20; i++) {
    const res = await call("PATCH", "/brief", { token: writer.token, body: { scope: `v${i}` } });
    assert.equal(res.status, 200, res.text);
  }
  const res = await call("PATCH", "/brief", { token: writer.token, body: { scope: "one too many" } });
  assert.equal(res.status, 429);
  assert.equal(res.body.error.code, "ENDPOINT_RATE_LIMITED");
  assert.equal(res.body.error.details.endpoint, "PATCH /brief");
  assert.equal(res.body.error.details.window, "minute");
  assert.equal(res.headers.get("X-RateLimit-Endpoint"), "PATCH /brief");
  assert.equal(res.headers.get("X-RateLimit-Window"), "minute");
  assert.ok(Number(res.headers.get("Retry-After")) >= 1);
  await advanceClock(60_000);
  const later = await call("PATCH", "/brief", { token: writer.token, body: { scope: "next minute" } });
  assert.equal(later.status, 200);
});

test("RATE-036 the minute budget is per agent", async () => {
  const { projectId } = await newProject();
  const a = await apiKey(projectId, ["write:brief"]);
  const b = await apiKey(projectId, ["write:brief"]);
  await alignClock(60_000);
  for (let i = 0; i < 20; i++) {
    assert.equal((await call("PATCH", "/brief", { token: a.token, body: { scope: `a${i}` } })).status, 200);
  }
  assert.equal((await call("PATCH", "/brief", { token: a.token, body: { scope: "x" } })).status, 429);
  assert.equal((await call("PATCH", "/brief", { token: b.token, body: { scope: "b" } })).status, 200);
});

test("RATE-037 RATE-038 the 201st PATCH /brief in an hour answers 429 ENDPOINT_RATE_LIMITED (window hour)", async () => {
  const { projectId } = await newProject();
  const writer = await apiKey(projectId, ["write:brief"]);
  await alignClock(3_600_000);
  for (let minute = 0; minute < 10; minute++) {
    for (let i = 0; i < 20; i++) {
      const res = await call("PATCH", "/brief", { token: writer.token, body: { scope: `${minute}-${i}` } });
      assert.equal(res.status, 200, res.text);
    }
    await advanceClock(61_000);
  }
  const res = await call("PATCH", "/brief", { token: writer.token, body: { scope: "201st" } });
  assert.equal(res.status, 429);
  assert.equal(res.body.error.code, "ENDPOINT_RATE_LIMITED");
  assert.equal(res.body.error.details.window, "hour");
  assert.equal(res.headers.get("X-RateLimit-Window"), "hour");
  assert.ok(Number(res.headers.get("Retry-After")) > 60);
});
