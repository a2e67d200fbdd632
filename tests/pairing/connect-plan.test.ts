import assert from "node:assert/strict";
import { CODE_REUSE_WINDOW_MS } from "@/domain/pairing/codes.ts";
import { agentProfile, codeUseOf, targetRefusal } from "@/domain/pairing/connect-plan.ts";
import { test } from "../helpers/mod.ts";

const now = new Date("2026-01-01T12:00:00Z");
const ago = (ms: number) => new Date(now.getTime() - ms);
const unused = { first_used_at: null, agent_id: null, expires_at: new Date(now.getTime() + 60_000) };
const used = { first_used_at: ago(60_000), agent_id: null, expires_at: ago(0) };

test("PAIR-019 codeUseOf() pairs with an unused code until it expires", () => {
  assert.equal(codeUseOf(unused, undefined, null, now), "pair");
  assert.equal(codeUseOf({ ...unused, expires_at: now }, undefined, null, now), "expired");
});

test("PAIR-007 PAIR-019 codeUseOf() reconnects the same agent (by name, any case) inside the reuse window", () => {
  assert.equal(codeUseOf(used, { name: "Builder" }, "builder", now), "reconnect");
  // A code issued for an agent is that agent's whatever name the request gives.
  assert.equal(codeUseOf({ ...used, agent_id: "a1" }, { name: "builder" }, "other", now), "reconnect");
  const late = { ...used, first_used_at: ago(CODE_REUSE_WINDOW_MS + 1) };
  assert.equal(codeUseOf(late, { name: "builder" }, "builder", now), "strike");
});

test("PAIR-006 PAIR-007 codeUseOf() counts a used code presented by another agent as a strike", () => {
  assert.equal(codeUseOf(used, { name: "builder" }, "someone", now), "strike");
  assert.equal(codeUseOf(used, { name: "builder" }, null, now), "strike");
  assert.equal(codeUseOf(used, undefined, "builder", now), "strike");
});

test("targetRefusal() checks the organization, then the project status, then the organization status", () => {
  const active = { name: "P", status: "active" };
  assert.equal(targetRefusal(active as never, { status: "active" } as never), null);
  assert.equal(targetRefusal({ name: "P", status: "archived" } as never, undefined)?.code, "ORG_NOT_FOUND");
  assert.equal(
    targetRefusal({ name: "P", status: "archived" } as never, { status: "suspended" } as never)?.code,
    "PROJECT_INACTIVE",
  );
  assert.equal(targetRefusal(active as never, { status: "suspended" } as never)?.code, "ORG_SUSPENDED");
});

test("PAIR-014 PAIR-015 PAIR-043 agentProfile(): the code fixes platform and model, company inferred", () => {
  const agent = { platform: null, model: null, company: null };
  const minted = agentProfile({ platform: "claude-code", model: "m1" }, { platform: "x", model: "y" }, agent);
  assert.deepEqual([minted.platform, minted.model], ["claude-code", "m1"]);
  const said = agentProfile(
    { platform: null, model: null },
    { platform: "cursor", capabilities: ["git"] },
    agent,
  );
  assert.deepEqual([said.platform, said.company], ["cursor", "Anysphere"]);
  assert.equal(said.capabilities, JSON.stringify(["git"]));
  assert.equal(agentProfile({ platform: null, model: null }, { company: "Acme" }, agent).company, "Acme");
  assert.equal("partner_managed_session_id" in said, false);
});
