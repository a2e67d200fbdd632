import { z } from "@hono/zod-openapi";
import { ClaimItem } from "./claims.ts";
import { ARTIFACT_TYPES, TICKET_ACTIONS } from "@/shared/vocabulary.ts";
import { claimEntryList, filePathList } from "./file-path.ts";
import { envelope, ReviewModeSchema } from "./common.ts";
import { BranchSchema, PrioritySchema, RiskClassSchema, TicketSchema } from "./tickets.ts";

/** The most JSON an artifact's `metadata` may hold, in bytes (checked by the domain). */
export const ARTIFACT_METADATA_MAX_BYTES = 8 * 1024;

const TicketRef = z.string().min(1).max(100).openapi({ description: "Ticket UUID or <PREFIX>-<number> key" });

export const ReviewHandoffInput = z.object({
  summary: z.string().trim().min(1).max(2000).optional(),
  changedFiles: filePathList(1, 200, "1 to 200 paths").optional(),
  branch: BranchSchema.optional(),
  prUrl: z.string().url().max(2000).optional(),
}).openapi("ReviewHandoff", {
  description:
    "Sent fields replace the stored handoff's. Entering a review status from outside review needs " +
    "summary, changedFiles and branch (in this body or already stored), else 400 REVIEW_HANDOFF_MISSING " +
    "(details.fields). The stored handoff is cleared when the ticket goes back to work; reviewHistory keeps it.",
});

const optionalText = (max: number, description: string) =>
  z.string().max(max).optional().openapi({ description });

export const PatchTicketBody = z.object({
  ticketId: TicketRef,
  action: z.enum(TICKET_ACTIONS).optional().openapi({
    description: "Wins over status. claim: backlog/sprint_backlog to claimed, caller becomes assignee " +
      "(implies assignToSelf; on a board without claimed, or for an unassigned claimed ticket, it only assigns). " +
      "release: any open status to backlog, unassigns (an assigned backlog ticket is only unassigned). submit_for_review: a started, non-review status to in_review (if a column) else review; " +
      "needs reviewHandoff; releases the caller's own claims on the ticket. approve: review status to done, " +
      "review mode light only (elsewhere 403 APPROVE_VIA_ENDPOINT); releases every claim on the ticket. " +
      "request_changes: review status to in_progress. block: to blocked. unblock: blocked to in_progress.",
  }),
  status: z.string().min(1).max(30).optional().openapi({
    description: "Target status (up to 30). Ignored when action is sent",
  }),
  expectedStatus: z.string().min(1).max(30).optional().openapi({
    description: "Optional compare-and-swap precondition: the status you last saw. When the ticket is no " +
      "longer in it, 409 CONFLICT (details.observedStatus) and nothing is written. Without it the service " +
      "compares against the status it read at the start of the call.",
  }),
  reviewHandoff: ReviewHandoffInput.optional(),
  assignToSelf: z.boolean().optional().openapi({
    description: "Become the assignee of an unassigned ticket (409 CONFLICT if another agent holds it; " +
      "403 for orchestrators). Changes no status by itself",
  }),
  unassign: z.boolean().optional().openapi({
    description: "Clear the assignee; exclusive with assignToSelf",
  }),
  reviewerAgentId: z.string().uuid().nullable().optional().openapi({
    description: "Designate (or clear with null) the reviewer; assignee or orchestrator only. Routed by " +
      "riskClass: local accepts a generator, evaluator or orchestrator; shared-state and irreversible an " +
      "evaluator or orchestrator; never the assignee",
  }),
  title: z.string().trim().min(1).max(500).optional(),
  description: z.string().max(5000).nullable().optional().openapi({
    description: "Up to 5000; null or empty string clears",
  }),
  priority: PrioritySchema.optional(),
  branch: BranchSchema.nullable().optional().openapi({ description: "null clears" }),
  doneDefinition: optionalText(500, "Up to 500; empty string clears"),
  verificationCommand: optionalText(500, "Up to 500; empty string clears"),
  outOfScope: optionalText(500, "Up to 500; empty string clears"),
  riskClass: RiskClassSchema.optional(),
  acceptSuggestions: z.boolean().optional().openapi({
    description: "true fills the agent-first fields the ticket lacks with the service's suggestions, never " +
      "overwriting a value: doneDefinition from the title and criteria, verificationCommand `n/a` (to be " +
      "replaced by a real command), riskClass `local`. Fields sent in the same body win",
  }),
  noArtifact: z.boolean().optional().openapi({
    description: "The ticket produces no artifact (PR, deploy...)",
  }),
  noArtifactReason: z.string().max(200).nullable().optional(),
}).refine((b) => !(b.assignToSelf === true && b.unassign === true), {
  message: "Send either assignToSelf or unassign, not both",
  path: ["unassign"],
}).openapi("PatchTicketRequest");
export type PatchTicketInput = z.output<typeof PatchTicketBody>;

/** What PATCH /ticket answers: a narrow view of the ticket, with its assignee's id. */
export const PatchedTicket = TicketSchema.pick({
  id: true,
  number: true,
  ticketRef: true,
  status: true,
  title: true,
  description: true,
  reviewerAgentId: true,
  updatedAt: true,
}).extend({ assigneeAgentId: z.string().nullable() }).openapi("PatchedTicket");
export const PatchTicketResponse = envelope(PatchedTicket);

