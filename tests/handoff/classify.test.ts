import assert from "node:assert/strict";
import { classifyToolResult } from "@/domain/handoff/tool-results.ts";
import { changedLines, isTrivialChange } from "@/domain/core/review-mode.ts";
import { test } from "../helpers/mod.ts";

test("HAND-026 tool results: test runs and pass/fail outcomes are TESTED, other work PROGRESS", () => {
  assert.deepEqual(classifyToolResult({ command: "cargo test", exitCode: 1 }), {
    type: "TESTED",
    content: "cargo test | outcome: failed (exit 1)",
  });
  assert.deepEqual(classifyToolResult({ tool: "write_file", result: "Created src/x.ts" }), {
    type: "PROGRESS",
    content: "write_file | Created src/x.ts",
  });
  assert.equal(classifyToolResult({ type: "TESTED", text: "manual check of the form" })?.type, "TESTED");
  assert.equal(classifyToolResult({ kind: "progress", text: "ran the tests" })?.type, "PROGRESS");
  assert.equal(classifyToolResult("pytest -q: 4 passed")?.type, "TESTED");
  assert.equal(classifyToolResult("Refactored the parser")?.type, "PROGRESS");
  assert.equal(classifyToolResult(null), null);
  assert.equal(classifyToolResult("   "), null);
  assert.equal(classifyToolResult({}), null);
  assert.equal(classifyToolResult("x".repeat(3000))?.content.length, 2000, "content is capped at 2000");
});

test("HAND-013 trivial: local risk, no evidence criterion, at most 2 files, at most 20 changed lines", () => {
  const base = {
    riskClass: "local",
    criteria: [{ title: "c" }],
    files: ["a.ts", "b.ts"],
    diffStat: undefined,
  };
  assert.equal(isTrivialChange(base), true);
  assert.equal(isTrivialChange({ ...base, riskClass: "shared-state" }), false);
  assert.equal(isTrivialChange({ ...base, criteria: [{ title: "c", requiresEvidence: true }] }), false);
  assert.equal(isTrivialChange({ ...base, files: ["a", "b", "c"] }), false);
  assert.equal(isTrivialChange({ ...base, diffStat: "2 files changed, 20 insertions(+)" }), true);
  assert.equal(
    isTrivialChange({ ...base, diffStat: "2 files changed, 20 insertions(+), 1 deletion(-)" }),
    false,
  );
  assert.equal(changedLines("1 file changed, 1 insertion(+), 2 deletions(-)"), 3);
  assert.equal(changedLines("rewrote the module"), null);
});
