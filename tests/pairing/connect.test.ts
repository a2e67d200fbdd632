import assert from "node:assert/strict";
import { admin, advanceClock, call, env, newProject, pairAgent, test } from "../helpers/mod.ts";
import { adminCode, connect } from "./helpers.ts";
import { hashPairingCode } from "@/domain/core/crypto.ts";

const MIN = 60_000;

test("PAIR-001 an admin pairing code is valid for 5 minutes", async () => {
  const { projectId } = await newProject();
  const early = await adminCode(projectId);
  const late = await adminCode(projectId);
  assert.equal(early.ttlSeconds, 300);
  await advanceClock(4 * MIN + 50_000);
  assert.equal((await connect({ code: early.code, agentName: "in-time" })).status, 200);
  await advanceClock(15_000);
  const expired = await connect({ code: late.code, agentName: "too-late" });
  assert.equal(expired.status, 401);
  assert.equal(expired.body.error.code, "INVALID_CODE");
});

test("PAIR-002 an orchestrator's pairing code is valid for 1 hour", async () => {
  const { projectId } = await newProject();
  const orch = await pairAgent(projectId, { role: "orchestrator" });
  const mint = async (agentName: string) =>
    (await call("POST", "/pair/code", { token: orch.token, body: { agentName } })).body.data;
  const early = await mint("worker-early");
  const late = await mint("worker-late");
  await advanceClock(59 * MIN);
  assert.equal((await connect({ code: early.code })).status, 200);
  await advanceClock(MIN + 1000);
  const expired = await connect({ code: late.code });
  assert.equal(expired.status, 401);
  assert.equal(expired.body.error.code, "INVALID_CODE");
});

test("PAIR-003 a consumed code cannot pair another agent", async () => {
  const { projectId } = await newProject();
  const { code } = await adminCode(projectId);
  assert.equal((await connect({ code, agentName: "first" })).status, 200);
  const other = await connect({ code, agentName: "second" });
  assert.equal(other.status, 401);
  assert.equal(other.body.error.code, "INVALID_CODE");
});

test("PAIR-004 PAIR-019 the same agent reuses its code within an hour: reconnected", async () => {
  const { projectId } = await newProject();
  const { code } = await adminCode(projectId);
  const first = await connect({ code, agentName: "Same-Agent" });
  assert.equal(first.body.data.status, "connected");
  await advanceClock(59 * MIN);
  const again = await connect({ code, agentName: "same-agent" });
  assert.equal(again.status, 200);
  assert.equal(again.body.data.status, "reconnected");
  assert.equal(again.body.data.agent.id, first.body.data.agent.id);
  assert.notEqual(again.body.data.sessionId, first.body.data.sessionId);
});

test("PAIR-005 a consumed code presented more than an hour after first use is refused", async () => {
  const { projectId } = await newProject();
  const { code } = await adminCode(projectId);
  assert.equal((await connect({ code, agentName: "late-reuser" })).status, 200);
  await advanceClock(60 * MIN + 1000);
  const late = await connect({ code, agentName: "late-reuser" });
  assert.equal(late.status, 401);
  assert.equal(late.body.error.code, "INVALID_CODE");
});

test("PAIR-006 three wrong attempts invalidate a code, even for the right password", async () => {
  const { projectId } = await newProject({ password: "open-sesame" });
  const { code } = await adminCode(projectId);
  for (let i = 0; i < 3; i++) {
    const wrong = await connect({ code, agentName: "guesser", password: `wrong-${i}` });
    assert.equal(wrong.status, 403);
    assert.equal(wrong.body.error.code, "INVALID_PASSWORD");
  }
  const right = await connect({ code, agentName: "guesser", password: "open-sesame" });
  assert.equal(right.status, 401);
  assert.equal(right.body.error.code, "INVALID_CODE");
});

