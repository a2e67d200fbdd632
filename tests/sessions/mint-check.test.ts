import assert from "node:assert/strict";
import { checkMint } from "@/domain/subagents/mint.ts";
import { DomainError } from "@/domain/core/errors.ts";
import { statusOf } from "@/http/errors.ts";
import { test } from "../helpers/mod.ts";

const input = (role: "generator" | "evaluator" | "orchestrator") => ({ name: "w1", role, ttlHours: 24 });
const refused = (status: number) => (e: unknown) => e instanceof DomainError && statusOf(e) === status;

test("SUB-008 SUB-020 checkMint(): only a session token of the agent itself may mint", () => {
  assert.equal(checkMint({ kind: "session", subAgentName: null }, input("generator")), "generator");
  assert.equal(checkMint({ kind: "session", subAgentName: null }, input("evaluator")), "evaluator");
  for (const kind of ["api_key", "oauth", "subagent"] as const) {
    assert.throws(() => checkMint({ kind, subAgentName: null }, input("generator")), refused(403), kind);
  }
  assert.throws(() => checkMint({ kind: "session", subAgentName: "w0" }, input("generator")), refused(403));
});

test("SUB-011 checkMint(): a sub-agent is never an orchestrator (422), checked after the token", () => {
  assert.throws(
    () => checkMint({ kind: "session", subAgentName: null }, input("orchestrator")),
    refused(422),
  );
  assert.throws(
    () => checkMint({ kind: "api_key", subAgentName: null }, input("orchestrator")),
    refused(403),
  );
});
