import assert from "node:assert/strict";
import { call, env, newProject, pairAgent, test } from "../helpers/mod.ts";
import { briefForContext, isBlankBrief, serializeBrief } from "@/domain/brief/content.ts";
import { apiKey, subAgentToken } from "./helpers.ts";

test("BRIEF-003 BRIEF-004 context shows the brief as { version, content } with content serialized in field order", async () => {
  const { projectId } = await newProject();
  const writer = await apiKey(projectId, ["write:brief"]);
  const { db } = await env();
  assert.deepEqual(
    await briefForContext(db, projectId),
    { version: 0, content: "{}" },
    "never written: version 0",
  );
  await call("PATCH", "/brief", {
    token: writer.token,
    body: { custom: { k: 1 }, context: "c", scope: "s", goals: ["g"] },
  });
  const brief = await briefForContext(db, projectId);
  assert.equal(brief.version, 1);
  assert.equal(brief.content, '{"scope":"s","goals":["g"],"context":"c","custom":{"k":1}}');
  assert.deepEqual(JSON.parse(brief.content), { scope: "s", goals: ["g"], context: "c", custom: { k: 1 } });
});

test("BRIEF-004 serialization is canonical whatever the stored key order", () => {
  assert.equal(
    serializeBrief({ custom: {}, stack: ["Deno"], scope: "x" }),
    serializeBrief({ scope: "x", stack: ["Deno"], custom: {} }),
  );
  assert.equal(serializeBrief({}), "{}");
});

test("BRIEF-008 blank means no field with content", () => {
  assert.equal(isBlankBrief({}), true);
  assert.equal(isBlankBrief({ scope: " ", goals: [], stack: ["", "  "], custom: {} }), true);
  assert.equal(isBlankBrief({ goals: ["x"] }), false);
  assert.equal(isBlankBrief({ custom: { a: null } }), false);
  assert.equal(isBlankBrief({ constraints: "none" }), false);
});

test("BRIEF-001 each write records a brief.updated event", async () => {
  const { projectId } = await newProject();
  const writer = await apiKey(projectId, ["write:brief"]);
  await call("PATCH", "/brief", { token: writer.token, body: { scope: "x" } });
  const { db } = await env();
  const events = await db.selectFrom("events").select(["kind", "data"]).where("project_id", "=", projectId)
    .where("kind", "=", "brief.updated").execute();
  assert.equal(events.length, 1);
  assert.equal(events[0]!.data.version, 1);
});

test("BRIEF-017 a session acting as a sub-agent (X-Svc-SubAgent) cannot write the blank brief either", async () => {
  const { projectId } = await newProject();
  const parent = await pairAgent(projectId, { role: "orchestrator" });
  await subAgentToken(parent, "helper");
  const res = await call("PATCH", "/brief", {
    token: parent.token,
    body: { scope: "x" },
    headers: { "X-Svc-SubAgent": "helper" },
  });
  assert.equal(res.status, 403);
  assert.equal(res.body.error.code, "FORBIDDEN");
  assert.equal((await call("PATCH", "/brief", { token: parent.token, body: { scope: "x" } })).status, 200);
});
