import { z } from "@hono/zod-openapi";
import { ARTIFACT_TYPES, QA_RUN_STATUSES, QA_TEST_STATUSES } from "@/shared/vocabulary.ts";
import { envelope, NextActionSchema, ReviewModeSchema } from "./common.ts";
import { FileOrFenced, MAX_VERIFY_FILES } from "./claims.ts";

export const ArtifactInput = z.object({
  type: z.enum(ARTIFACT_TYPES),
  url: z.url({ protocol: /^https?$/ }).max(2000).openapi({ description: "An http or https URL" }),
  ref: z.string().min(1).max(255).optional(),
  title: z.string().min(1).max(500).optional(),
  metadata: z.record(z.string(), z.unknown()).optional().openapi({
    description: 'Free-form. For a pull_request, `reviewDecision: "CHANGES_REQUESTED"` marks an unresolved ' +
      "PR review block (a handoff warning).",
  }),
}).openapi("ArtifactInput");

export const HandoffBody = z.object({
  moduleName: z.string().trim().min(1).max(200).openapi({
    description: "The module (unit of work) delivered; counted once in modulesDone",
  }),
  summary: z.string().min(1).max(2000),
  sessionId: z.string().uuid().openapi({ description: "The caller's session (from pairing or POST /begin)" }),
  ticketId: z.string().min(1).max(100).optional().openapi({
    description:
      "Ticket UUID or `<PREFIX>-<number>` key. Omit to close the session without touching a ticket",
  }),
  testResults: z.string().max(500).optional(),
  artifacts: z.array(ArtifactInput).max(10).optional(),
  diffStat: z.string().min(1).max(500).optional().openapi({ description: "Logged as a PROGRESS entry" }),
  toolResults: z.array(z.unknown()).max(200).optional().openapi({
    description: "Raw tool outputs. Classified after the response into PROGRESS and TESTED entries (items " +
      "whose command, tool name or text looks like a test run, or that carry a pass/fail outcome, become " +
      "TESTED; others PROGRESS); an item whose type and content duplicate an entry of the session is skipped",
  }),
  changedFiles: z.array(FileOrFenced).max(MAX_VERIFY_FILES).optional().openapi({
    description:
      `(extension, issue 25) Up to ${MAX_VERIFY_FILES} files the change touched (e.g. \`git diff ` +
      "--name-only`), each a path or `{ file, fence }`. Compared with every file this session held (released " +
      "ones count): the answer's `coverage`. A fence not current for its file: 409 FENCE_STALE",
    example: ["src/a.ts", { file: "src/b.ts", fence: 42 }],
  }),
}).openapi("HandoffRequest");

/** Issue 25: the changed files a handoff named against the files its session held. */
export const CoverageSchema = z.object({
  covered: z.array(z.string()).openapi({ description: "Changed files the session held at some point" }),
  uncovered: z.array(z.string()).openapi({ description: "Changed files the session never held" }),
  ratio: z.number().min(0).max(1).openapi({ description: "covered / changed (1 when nothing changed)" }),
}).openapi("ClaimCoverage");

export const Remediation = z.object({
  action: z.string(),
  endpoint: z.string(),
  message: z.string(),
}).openapi("Remediation");

export const NextAction = NextActionSchema;

export const HandoffReview = z.object({
  required: z.boolean(),
  mode: ReviewModeSchema,
  qaRunId: z.string().uuid().nullable(),
  criteriaCount: z.number().int(),
  qaTestCount: z.number().int(),
  ticketStatus: z.string(),
}).openapi("HandoffReview");

export const HandoffData = z.object({
  ok: z.literal(true),
  modulesDone: z.number().int().openapi({ description: "Distinct module names handed off in the project" }),
  duplicate: z.literal(true).optional().openapi({
    description: "Only on a repeat for a session that already has a DONE entry; nothing was written",
  }),
  ticketAdvanced: z.boolean().optional().openapi({ description: "True when the ticket's status changed" }),
  nextAction: NextAction.optional(),
  review: HandoffReview.optional(),
  warnings: z.array(z.string()).optional(),
  remediations: z.array(Remediation).optional(),
  suggestions: z.array(z.string()).optional(),
  pullRequest: z.object({
    url: z.string(),
    ref: z.string().nullable(),
    title: z.string().nullable(),
  }).optional(),
  coverage: CoverageSchema.optional().openapi({
    description:
      "(extension, issue 25) Only when `changedFiles` was sent: the coverage receipt, also stored " +
      "in the ticket's `reviewHandoff.coverage` and the DONE entry's payload",
  }),
}).openapi("HandoffResult");

export const HandoffResponse = envelope(HandoffData);

export const SessionCompleteBody = z.object({
  sessionId: z.string().min(1).max(100).openapi({ description: "Your own session id" }),
}).openapi("SessionCompleteRequest");

export const SessionCompleteResponse = envelope(
  z.object({ ok: z.literal(true), sessionId: z.string() }).openapi("SessionCompleteResult"),
);

export const QaTest = z.object({
  id: z.string().uuid(),
  criterionIndex: z.number().int().openapi({ description: "Index in the ticket's acceptanceCriteria" }),
  title: z.string(),
  status: z.enum(QA_TEST_STATUSES),
  evidence: z.string().nullable(),
  updatedAt: z.string(),
}).openapi("QaTest");

export const QaRun = z.object({
  qaRunId: z.string().uuid(),
  ticketId: z.string().uuid(),
  sessionId: z.string().nullable(),
  agentId: z.string().nullable().openapi({ description: "The generator whose handoff created the run" }),
  status: z.enum(QA_RUN_STATUSES).openapi({
    description: "pending until every test has an outcome",
  }),
  createdAt: z.string(),
  completedAt: z.string().nullable(),
  tests: z.array(QaTest),
}).openapi("QaRun");

/** POST /qa/{qaRunId}/results: a reviewer's outcome for some or all of the run's tests. */
export const QaResultsBody = z.object({
  tests: z.array(z.object({
    criterionIndex: z.number().int().min(0).openapi({ description: "The test's criterionIndex" }),
    status: z.enum(["passed", "failed", "skipped"]),
    evidence: z.string().min(1).max(2000).openapi({ description: "What was checked and what it showed" }),
  })).min(1).max(50),
}).openapi("QaResultsBody");

export const QaRunResponse = envelope(QaRun);
export const QaRunListResponse = envelope(z.object({ runs: z.array(QaRun) }).openapi("QaRunList"));
