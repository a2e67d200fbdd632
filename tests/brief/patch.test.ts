import assert from "node:assert/strict";
import { call, env, newProject, pairAgent, test } from "../helpers/mod.ts";
import { apiKey, subAgentToken } from "./helpers.ts";

async function setup() {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  const writer = await apiKey(projectId, ["write:brief"]);
  return { projectId, agent, writer };
}

async function storedBrief(projectId: string) {
  const { db } = await env();
  return await db.selectFrom("projects").select(["brief", "brief_version"]).where("id", "=", projectId)
    .executeTakeFirstOrThrow();
}

test("BRIEF-001 each successful write increases the version by one", async () => {
  const { writer, projectId } = await setup();
  const first = await call("PATCH", "/brief", { token: writer.token, body: { scope: "A tool" } });
  assert.equal(first.status, 200);
  assert.equal(first.body.data.version, 1);
  const second = await call("PATCH", "/brief", { token: writer.token, body: { context: "More" } });
  assert.equal(second.body.data.version, 2);
  assert.equal((await storedBrief(projectId)).brief_version, 2);
});

test("BRIEF-001 every earlier version is kept in brief_versions", async () => {
  const { writer, projectId } = await setup();
  await call("PATCH", "/brief", { token: writer.token, body: { scope: "v1" } });
  await call("PATCH", "/brief", { token: writer.token, body: { scope: "v2" } });
  const { db } = await env();
  const rows = await db.selectFrom("brief_versions").select(["version", "content"])
    .where("project_id", "=", projectId).orderBy("version").execute();
  assert.deepEqual(rows.map((r) => r.version), [1, 2]);
  assert.equal((rows[0]!.content as Record<string, unknown>).scope, "v1");
  assert.equal((rows[1]!.content as Record<string, unknown>).scope, "v2");
});

test("BRIEF-002 BRIEF-009 every field is accepted with its type (string or string[] where allowed)", async () => {
  const { writer, projectId } = await setup();
  const body = {
    scope: "Scope",
    goals: ["g1", "g2"],
    stack: "Deno",
    constraints: ["no any"],
    context: "ctx",
    custom: { team: { size: 3 } },
  };
  const res = await call("PATCH", "/brief", { token: writer.token, body: { ...body, expectedVersion: 0 } });
  assert.equal(res.status, 200);
  assert.deepEqual((await storedBrief(projectId)).brief, body);
  const asStrings = await call("PATCH", "/brief", {
    token: writer.token,
    body: { goals: "one goal", stack: ["Deno", "Hono"], constraints: "none" },
  });
  assert.equal(asStrings.status, 200);
});

test("BRIEF-010 a body with only expectedVersion answers 400 VALIDATION_ERROR", async () => {
  const { writer } = await setup();
  for (const body of [{ expectedVersion: 0 }, {}]) {
    const res = await call("PATCH", "/brief", { token: writer.token, body });
    assert.equal(res.status, 400);
    assert.equal(res.body.error.code, "VALIDATION_ERROR");
  }
});

test("BRIEF-011 a field of the wrong type answers 400 VALIDATION_ERROR naming it", async () => {
  const { writer } = await setup();
  const cases: [Record<string, unknown>, string][] = [
    [{ custom: "not an object" }, "custom"],
    [{ custom: ["a"] }, "custom"],
    [{ scope: 42 }, "scope"],
    [{ context: ["a"] }, "context"],
    [{ goals: [1, 2] }, "goals"],
    [{ constraints: { a: 1 } }, "constraints"],
    [{ scope: "ok", expectedVersion: "1" }, "expectedVersion"],
  ];
  for (const [body, field] of cases) {
    const res = await call("PATCH", "/brief", { token: writer.token, body });
    assert.equal(res.status, 400, JSON.stringify(body));
    assert.equal(res.body.error.code, "VALIDATION_ERROR");
    assert.ok(
      res.body.error.details.fields.some((f: { path: string }) => f.path.startsWith(field)),
      JSON.stringify(res.body.error.details),
    );
  }
});

