// deno-lint-ignore-file no-explicit-any
import assert from "node:assert/strict";
import { z } from "@hono/zod-openapi";
import { TOOLS } from "@/mcp/tools/index.ts";
import { COORDINATION_TOOLS } from "@/mcp/tools/coordination.ts";
import { claimRoute } from "@/routes/claims.ts";
import { admin, ADMIN_TOKEN, call, pairAgent, test } from "../helpers/mod.ts";
import { insertSprint, insertTicket } from "../helpers/fixtures.ts";
import { callTool, mcp, PROTOCOL_VERSION, rpc } from "./http.ts";
import { member } from "./helpers.ts";

const COORDINATION = [
  "svc_claim",
  "svc_claim_check",
  "svc_release",
  "svc_claim_requests",
  "svc_release_request",
  "svc_release_answer",
  "svc_plan",
];

async function listed(token: string): Promise<any[]> {
  const res = await mcp(rpc("tools/list"), { token, headers: { "MCP-Protocol-Version": PROTOCOL_VERSION } });
  assert.equal(res.status, 200, res.text);
  return res.body.result.tools;
}

async function settings(projectId: string) {
  const res = await call("GET", `/admin/projects/${projectId}`, { token: ADMIN_TOKEN });
  assert.equal(res.status, 200, res.text);
  return res.body.data.settings;
}

async function tool(token: string, name: string, args: unknown) {
  const { block, result } = await callTool(token, name, args);
  return { block, isError: result?.isError === true };
}

test("CLAIMQ-7 settings.mcpTools: default spec (shown), coordination settable, another value 400", async () => {
  const m = await member();
  assert.equal((await settings(m.projectId)).mcpTools, "spec");
  const patched = await admin("PATCH", `/projects/${m.projectId}`, {
    settings: { mcpTools: "coordination" },
  });
  assert.equal(patched.settings.mcpTools, "coordination");
  assert.equal((await settings(m.projectId)).mcpTools, "coordination");
  const bad = await call("PATCH", `/admin/projects/${m.projectId}`, {
    token: ADMIN_TOKEN,
    body: { settings: { mcpTools: "everything" } },
  });
  assert.equal(bad.status, 400, bad.text);
  assert.equal((await settings(m.projectId)).mcpTools, "coordination");
  // Other settings are kept when mcpTools changes back.
  await admin("PATCH", `/projects/${m.projectId}`, { settings: { threadsEnabled: false } });
  const back = await admin("PATCH", `/projects/${m.projectId}`, { settings: { mcpTools: "spec" } });
  assert.equal(back.settings.threadsEnabled, false);
  assert.equal(back.settings.mcpTools, "spec");
});

test("CLAIMQ-7 the spec's 15 tools by default; coordination adds its tools, derived from the routes", async () => {
  const m = await member();
  const spec = await listed(m.token);
  assert.deepEqual(spec.map((t) => t.name), TOOLS.map((t) => t.name));
  assert.equal(spec.length, 15);
  const unknown = await callTool(m.token, "svc_claim", { files: ["src/a.ts"] });
  assert.equal(unknown.result, undefined);
  assert.match(unknown.res.body.error.message, /Unknown tool/);

  await admin("PATCH", `/projects/${m.projectId}`, { settings: { mcpTools: "coordination" } });
  const all = await listed(m.token);
  assert.deepEqual(all.map((t) => t.name), [...TOOLS.map((t) => t.name), ...COORDINATION]);
  // svc_handoff keeps its place and gains `changedFiles` (issue 25 point 4); the other 14 are unchanged.
  const handoffAt = spec.findIndex((t) => t.name === "svc_handoff");
  assert.equal("changedFiles" in spec[handoffAt].inputSchema.properties, false);
  assert.ok("changedFiles" in all[handoffAt].inputSchema.properties);
  assert.deepEqual(
    { ...all[handoffAt].inputSchema.properties, changedFiles: undefined },
    { ...spec[handoffAt].inputSchema.properties, changedFiles: undefined },
  );
  assert.deepEqual(
    spec.filter((_, i) => i !== handoffAt),
    all.slice(0, 15).filter((_, i) => i !== handoffAt),
    "the spec's other tools are unchanged",
  );
  // svc_claim's input is POST /claim's body schema: every field of the route, the same JSON Schema.
  const claim = all.find((t) => t.name === "svc_claim");
  const body = claimRoute.request.body.content["application/json"].schema;
  const route = z.toJSONSchema(body, { io: "input", target: "draft-7" }) as any;
  assert.deepEqual(Object.keys(claim.inputSchema.properties).sort(), Object.keys(route.properties).sort());
  assert.deepEqual(claim.inputSchema.properties.files, route.properties.files);
  assert.equal(COORDINATION_TOOLS.find((t) => t.name === "svc_claim")!.input, body);
});

