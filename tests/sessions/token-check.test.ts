import assert from "node:assert/strict";
import { SUBAGENT_SCOPES } from "@/domain/core/scopes.ts";
import { actorOf, asSubAgent, identityOf, tokenKindOf, type TokenRow } from "@/domain/auth/token-check.ts";
import { test } from "../helpers/mod.ts";

const now = new Date("2026-01-01T12:00:00Z");
const later = new Date(now.getTime() + 60_000);
const row = (over: Partial<TokenRow> = {}): TokenRow => ({
  tokenId: "tok1",
  kind: "session",
  sessionId: "s1",
  subAgentName: null,
  scopes: [],
  createdAt: now,
  expiresAt: later,
  idleExpiresAt: later,
  revokedAt: null,
  parentRevokedAt: null,
  subAgentRole: null,
  subAgentRevokedAt: null,
  agentId: "a1",
  agentName: "gen",
  platform: null,
  role: "generator",
  agentStatus: "active",
  projectId: "p1",
  projectStatus: "active",
  orgId: "o1",
  plan: "free",
  orgStatus: "active",
  sessionStatus: "active",
  ...over,
});
const session = tokenKindOf("svc_sess_x")!;
const sub = tokenKindOf("svc_sub_x")!;

test("tokenKindOf() reads the kind from the prefix only", () => {
  assert.equal(session.actorKind, "session");
  assert.equal(sub.tokenKind, "subagent");
  assert.equal(tokenKindOf("svc_key_x")?.actorKind, "api_key");
  assert.equal(tokenKindOf("svc_other"), null);
});

test("identityOf() refuses every state of a token that does not work", () => {
  assert.deepEqual(identityOf(row(), session, now), {
    role: "generator",
    scopes: [],
    subAgentName: null,
    sessionId: "s1",
  });
  for (
    const over of [
      { kind: "api_key" as const },
      { revokedAt: now },
      { expiresAt: now },
      { idleExpiresAt: now },
      { agentStatus: "revoked" },
      { projectStatus: "archived" },
      { orgStatus: "suspended" },
      { sessionStatus: "complete" },
      { sessionStatus: null },
    ]
  ) {
    assert.equal(identityOf(row(over), session, now), null, JSON.stringify(over));
  }
  // Without a bound session, the session status does not matter.
  assert.notEqual(identityOf(row({ sessionId: null, sessionStatus: null }), session, now), null);
});

test("SUB-022 identityOf() refuses a sub-agent token whose parent token or sub-agent is revoked", () => {
  const base = { kind: "subagent" as const, subAgentName: "w1", subAgentRole: "evaluator" as const };
  assert.equal(identityOf(row(base), sub, now)?.role, "evaluator");
  assert.equal(identityOf(row({ ...base, parentRevokedAt: now }), sub, now), null);
  assert.equal(identityOf(row({ ...base, subAgentRevokedAt: now }), sub, now), null);
  assert.equal(identityOf(row({ ...base, subAgentRole: null }), sub, now), null);
});

test("SUB-002 asSubAgent() acts as the sub-agent with at most a sub-agent token's scopes", () => {
  const parent = identityOf(row(), session, now)!;
  const acting = asSubAgent(parent, { name: "w1", role: "evaluator" }, "s2");
  assert.deepEqual([acting.role, acting.subAgentName, acting.sessionId], ["evaluator", "w1", "s2"]);
  assert.deepEqual(acting.scopes, [...SUBAGENT_SCOPES]);
  const narrow = asSubAgent({ ...parent, scopes: ["write:sprint", "read:board"] }, {
    name: "w1",
    role: "generator",
  }, null);
  assert.deepEqual(narrow.scopes, SUBAGENT_SCOPES.includes("read:board") ? ["read:board"] : []);
  const actor = actorOf(row(), session, acting);
  assert.deepEqual([actor.kind, actor.role, actor.subAgentName, actor.sessionId], [
    "session",
    "evaluator",
    "w1",
    "s2",
  ]);
});