test("BRIEF-011 an unknown field is refused rather than silently dropped", async () => {
  const { writer } = await setup();
  const res = await call("PATCH", "/brief", { token: writer.token, body: { scope: "x", scopes: "typo" } });
  assert.equal(res.status, 400);
  assert.equal(res.body.error.code, "VALIDATION_ERROR");
});

test("BRIEF-012 shallow merge: sent fields replace whole, omitted fields are kept", async () => {
  const { writer, projectId } = await setup();
  await call("PATCH", "/brief", {
    token: writer.token,
    body: { scope: "S", goals: ["a", "b"], custom: { x: 1, y: 2 } },
  });
  await call("PATCH", "/brief", { token: writer.token, body: { goals: ["c"], custom: { z: 3 } } });
  assert.deepEqual((await storedBrief(projectId)).brief, { scope: "S", goals: ["c"], custom: { z: 3 } });
});

test("BRIEF-013 the response is { version, patchedFields } naming the sent fields", async () => {
  const { writer } = await setup();
  const res = await call("PATCH", "/brief", {
    token: writer.token,
    body: { context: "c", scope: "s", expectedVersion: 0 },
  });
  assert.equal(res.status, 200);
  assert.deepEqual(Object.keys(res.body.data).sort(), ["patchedFields", "version"]);
  assert.deepEqual([...res.body.data.patchedFields].sort(), ["context", "scope"]);
});

test("BRIEF-014 a stale expectedVersion answers 409 VERSION_CONFLICT with the current state; nothing written", async () => {
  const { writer, projectId } = await setup();
  await call("PATCH", "/brief", { token: writer.token, body: { scope: "first" } });
  const res = await call("PATCH", "/brief", {
    token: writer.token,
    body: { scope: "second", expectedVersion: 0 },
  });
  assert.equal(res.status, 409);
  assert.equal(res.body.error.code, "VERSION_CONFLICT");
  assert.equal(res.body.error.details.currentVersion, 1);
  assert.deepEqual(res.body.error.details.currentContent, { scope: "first" });
  const stored = await storedBrief(projectId);
  assert.equal(stored.brief_version, 1);
  assert.equal(stored.brief.scope, "first");
  const ahead = await call("PATCH", "/brief", {
    token: writer.token,
    body: { scope: "x", expectedVersion: 5 },
  });
  assert.equal(ahead.status, 409);
  const right = await call("PATCH", "/brief", {
    token: writer.token,
    body: { scope: "x", expectedVersion: 1 },
  });
  assert.equal(right.status, 200);
  assert.equal(right.body.data.version, 2);
});

test("BRIEF-014 concurrent writers with the same expectedVersion: exactly one wins", async () => {
  const { writer, projectId } = await setup();
  const results = await Promise.all(
    Array.from(
      { length: 4 },
      (_, i) =>
        call("PATCH", "/brief", { token: writer.token, body: { scope: `w${i}`, expectedVersion: 0 } }),
    ),
  );
  assert.equal(results.filter((r) => r.status === 200).length, 1);
  assert.equal(results.filter((r) => r.status === 409).length, 3);
  assert.equal((await storedBrief(projectId)).brief_version, 1);
});

test("BRIEF-015 without expectedVersion every write applies, even concurrently", async () => {
  const { writer, projectId } = await setup();
  const results = await Promise.all(
    Array.from(
      { length: 3 },
      (_, i) => call("PATCH", "/brief", { token: writer.token, body: { scope: `w${i}` } }),
    ),
  );
  assert.ok(results.every((r) => r.status === 200), results.map((r) => r.text).join("\n"));
  assert.deepEqual(results.map((r) => r.body.data.version).sort(), [1, 2, 3]);
  assert.equal((await storedBrief(projectId)).brief_version, 3);
});

test("BRIEF-005 a token with write:brief may write a brief that has content", async () => {
  const { writer } = await setup();
  assert.equal((await call("PATCH", "/brief", { token: writer.token, body: { scope: "a" } })).status, 200);
  assert.equal((await call("PATCH", "/brief", { token: writer.token, body: { scope: "b" } })).status, 200);
});