test("PAIR-007 strikes: wrong passwords and other agents count, a missing password does not", async () => {
  const { projectId } = await newProject({ password: "pw-123" });
  const { code } = await adminCode(projectId);
  await connect({ code, agentName: "a", password: "bad-1" });
  await connect({ code, agentName: "a", password: "bad-2" });
  for (let i = 0; i < 3; i++) {
    assert.equal((await connect({ code, agentName: "a" })).body.error.code, "PASSWORD_REQUIRED");
  }
  assert.equal((await connect({ code, agentName: "a", password: "pw-123" })).status, 200);

  // A used code presented by other agents: three strikes end even the owner's reuse window.
  const second = await adminCode(projectId);
  assert.equal((await connect({ code: second.code, agentName: "owner", password: "pw-123" })).status, 200);
  for (const name of ["x", "y", "z"]) {
    const res = await connect({ code: second.code, agentName: name, password: "pw-123" });
    assert.equal(res.body.error.code, "INVALID_CODE");
  }
  const owner = await connect({ code: second.code, agentName: "owner", password: "pw-123" });
  assert.equal(owner.status, 401);
  assert.equal(owner.body.error.code, "INVALID_CODE");
});

test("PAIR-008 /pair/connect takes no Authorization header and ignores one", async () => {
  const { projectId } = await newProject();
  const { code } = await adminCode(projectId);
  const res = await connect({ code, agentName: "no-auth" }, { Authorization: "Bearer svc_sess_garbage" });
  assert.equal(res.status, 200);
});

test("PAIR-009 a missing code or malformed body answers 400 BAD_REQUEST", async () => {
  const missing = await connect({ agentName: "x" });
  assert.equal(missing.status, 400);
  assert.equal(missing.body.error.code, "BAD_REQUEST");
  const malformed = await call("POST", "/pair/connect", {
    raw: "{not json",
    headers: { "Content-Type": "application/json", "X-Forwarded-For": "172.31.1.1" },
  });
  assert.equal(malformed.status, 400);
  assert.equal(malformed.body.error.code, "BAD_REQUEST");
  const wrongType = await connect({ code: 12345 });
  assert.equal(wrongType.status, 400);
  assert.equal(wrongType.body.error.code, "BAD_REQUEST");
});

test("PAIR-010 the code is normalised: case and punctuation are ignored", async () => {
  const { projectId } = await newProject();
  const { code } = await adminCode(projectId);
  const messy = ` ${code.slice(0, 4).toLowerCase()}-${code.slice(4).toLowerCase()}.`;
  const res = await connect({ code: messy, agentName: "messy" });
  assert.equal(res.status, 200);
});

test("PAIR-011 a password project without password answers 401 PASSWORD_REQUIRED", async () => {
  const { projectId } = await newProject({ password: "s3cret" });
  const { code } = await adminCode(projectId);
  const res = await connect({ code, agentName: "nopw" });
  assert.equal(res.status, 401);
  assert.equal(res.body.error.code, "PASSWORD_REQUIRED");
  assert.equal(res.body.error.details.recovery.action, "RETRY_WITH_PASSWORD");
  assert.equal(res.body.error.details.recovery.endpoint, "POST /pair/connect");
});

test("PAIR-012 a wrong password answers 403 INVALID_PASSWORD and does not consume the code", async () => {
  const { projectId } = await newProject({ password: "s3cret" });
  const { code } = await adminCode(projectId);
  const wrong = await connect({ code, agentName: "pw", password: "nope" });
  assert.equal(wrong.status, 403);
  assert.equal(wrong.body.error.code, "INVALID_PASSWORD");
  const right = await connect({ code, agentName: "pw", password: "s3cret" });
  assert.equal(right.status, 200);
  assert.equal(right.body.data.status, "connected");
});

test("PAIR-013 agentName is ignored when the code was issued for an agent", async () => {
  const { projectId } = await newProject();
  const { code } = await adminCode(projectId, { agentName: "named-by-admin" });
  const res = await connect({ code, agentName: "my-own-name" });
  assert.equal(res.status, 200);
  assert.equal(res.body.data.agent.name, "named-by-admin");
  const free = await adminCode(projectId);
  assert.equal((await connect({ code: free.code, agentName: "chosen" })).body.data.agent.name, "chosen");
});

