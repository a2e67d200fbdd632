import assert from "node:assert/strict";
import { acquireResult, splitFiles } from "@/domain/claims/acquire.ts";
import type { AcquireInput } from "@/domain/claims/types.ts";
import type { Holder } from "@/domain/core/claim-holders.ts";
import { test } from "../helpers/mod.ts";

const now = new Date("2026-01-01T12:00:00Z");
const earlier = new Date("2026-01-01T11:00:00Z");
const until = new Date("2026-01-01T13:00:00Z");

function input(over: Partial<AcquireInput> = {}): AcquireInput {
  return {
    projectId: "p",
    agentId: "a1",
    agentName: "gen",
    subAgentName: null,
    sessionId: "s2",
    ticketId: null,
    files: [],
    now,
    ...over,
  };
}

function holder(file: string, over: Partial<Holder> = {}): Holder {
  return {
    file,
    claimId: `c-${file}`,
    agentId: "a1",
    agentName: "gen",
    subAgentName: null,
    sessionId: "s2",
    ticketId: null,
    commitSha: null,
    allowSubAgents: false,
    claimedAt: earlier,
    expiresAt: until,
    status: "active",
    ...over,
  };
}

test("CLAIM-015 splitFiles() and acquireResult(): every file already the caller's is idempotent and renewed", () => {
  const files = ["a.ts", "b.ts"];
  const split = splitFiles(files, [holder("a.ts"), holder("b.ts")], input());
  assert.deepEqual(split.own.map((h) => h.file), files);
  const result = acquireResult(files, split, input(), until);
  assert.equal(result.idempotent, true);
  assert.equal(result.renewed, true);
  assert.deepEqual(result.claims[0], {
    file: "a.ts",
    claimedAt: earlier.toISOString(),
    expiresAt: until.toISOString(),
  });
});

test("CLAIM-016 a sub-agent works under its parent's claim only when the parent allowed sub-agents", () => {
  const sub = input({ subAgentName: "w1" });
  const allowed = splitFiles(["a.ts"], [holder("a.ts", { allowSubAgents: true })], sub);
  assert.equal(allowed.inherited.length, 1);
  assert.equal(acquireResult(["a.ts"], allowed, sub, until).inherited, true);
  const refused = splitFiles(["a.ts"], [holder("a.ts")], sub);
  assert.equal(refused.conflicts.length, 1);
  assert.equal(refused.conflicts[0]?.file, "a.ts");
});

test("CLAIM-017 a claim of the caller's ended session in its grace period comes back restored", () => {
  const split = splitFiles(
    ["a.ts", "new.ts"],
    [holder("a.ts", { sessionId: "s1", status: "grace_period" })],
    input(),
  );
  assert.deepEqual(split.free, ["new.ts"]);
  const result = acquireResult(["a.ts", "new.ts"], split, input(), until);
  assert.equal(result.restored, true);
  assert.equal(result.idempotent, undefined);
  assert.deepEqual(result.claims.map((c) => c.claimedAt), [earlier.toISOString(), now.toISOString()]);
});

test("splitFiles(): a file another agent holds is a conflict, the free ones are listed in request order", () => {
  const split = splitFiles(
    ["z.ts", "x.ts", "y.ts"],
    [holder("x.ts", { agentId: "a2", agentName: "other" })],
    input(),
  );
  assert.deepEqual(split.free, ["z.ts", "y.ts"]);
  assert.equal(split.conflicts[0]?.claimantName, "other");
});
