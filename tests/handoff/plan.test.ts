import assert from "node:assert/strict";
import {
  completedContent,
  doneEntry,
  handoffResponse,
  handoffSuggestions,
  pullRequestViews,
  releaseContent,
  reviewHandoffOf,
  targetOf,
} from "@/domain/handoff/plan.ts";
import type { TicketRow } from "@/domain/core/ticket-serialize.ts";
import { test } from "../helpers/mod.ts";

function ticket(over: Partial<TicketRow> = {}): TicketRow {
  return {
    id: "t1",
    status: "in_progress",
    risk_class: "local",
    acceptance_criteria: [{ title: "c" }],
    expected_files: ["a.ts"],
    branch: "feat/x",
    no_artifact: false,
    ...over,
  } as TicketRow;
}

const written = {
  qa: null,
  advanced: true,
  modulesDone: 3,
  nextAction: { action: "WAIT", message: "m" },
} as const;
const noWarnings = { warnings: [], remediations: [] };

test("HAND-049 pullRequestViews: a stored PR sent again is judged by what the handoff sends", () => {
  const views = pullRequestViews(
    [{ type: "pull_request", url: "u1", metadata: { reviewDecision: "APPROVED" } }],
    [
      { type: "pull_request", url: "u1", status: "changes_requested", metadata: {} },
      { type: "pull_request", url: "u2", status: "open", metadata: {} },
    ],
  );
  assert.deepEqual(views, [
    { type: "pull_request", url: "u1", metadata: { reviewDecision: "APPROVED" } },
    { type: "pull_request", url: "u2", status: "open", metadata: {} },
  ]);
});

test("HAND-012 targetOf: auto judges triviality on the claimed files, else the ticket's expected files", () => {
  const project = { review_mode: "auto" as const, settings: {} };
  assert.equal(targetOf(project, null, [], undefined), null);
  assert.deepEqual(targetOf(project, ticket(), [], undefined), { status: "done", reviewRequired: false });
  assert.deepEqual(targetOf(project, ticket(), ["a", "b", "c"], undefined), {
    status: "review",
    reviewRequired: true,
  });
  const many = ticket({ expected_files: ["a", "b", "c"] });
  assert.equal(targetOf(project, many, [], undefined)?.status, "review");
  assert.equal(targetOf(project, many, ["a"], undefined)?.status, "done");
});

test("HAND-044 reviewHandoffOf: only a ticket going to review gets a review handoff", () => {
  const review = { status: "review", reviewRequired: true };
  assert.equal(
    reviewHandoffOf(ticket(), { status: "done", reviewRequired: false }, { summary: "s" }, [], undefined),
    null,
  );
  assert.deepEqual(reviewHandoffOf(ticket(), review, { summary: "s" }, [], undefined), {
    summary: "s",
    changedFiles: ["a.ts"],
    branch: "feat/x",
  });
  const pr = { type: "pull_request" as const, url: "https://x/pr/1" };
  assert.deepEqual(reviewHandoffOf(ticket(), review, { summary: "s" }, ["b.ts"], pr), {
    summary: "s",
    changedFiles: ["b.ts"],
    branch: "feat/x",
    prUrl: "https://x/pr/1",
  });
});

test("HAND-037 HAND-038 the STATUS, DONE and AGENT_COMPLETED texts", () => {
  assert.equal(releaseContent([]), "Handoff released no files");
  assert.equal(releaseContent(["a", "b"]), "Handoff released 2 file(s): a, b");
  assert.equal(releaseContent(["x".repeat(3000)]).length, 2000);
  const done = doneEntry({ moduleName: "m", summary: "s" }, [], { status: "done", reviewRequired: false });
  assert.deepEqual(done, {
    content: "m: s",
    payload: { kind: "handoff", moduleName: "m", summary: "s", artifacts: [], ticketStatus: "done" },
  });
  assert.equal(
    doneEntry({ moduleName: "m", summary: "s", testResults: "ok" }, [], null).payload.testResults,
    "ok",
  );
  assert.equal(doneEntry({ moduleName: "m", summary: "s" }, [], null).payload.ticketStatus, null);
  assert.equal(completedContent({ agentName: "a", subAgentName: null }, "m"), "a completed m");
  assert.equal(completedContent({ agentName: "a", subAgentName: "s" }, "m"), "a/s completed m");
});

test("HAND-045 suggestions: artifacts and testResults, only for a ticket", () => {
  assert.deepEqual(handoffSuggestions(null, {}, []), []);
  assert.equal(handoffSuggestions(ticket(), {}, []).length, 2);
  assert.deepEqual(handoffSuggestions(ticket({ no_artifact: true }), { testResults: "ok" }, []), []);
  assert.deepEqual(handoffSuggestions(ticket(), { testResults: "ok" }, [{ type: "commit", url: "u" }]), []);
});

test("HAND-042 HAND-044 HAND-045 handoffResponse adds review, warnings, suggestions, pullRequest only when relevant", () => {
  const bare = handoffResponse({
    ticket: null,
    target: null,
    mode: "light",
    written,
    warnings: noWarnings,
    suggestions: [],
    firstPr: undefined,
  });
  assert.deepEqual(bare, { ok: true, modulesDone: 3, ticketAdvanced: true, nextAction: written.nextAction });
  const full = handoffResponse({
    ticket: ticket({ acceptance_criteria: [{ title: "a" }, { title: "b", requiresEvidence: true }] }),
    target: { status: "review", reviewRequired: true },
    mode: "strict",
    written: { ...written, qa: { id: "q", tests: 1, criteria: 2 } },
    warnings: { warnings: ["w"], remediations: [{ action: "A", endpoint: "E", message: "M" }] },
    suggestions: ["s"],
    firstPr: { type: "pull_request", url: "u", ref: "r" },
  });
  assert.deepEqual(full.review, {
    required: true,
    mode: "strict",
    qaRunId: "q",
    criteriaCount: 2,
    qaTestCount: 1,
    ticketStatus: "review",
  });
  assert.deepEqual(full.warnings, ["w"]);
  assert.equal(full.remediations?.length, 1);
  assert.deepEqual(full.suggestions, ["s"]);
  assert.deepEqual(full.pullRequest, { url: "u", ref: "r", title: null });
});