test("PAIR-014 platform, model and capabilities are recorded on the agent", async () => {
  const { projectId } = await newProject();
  const { code } = await adminCode(projectId);
  const res = await connect({
    code,
    agentName: "recorded",
    platform: "codex-cli",
    model: "gpt-5",
    capabilities: ["tests", "refactor"],
  });
  const me = await call("GET", "/me", { token: res.body.data.sessionToken });
  assert.equal(me.body.data.agent.platform, "codex-cli");
  assert.equal(me.body.data.agent.model, "gpt-5");
  const { db } = await env();
  const row = await db.selectFrom("agents").select("capabilities").where("id", "=", res.body.data.agent.id)
    .executeTakeFirstOrThrow();
  assert.deepEqual(row.capabilities, ["tests", "refactor"]);
});

test("PAIR-015 PAIR-016 company is inferred from platform when omitted", async () => {
  const { projectId } = await newProject();
  const cases: Array<[string, string | undefined, string | null]> = [
    ["claude-code", undefined, "Anthropic"],
    ["codex", undefined, "OpenAI"],
    ["gemini-cli", undefined, "Google"],
    ["cursor", undefined, "Anysphere"],
    ["home-grown", undefined, null],
    ["claude-code", "Acme Labs", "Acme Labs"],
  ];
  for (const [platform, company, expected] of cases) {
    const { code } = await adminCode(projectId);
    const res = await connect({
      code,
      agentName: `co-${crypto.randomUUID().slice(0, 6)}`,
      platform,
      company,
    });
    const me = await call("GET", "/me", { token: res.body.data.sessionToken });
    assert.equal(me.body.data.agent.company, expected, platform);
  }
});

test("PAIR-017 partnerManagedSessionId links the agent to the external session", async () => {
  const { projectId } = await newProject();
  const { code } = await adminCode(projectId);
  const res = await connect({ code, agentName: "partnered", partnerManagedSessionId: "ext-session-42" });
  assert.equal(res.status, 200);
  const { db } = await env();
  const row = await db.selectFrom("agents").select("partner_managed_session_id")
    .where("id", "=", res.body.data.agent.id).executeTakeFirstOrThrow();
  assert.equal(row.partner_managed_session_id, "ext-session-42");
});

test("PAIR-018 the connect response carries every documented field", async () => {
  const { projectId, prefix } = await newProject();
  const { code } = await adminCode(projectId);
  const res = await connect({ code, agentName: "fields", platform: "claude-code" });
  const data = res.body.data;
  for (
    const key of [
      "status",
      "sessionToken",
      "sessionId",
      "agent",
      "project",
      "docsUrl",
      "issuesUrl",
      "schemaUrl",
      "mcpUrl",
      "ticketPrefix",
      "context",
      "workqueue",
      "message",
    ]
  ) assert.ok(key in data, key);
  assert.deepEqual(Object.keys(data.agent).sort(), ["id", "name", "platform"]);
  assert.equal(data.agent.platform, "claude-code");
  assert.deepEqual(Object.keys(data.project).sort(), ["id", "name", "phase", "subphase"]);
  assert.equal(data.project.id, projectId);
  assert.equal(data.ticketPrefix, prefix);
  assert.ok(Array.isArray(data.workqueue));
  assert.equal(typeof data.message, "string");
});

test("PAIR-020 the session token starts with svc_sess_ and is bound to the returned session", async () => {
  const { projectId } = await newProject();
  const { code } = await adminCode(projectId);
  const res = await connect({ code, agentName: "bound" });
  assert.match(res.body.data.sessionToken, /^svc_sess_/);
  const me = await call("GET", "/me", { token: res.body.data.sessionToken });
  assert.equal(me.body.data.sessionId, res.body.data.sessionId);
  assert.equal(me.body.data.session.id, res.body.data.sessionId);
});

test("PAIR-021 compact pairing returns brief, claims { count, ids } and threads { count, ids } only", async () => {
  const { projectId } = await newProject();
  const { code } = await adminCode(projectId);
  const res = await connect({ code, agentName: "compact", compact: true });
  const context = res.body.data.context;
  assert.deepEqual(Object.keys(context).sort(), ["brief", "claims", "threads"]);
  assert.deepEqual(Object.keys(context.claims).sort(), ["count", "ids"]);
  assert.deepEqual(Object.keys(context.threads).sort(), ["count", "ids"]);
  assert.equal(context.claims.count, context.claims.ids.length);
});

