import assert from "node:assert/strict";
import { admin, ADMIN_TOKEN, advanceClock, call, newProject, pairAgent, test } from "../helpers/mod.ts";
import { adminCode, connect, freshIp } from "./helpers.ts";

async function orchestrator() {
  const { projectId } = await newProject();
  return { projectId, orch: await pairAgent(projectId, { role: "orchestrator" }) };
}

function mint(token: string, body: unknown) {
  return call("POST", "/pair/code", { token, body });
}

function prompt(code?: string) {
  const query = code === undefined ? "" : `?code=${encodeURIComponent(code)}`;
  return call("GET", `/pair/prompt${query}`, { headers: { "X-Forwarded-For": freshIp() } });
}

test("PAIR-037 POST /pair/code refuses every role but orchestrator with 403 FORBIDDEN", async () => {
  const { projectId } = await newProject();
  for (const role of ["generator", "evaluator", "observer"]) {
    const agent = await pairAgent(projectId, { role });
    const res = await mint(agent.token, { agentName: "worker" });
    assert.equal(res.status, 403, role);
    assert.equal(res.body.error.code, "FORBIDDEN");
  }
  // A non-orchestrator API key holding write:agents is still refused (role check).
  const key = await admin("POST", `/projects/${projectId}/api-keys`, {
    agentName: "keyed-generator",
    role: "generator",
    scopes: ["write:agents"],
  });
  const res = await mint(key.key, { agentName: "worker" });
  assert.equal(res.status, 403);
  assert.equal(res.body.error.code, "FORBIDDEN");
});

test("PAIR-038 POST /pair/code needs scope write:agents", async () => {
  const { projectId } = await newProject();
  const key = await admin("POST", `/projects/${projectId}/api-keys`, {
    agentName: "scoped-orchestrator",
    role: "orchestrator",
    scopes: ["read:board", "write:ledger"],
  });
  const refused = await mint(key.key, { agentName: "worker" });
  assert.equal(refused.status, 403);
  assert.equal(refused.body.error.code, "FORBIDDEN");
  assert.equal(refused.body.error.details.requiredScope, "write:agents");
  const allowed = await admin("POST", `/projects/${projectId}/api-keys`, {
    agentName: "full-orchestrator",
    role: "orchestrator",
    scopes: ["write:agents"],
  });
  assert.equal((await mint(allowed.key, { agentName: "worker" })).status, 201);
});

test("PAIR-039 agentName, platform and model are 1 to 64 characters", async () => {
  const { orch } = await orchestrator();
  for (const field of ["agentName", "platform", "model"]) {
    const base = { agentName: "worker", platform: "codex", model: "gpt-5" };
    const ok64 = await mint(orch.token, { ...base, [field]: "a".repeat(64) });
    assert.equal(ok64.status, 201, `${field} 64`);
    const ok1 = await mint(orch.token, { ...base, [field]: "b" });
    assert.equal(ok1.status, 201, `${field} 1`);
    for (const bad of ["", "c".repeat(65)]) {
      const res = await mint(orch.token, { ...base, [field]: bad });
      assert.equal(res.status, 400, `${field} ${bad.length}`);
      assert.equal(res.body.error.code, "VALIDATION_ERROR");
      assert.equal(res.body.error.details.fields[0].path, field);
    }
  }
  const missing = await mint(orch.token, { platform: "codex" });
  assert.equal(missing.status, 400);
  assert.equal(missing.body.error.details.fields[0].path, "agentName");
});

test("PAIR-040 role is generator, evaluator or observer (default generator); others 400", async () => {
  const { orch } = await orchestrator();
  for (const role of ["generator", "evaluator", "observer"]) {
    assert.equal((await mint(orch.token, { agentName: `w-${role}`, role })).status, 201, role);
  }
  for (const role of ["orchestrator", "admin", ""]) {
    const res = await mint(orch.token, { agentName: "w", role });
    assert.equal(res.status, 400, role);
    assert.equal(res.body.error.code, "VALIDATION_ERROR");
  }
  const { code } = (await mint(orch.token, { agentName: "defaulted" })).body.data;
  const paired = await connect({ code });
  const me = await call("GET", "/me", { token: paired.body.data.sessionToken });
  assert.equal(me.body.data.role, "generator");
});

test("PAIR-041 PAIR-042 the response has code, expiresAt one hour out, ttlSeconds 3600 and instructions", async () => {
  const { orch } = await orchestrator();
  const res = await mint(orch.token, { agentName: "worker" });
  assert.equal(res.status, 201);
  const data = res.body.data;
  assert.deepEqual(Object.keys(data).sort(), ["code", "expiresAt", "instructions", "ttlSeconds"]);
  assert.equal(data.ttlSeconds, 3600);
  const clock = await admin("POST", "/clock", { advanceMs: 0 });
  const delta = Date.parse(data.expiresAt) - Date.parse(clock.now);
  assert.ok(delta > 3590_000 && delta <= 3600_000, String(delta));
  assert.match(data.instructions, /pair\/connect/);
  assert.ok(data.instructions.includes(data.code));
});