test("CLAIMQ-7 coordination tools work end to end: claim, check, ask, answer, plan, release", async () => {
  const m = await member();
  await admin("PATCH", `/projects/${m.projectId}`, { settings: { mcpTools: "coordination" } });
  const b = await pairAgent(m.projectId);
  const claimed = await tool(m.token, "svc_claim", { files: ["src/a.ts", "src/b.ts"] });
  assert.equal(claimed.isError, false, JSON.stringify(claimed.block));
  assert.deepEqual(claimed.block.claims.map((c: any) => c.file), ["src/a.ts", "src/b.ts"]);
  const checked = await tool(m.token, "svc_claim_check", { files: "src/a.ts,src/c.ts" });
  assert.deepEqual(checked.block.files.map((f: any) => f.available), [false, true]);

  const asked = await call("POST", "/claim/release-requests", {
    token: b.token,
    body: { files: ["src/a.ts"] },
  });
  assert.equal(asked.status, 201, asked.text);
  const byTool = await tool(m.token, "svc_release_request", {
    files: ["src/a.ts"],
  });
  // The holder cannot ask itself: the route's 400, relayed.
  assert.equal(byTool.isError, true);
  assert.equal(byTool.block.code, "VALIDATION_ERROR");
  const answered = await tool(m.token, "svc_release_answer", {
    requestId: asked.body.data.id,
    answer: "release",
    message: "yours",
  });
  assert.equal(answered.isError, false, JSON.stringify(answered.block));
  assert.deepEqual(answered.block.releasedFiles, ["src/a.ts"]);

  const sprintId = await insertSprint(m.projectId);
  const t1 = await insertTicket(m.projectId, { sprintId, expectedFiles: ["src/b.ts"] });
  const t2 = await insertTicket(m.projectId, { sprintId, expectedFiles: ["src/b.ts"] });
  const plan = await tool(m.token, "svc_plan", { sprintId });
  assert.equal(plan.isError, false, JSON.stringify(plan.block));
  assert.deepEqual(plan.block.waves.map((w: any) => w.tickets.map((t: any) => t.key)), [[t1.key], [t2.key]]);

  const released = await tool(m.token, "svc_release", { all: true });
  assert.deepEqual(released.block.released, ["src/b.ts"]);
  const both = await tool(m.token, "svc_release", { all: true, files: ["src/b.ts"] });
  assert.equal(both.isError, true);
  assert.equal(both.block.status, 400);
});

test("CLAIMQ-7 a read token lists the coordination tools but may call only the read ones", async () => {
  const m = await member();
  await admin("PATCH", `/projects/${m.projectId}`, { settings: { mcpTools: "coordination" } });
  const read = await m.mint("read");
  assert.ok((await listed(read)).some((t) => t.name === "svc_claim"));
  const refused = await mcp(rpc("tools/call", { name: "svc_claim", arguments: { files: ["src/a.ts"] } }), {
    token: read,
    headers: { "MCP-Protocol-Version": PROTOCOL_VERSION },
  });
  assert.equal(refused.status, 403);
  const check = await tool(read, "svc_claim_check", { files: "src/a.ts" });
  assert.equal(check.isError, false, JSON.stringify(check.block));
});