test("PAIR-022 full pairing adds the skill document, ledger, conflict zones and cursors", async () => {
  const { projectId } = await newProject();
  const { code } = await adminCode(projectId);
  const res = await connect({ code, agentName: "full" });
  const context = res.body.data.context;
  for (const key of ["brief", "claims", "threads", "skill", "ledger", "conflictZones", "cursors"]) {
    assert.ok(key in context, key);
  }
  assert.match(context.skill, /context/i);
  assert.ok(Array.isArray(context.ledger));
  assert.ok(Array.isArray(context.conflictZones));
});

test("PAIR-023 phase, subphase and the documented URLs", async () => {
  const { projectId } = await newProject();
  const { code } = await adminCode(projectId);
  const data = (await connect({ code, agentName: "urls" })).body.data;
  assert.equal(data.project.phase, "setup");
  assert.equal(data.project.subphase, "brief_missing");
  assert.equal(data.docsUrl, "http://localhost:8787/docs");
  assert.equal(data.schemaUrl, "http://localhost:8787/openapi.json");
  assert.equal(data.issuesUrl, "http://localhost:8787/api/issue");
  assert.equal(data.mcpUrl, "http://localhost:8787/mcp");
  const schema = await call("GET", new URL(data.schemaUrl).pathname);
  assert.equal(schema.status, 200);
  assert.equal(schema.body.openapi, "3.1.0");
  assert.equal((await call("GET", new URL(data.docsUrl).pathname)).status, 200);
});

test("PAIR-024 an unknown code answers 401 INVALID_CODE", async () => {
  const res = await connect({ code: "NOPE-NOPE", agentName: "x" });
  assert.equal(res.status, 401);
  assert.equal(res.body.error.code, "INVALID_CODE");
});

test("PAIR-025 a code of an archived project answers 403 PROJECT_INACTIVE", async () => {
  const { projectId } = await newProject();
  const { code } = await adminCode(projectId);
  await admin("PATCH", `/projects/${projectId}`, { status: "archived" });
  const res = await connect({ code, agentName: "x" });
  assert.equal(res.status, 403);
  assert.equal(res.body.error.code, "PROJECT_INACTIVE");
});

test("PAIR-026 a code of a suspended organization answers 403 ORG_SUSPENDED", async () => {
  const { projectId, orgId } = await newProject();
  const { code } = await adminCode(projectId);
  await admin("PATCH", `/orgs/${orgId}`, { status: "suspended" });
  const res = await connect({ code, agentName: "x" });
  assert.equal(res.status, 403);
  assert.equal(res.body.error.code, "ORG_SUSPENDED");
});

test("PAIR-027 PAIR-030 a code for a revoked agent answers 403 AGENT_REVOKED with a new-code recovery", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId, { name: "to-revoke" });
  const { code } = await adminCode(projectId, { agentName: "to-revoke" });
  const { db } = await env();
  await db.updateTable("agents").set({ status: "revoked" }).where("id", "=", agent.agentId).execute();
  const res = await connect({ code });
  assert.equal(res.status, 403);
  assert.equal(res.body.error.code, "AGENT_REVOKED");
  assert.equal(res.body.error.details.recovery.action, "REQUEST_NEW_PAIRING_CODE");
  // The refusal did not consume the code.
  const row = await db.selectFrom("pairing_codes").select("first_used_at").where(
    "code_hash",
    "=",
    hashPairingCode(code),
  )
    .executeTakeFirstOrThrow();
  assert.equal(row.first_used_at, null);
});