test("BRIEF-006 while the brief is blank a session token with write:ticket may write it", async () => {
  const { agent, projectId } = await setup();
  const res = await call("PATCH", "/brief", { token: agent.token, body: { scope: "First brief" } });
  assert.equal(res.status, 200);
  assert.equal(res.body.data.version, 1);
  assert.equal((await storedBrief(projectId)).brief.scope, "First brief");
});

test("BRIEF-008 a brief written only with empty values is still blank", async () => {
  const { agent, writer } = await setup();
  const empty = await call("PATCH", "/brief", {
    token: writer.token,
    body: { scope: "  ", goals: [], stack: [""], custom: {} },
  });
  assert.equal(empty.status, 200);
  const res = await call("PATCH", "/brief", { token: agent.token, body: { scope: "Now real" } });
  assert.equal(res.status, 200);
  const after = await call("PATCH", "/brief", { token: agent.token, body: { scope: "Again" } });
  assert.equal(after.status, 403);
});

test("BRIEF-006 a token with neither write:brief nor write:ticket cannot write a blank brief", async () => {
  const { projectId } = await setup();
  const reader = await apiKey(projectId, ["read:brief", "write:ledger"]);
  const res = await call("PATCH", "/brief", { token: reader.token, body: { scope: "x" } });
  assert.equal(res.status, 403);
  assert.equal(res.body.error.code, "FORBIDDEN");
});

test("BRIEF-006 racing write:ticket writers on a blank brief: the second sees content and is refused", async () => {
  const { projectId } = await setup();
  const a = await apiKey(projectId, ["write:ticket"]);
  const b = await apiKey(projectId, ["write:ticket"]);
  const results = await Promise.all([
    call("PATCH", "/brief", { token: a.token, body: { scope: "from a" } }),
    call("PATCH", "/brief", { token: b.token, body: { scope: "from b" } }),
  ]);
  assert.deepEqual(results.map((r) => r.status).sort(), [200, 403]);
  assert.equal((await storedBrief(projectId)).brief_version, 1);
});

test("BRIEF-007 an explicit write:brief scope or an empty scope list can always write", async () => {
  const { projectId, writer } = await setup();
  const unrestricted = await apiKey(projectId, []);
  assert.equal((await call("PATCH", "/brief", { token: writer.token, body: { scope: "x" } })).status, 200);
  assert.equal(
    (await call("PATCH", "/brief", { token: unrestricted.token, body: { scope: "y" } })).status,
    200,
  );
  assert.equal((await call("PATCH", "/brief", { token: writer.token, body: { scope: "z" } })).status, 200);
});

test("BRIEF-016 writing a brief with content without write:brief answers 403 FORBIDDEN", async () => {
  const { agent, writer, projectId } = await setup();
  await call("PATCH", "/brief", { token: writer.token, body: { scope: "Has content" } });
  const res = await call("PATCH", "/brief", { token: agent.token, body: { context: "more" } });
  assert.equal(res.status, 403);
  assert.equal(res.body.error.code, "FORBIDDEN");
  assert.equal(res.body.error.details.recovery.action, "REPAIR_OR_REFRESH");
  assert.equal((await storedBrief(projectId)).brief_version, 1);
});

test("BRIEF-017 a sub-agent token cannot write the brief, even while blank", async () => {
  const { agent, projectId } = await setup();
  const sub = await subAgentToken(agent);
  const res = await call("PATCH", "/brief", { token: sub, body: { scope: "x" } });
  assert.equal(res.status, 403);
  assert.equal(res.body.error.code, "FORBIDDEN");
  assert.equal((await storedBrief(projectId)).brief_version, 0);
});

test("BRIEF-018 there is no GET /brief: JSON 404 NOT_FOUND", async () => {
  const { agent } = await setup();
  const res = await call("GET", "/brief", { token: agent.token });
  assert.equal(res.status, 404);
  assert.equal(res.body.error.code, "NOT_FOUND");
});
