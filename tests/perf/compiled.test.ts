import assert from "node:assert/strict";
import { compileTemplate, Slot, templateParams } from "@/db/compiled.ts";
import { admissionQuery } from "@/domain/auth/admit.ts";
import { call, env, newProject, pairAgent, test } from "../helpers/mod.ts";

/**
 * Issue 27.1: the admission statement (every authenticated call) is compiled once per route shape and
 * run with fresh parameters. What it sends must be exactly what compiling it again would send.
 */

const VALUES: Record<string, unknown> = {
  kind: "session",
  hash: "abc",
  idleUntil: new Date("2026-03-01T10:30:00Z"),
  burstStart: new Date("2026-03-01T10:00:00Z"),
  burstEnd: new Date("2026-03-01T10:00:10Z"),
  minuteStart: new Date("2026-03-01T10:00:00Z"),
  minuteEnd: new Date("2026-03-01T10:01:00Z"),
  hourStart: new Date("2026-03-01T10:00:00Z"),
  hourEnd: new Date("2026-03-01T11:00:00Z"),
  cost: 2,
};

test("PERF2-3 a compiled admission template sends the SQL and parameters a fresh compile would, at another instant", async () => {
  const { db } = await env();
  const shapes = [
    { cost: 1, freshness: false, bearer: "x" },
    { cost: 2, freshness: true, bearer: "x", scope: "write:ledger" },
    { cost: 3, freshness: true, bearer: "x", roles: ["generator", "orchestrator"] as const },
  ];
  for (const shape of shapes) {
    const input = { ...shape, roles: "roles" in shape ? [...shape.roles] : undefined };
    const compiledAt = new Date("2026-01-01T00:00:00.123Z");
    const template = compileTemplate(db, admissionQuery(compiledAt, input), compiledAt);
    const later = new Date("2026-03-01T10:00:07.456Z");
    const fresh = admissionQuery(later, input).compile(db);
    assert.equal(template.sql, fresh.sql);
    const expected = fresh.parameters.map((p) => (p instanceof Slot ? VALUES[p.name] : p));
    assert.deepEqual(templateParams(template, later, VALUES), expected);
    assert.ok(expected.some((p) => p instanceof Date && p.getTime() === later.getTime() + 5 * 60_000));
  }
});

test("PERF2-3 a template refuses to run without a slot's value", async () => {
  const { db } = await env();
  const now = new Date();
  const template = compileTemplate(db, admissionQuery(now, { cost: 1, freshness: false, bearer: "x" }), now);
  assert.throws(() => templateParams(template, now, { kind: "session" }), /no value for slot "hash"/);
});

test("PERF2-3 admission through the compiled statement still charges, refreshes and refuses as before", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  const first = await call("GET", "/me", { token: agent.token });
  const second = await call("GET", "/me", { token: agent.token });
  assert.equal(first.status, 200);
  assert.equal(second.status, 200);
  const burst = (r: typeof first) => Number(r.headers.get("x-burst-remaining"));
  // One unit charged per call, unless the minute window turned between the two calls.
  if (new Date().getUTCSeconds() > 1) assert.equal(burst(second), burst(first) - 1);
  const bad = await call("GET", "/me", { token: `${agent.token}x` });
  assert.equal(bad.status, 401);
});