test("PAIR-028 PAIR-029 pairing past the plan's agent limit answers 403 AGENT_LIMIT", async () => {
  const { projectId } = await newProject({ plan: "free" });
  const { db } = await env();
  const now = new Date();
  const ids: string[] = [];
  for (let i = 0; i < 10; i++) {
    const id = crypto.randomUUID();
    ids.push(id);
    await db.insertInto("agents").values({
      id,
      project_id: projectId,
      user_id: null,
      name: `filler-${i}`,
      platform: null,
      model: null,
      company: null,
      partner_managed_session_id: null,
      created_at: now,
    }).execute();
  }
  const { code } = await adminCode(projectId);
  const refused = await connect({ code, agentName: "eleventh" });
  assert.equal(refused.status, 403);
  assert.equal(refused.body.error.code, "AGENT_LIMIT");
  assert.equal(refused.body.error.details.limit, 10);
  // Revoked agents do not count: one revoked leaves room for exactly one more.
  await db.updateTable("agents").set({ status: "revoked" }).where("id", "=", ids[0]!).execute();
  assert.equal((await connect({ code, agentName: "eleventh" })).status, 200);
  // An existing agent re-pairing never hits the limit.
  const again = await adminCode(projectId, { agentName: "filler-3" });
  assert.equal((await connect({ code: again.code })).status, 200);
});

test("PAIR-030 refusals a new code cannot resolve carry no REQUEST_NEW_PAIRING_CODE", async () => {
  const { projectId } = await newProject();
  const { code } = await adminCode(projectId);
  await admin("PATCH", `/projects/${projectId}`, { status: "archived" });
  const res = await connect({ code, agentName: "x" });
  assert.equal(res.body.error.code, "PROJECT_INACTIVE");
  assert.notEqual(res.body.error.details?.recovery?.action, "REQUEST_NEW_PAIRING_CODE");
  const unknown = await connect({ code: "ZZZZZZZZ" });
  assert.equal(unknown.body.error.details.recovery.action, "REQUEST_NEW_PAIRING_CODE");
});

test("PAIR-031 a code whose project no longer exists answers 404 PROJECT_NOT_FOUND", async () => {
  const { projectId } = await newProject();
  const { code } = await adminCode(projectId);
  const { db } = await env();
  await db.deleteFrom("projects").where("id", "=", projectId).execute();
  const res = await connect({ code, agentName: "x" });
  assert.equal(res.status, 404);
  assert.equal(res.body.error.code, "PROJECT_NOT_FOUND");
});

test("PAIR-032 a code whose organization no longer exists answers 404 ORG_NOT_FOUND", async () => {
  const { projectId, orgId } = await newProject();
  const { code } = await adminCode(projectId);
  const { db } = await env();
  await db.deleteFrom("organizations").where("id", "=", orgId).execute();
  const res = await connect({ code, agentName: "x" });
  assert.equal(res.status, 404);
  assert.equal(res.body.error.code, "ORG_NOT_FOUND");
});

test("PAIR-033 a code for an agent that no longer exists answers 404 AGENT_NOT_FOUND", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId, { name: "to-delete" });
  const { code } = await adminCode(projectId, { agentName: "to-delete" });
  const { db } = await env();
  await db.deleteFrom("agents").where("id", "=", agent.agentId).execute();
  const res = await connect({ code });
  assert.equal(res.status, 404);
  assert.equal(res.body.error.code, "AGENT_NOT_FOUND");
});

test("PAIR-034 a /pair/connect body over 64 KB answers 413 PAYLOAD_TOO_LARGE", async () => {
  const { projectId } = await newProject();
  const { code } = await adminCode(projectId);
  const big = await connect({ code, agentName: "big", padding: "x".repeat(64 * 1024) });
  assert.equal(big.status, 413);
  assert.equal(big.body.error.code, "PAYLOAD_TOO_LARGE");
  // Just under the limit is parsed (and unknown fields ignored).
  const fits = await connect({ code, agentName: "fits", padding: "x".repeat(60 * 1024) });
  assert.equal(fits.status, 200);
});

test("PAIR-036 pairing again completes the agent's open session and stops its token", async () => {
  const { projectId } = await newProject();
  const first = await pairAgent(projectId, { name: "repairer" });
  const second = await pairAgent(projectId, { name: "repairer" });
  assert.equal(second.agentId, first.agentId);
  const old = await call("GET", "/me", { token: first.token });
  assert.equal(old.status, 401);
  assert.equal(old.body.error.code, "UNAUTHORIZED");
  const session = await call("GET", `/session/${first.sessionId}`, { token: second.token });
  assert.equal(session.status, 200);
  assert.equal(session.body.data.session.status, "complete");
  assert.ok(session.body.data.session.endedAt);
});