test("PAIR-043 the code pairs an agent in the orchestrator's project with name, platform, model and role", async () => {
  const { projectId, orch } = await orchestrator();
  const { code } = (await mint(orch.token, {
    agentName: "reviewer-1",
    platform: "gemini-cli",
    model: "gemini-2.5-pro",
    role: "evaluator",
  })).body.data;
  const paired = await connect({ code, agentName: "ignored", platform: "other" });
  assert.equal(paired.status, 200);
  assert.equal(paired.body.data.agent.name, "reviewer-1");
  const me = (await call("GET", "/me", { token: paired.body.data.sessionToken })).body.data;
  assert.equal(me.project.id, projectId);
  assert.equal(me.agent.name, "reviewer-1");
  assert.equal(me.agent.platform, "gemini-cli");
  assert.equal(me.agent.model, "gemini-2.5-pro");
  assert.equal(me.agent.company, "Google");
  assert.equal(me.role, "evaluator");
});

test("PAIR-043 a code cannot be minted for the name of an orchestrator (409 CONFLICT)", async () => {
  const { orch } = await orchestrator();
  const res = await mint(orch.token, { agentName: orch.name.toUpperCase(), role: "generator" });
  assert.equal(res.status, 409);
  assert.equal(res.body.error.code, "CONFLICT");
});

test("PAIR-044 PAIR-045 GET /pair/prompt needs no auth and answers text/plain", async () => {
  const { projectId } = await newProject({ password: "pw-prompt" });
  const { code } = await adminCode(projectId, { agentName: "prompted", role: "evaluator" });
  const res = await prompt(code.toLowerCase());
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type") ?? "", /^text\/plain/);
  assert.equal(res.body, null);
  assert.ok(res.text.includes(code));
  assert.match(res.text, /POST http:\/\/localhost:8787\/api\/pair\/connect/);
  assert.match(res.text, /"prompted" with role evaluator/);
  assert.match(res.text, /password/);
  assert.match(res.text, /Authorization: Bearer <sessionToken>/);
  // With a (wrong) token it still answers: the header is not read.
  const withAuth = await call("GET", `/pair/prompt?code=${code}`, {
    headers: { Authorization: "Bearer nonsense", "X-Forwarded-For": freshIp() },
  });
  assert.equal(withAuth.status, 200);
});

test("PAIR-046 GET /pair/prompt without code answers 400 in plain text", async () => {
  for (const res of [await prompt(), await prompt("")]) {
    assert.equal(res.status, 400);
    assert.match(res.headers.get("content-type") ?? "", /^text\/plain/);
    assert.equal(res.body, null);
    assert.match(res.text, /Missing code/);
  }
});

test("PAIR-047 unknown, expired and spent codes answer 404 plain text; reading never consumes", async () => {
  const { projectId } = await newProject();
  const unknown = await prompt("NOSUCHCODE");
  assert.equal(unknown.status, 404);
  assert.match(unknown.headers.get("content-type") ?? "", /^text\/plain/);
  assert.match(unknown.text, /not found or expired/);
  assert.ok(!unknown.text.includes(projectId));

  const { code } = await adminCode(projectId);
  for (let i = 0; i < 5; i++) assert.equal((await prompt(code)).status, 200);
  assert.equal((await connect({ code, agentName: "after-prompt" })).status, 200);
  const used = await prompt(code);
  assert.equal(used.status, 200);
  assert.match(used.text, /already used/);
  await advanceClock(60 * 60_000 + 1000);
  const spent = await prompt(code);
  assert.equal(spent.status, 404);
  assert.equal(spent.text, unknown.text);

  const expiring = await adminCode(projectId);
  await advanceClock(5 * 60_000 + 1000);
  assert.equal((await prompt(expiring.code)).status, 404);
});

test("PAIR-047 prompt look-ups are limited per address: 429 in plain text with Retry-After", async () => {
  const ip = "203.0.113.77";
  let last;
  for (let i = 0; i < 31; i++) {
    last = await call("GET", "/pair/prompt?code=ABCDEFGH", { headers: { "X-Forwarded-For": ip } });
    if (i < 30) assert.equal(last.status, 404);
  }
  assert.equal(last!.status, 429);
  assert.match(last!.headers.get("content-type") ?? "", /^text\/plain/);
  assert.ok(Number(last!.headers.get("Retry-After")) > 0);
  assert.ok(ADMIN_TOKEN);
});