export const ApproveBody = z.object({
  comment: z.string().trim().min(1).max(2000).optional().openapi({
    description: "Review note, kept in reviewHistory",
  }),
  expectedStatus: z.string().min(1).max(30).optional().openapi({
    description: "Optional compare-and-swap precondition (the review status you saw)",
  }),
}).openapi("ApproveTicketRequest");

export const ApprovedTicket = z.object({
  id: z.string().uuid(),
  number: z.number().int(),
  ticketRef: z.string(),
  status: z.literal("done"),
  previousStatus: z.string(),
  reviewerAgentId: z.string().nullable(),
  approvedAt: z.string(),
  releasedFiles: z.array(z.string()).openapi({
    description: "Files of every claim on the ticket, now released",
  }),
  qa: z.object({
    qaRunId: z.string(),
    status: z.string(),
    pendingTests: z.number().int(),
    failedTests: z.number().int(),
  }).nullable().openapi({ description: "The ticket's latest QA run, when it has one" }),
  warnings: z.array(z.string()),
}).openapi("ApprovedTicket");
export const ApproveResponse = envelope(ApprovedTicket);

export const TicketIdPath = z.object({
  ticketId: z.string().min(1).max(100).openapi({
    param: { name: "ticketId", in: "path" },
    description: "The internal ticket id (UUID), never the human key",
  }),
});

export const ArtifactIdPath = TicketIdPath.extend({
  artifactId: z.string().min(1).max(100).openapi({ param: { name: "artifactId", in: "path" } }),
});

const ArtifactStatus = z.enum(["open", "merged", "closed"]).openapi({
  description: "open: still needs attention (unmerged PR or branch, deploy in flight). merged: landed. " +
    "closed: finished or abandoned. New pull_request, branch and deploy artifacts start open; commits closed",
});

export const AddArtifactBody = z.object({
  type: z.enum(ARTIFACT_TYPES),
  url: z.string().url().max(2000).refine((u) => /^https?:\/\//i.test(u), "An http(s) URL"),
  ref: z.string().min(1).max(255).optional().openapi({ description: "Branch, commit SHA, PR number or env" }),
  title: z.string().trim().min(1).max(500).optional(),
  metadata: z.record(z.string(), z.unknown()).optional().openapi({
    description: `Free-form, up to ${ARTIFACT_METADATA_MAX_BYTES / 1024} KB`,
  }),
  status: ArtifactStatus.optional(),
}).openapi("AddArtifactRequest");

export const PatchArtifactBody = z.object({
  status: ArtifactStatus.optional(),
  ref: z.string().min(1).max(255).nullable().optional(),
  title: z.string().trim().min(1).max(500).nullable().optional(),
  metadata: z.record(z.string(), z.unknown()).optional().openapi({ description: "Replaces the metadata" }),
}).refine((b) => Object.values(b).some((v) => v !== undefined), "Provide at least one field")
  .openapi("PatchArtifactRequest");

export const Artifact = z.object({
  id: z.string().uuid(),
  ticketId: z.string().uuid(),
  type: z.enum(ARTIFACT_TYPES),
  url: z.string(),
  ref: z.string().nullable(),
  title: z.string().nullable(),
  metadata: z.record(z.string(), z.unknown()),
  status: z.string(),
  agentId: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
}).openapi("Artifact");
export const ArtifactResponse = envelope(Artifact);
export const ArtifactListResponse = envelope(
  z.object({ artifacts: z.array(Artifact), total: z.number().int(), open: z.number().int() }),
);

export const BeginBody = z.object({
  ticketId: TicketRef,
  files: claimEntryList(1, 20, "1 to 20 entries to claim for the ticket"),
  acknowledgeCriteria: z.boolean().optional().openapi({
    description: "true acknowledges the ticket's acceptance criteria before starting (guard 3)",
  }),
  estimatedSeconds: z.number().int().positive().max(7 * 24 * 3600).optional().openapi({
    description: "Claim expiry from now; default 30 minutes",
  }),
}).openapi("BeginRequest");

export const BeginResult = z.object({
  ticket: z.object({ id: z.string().uuid(), status: z.string() }),
  sessionId: z.string().nullable().openapi({
    description: "The caller's session, now linked to the ticket (null for API keys, which have none)",
  }),
  claims: z.array(z.object({
    file: z.string(),
    claimedAt: z.string(),
    expiresAt: z.string(),
    fence: ClaimItem.shape.fence,
  })),
  criteriaAcknowledged: z.boolean(),
  nextAction: z.object({ action: z.string(), endpoint: z.string(), message: z.string() }),
}).openapi("BeginResult");
export const BeginResponse = envelope(BeginResult);

export const WorkflowInfo = z.object({
  board: z.enum(["default", "custom"]),
  reviewMode: ReviewModeSchema,
  statuses: z.array(z.string()).openapi({ description: "The board's statuses, in column order" }),
  reviewStatus: z.string().nullable().openapi({ description: "Where submit_for_review and handoff go" }),
  terminal: z.array(z.string()),
  transitions: z.record(z.string(), z.array(z.string())).openapi({
    description: "For each status, the statuses a status write may move to",
  }),
  actions: z.record(z.string(), z.array(z.string())).openapi({
    description: "For each status, the PATCH actions accepted from it",
  }),
  guards: z.object({
    criteriaRequiredForInProgress: z.boolean(),
    testedEntryRequiredFor: z.array(z.string()),
    directDoneAllowed: z.boolean(),
  }),
}).openapi("WorkflowInfo");
export const WorkflowResponse = envelope(WorkflowInfo);
