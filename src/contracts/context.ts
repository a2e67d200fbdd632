import { z } from "@hono/zod-openapi";
import { RELEASE_REQUESTS_IN_CONTEXT, ReleaseRequestSchema } from "./release-requests.ts";
import { LEDGER_SOURCE_FILTERS, LEDGER_TYPES } from "@/shared/vocabulary.ts";
import {
  AgentIdentity,
  AgentRoleSchema,
  envelope,
  NextActionSchema as NextAction,
  ProjectPhaseSchema,
  ReviewModeSchema,
} from "./common.ts";
import { LedgerEntrySchema } from "./ledger.ts";
import { FilePath } from "./file-path.ts";
import { ThreadSummary } from "./threads.ts";
import { WorkqueueItem } from "./pairing.ts";
import { PlanItem } from "./sessions.ts";

const Bool = z.enum(["true", "false", "1", "0"]).transform((v) => v === "true" || v === "1");

/**
 * Extension (issue 27): a `contextCursor` is `c1.<scope>.<fingerprints>` (8 base64url characters each), never an
 * ISO 8601 time, so `since` can carry either.
 */
export const CONTEXT_CURSOR = /^c1\.([A-Za-z0-9_-]{8})\.([A-Za-z0-9_-]*)$/;
const CONTEXT_CURSOR_MAX = 2000;
export const isContextCursor = (v: string): boolean => CONTEXT_CURSOR.test(v);

const isIso8601 = (v: string) =>
  /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/.test(v) &&
  !Number.isNaN(Date.parse(v));

export const ContextQuery = z.object({
  compact: Bool.optional().openapi({ description: "Trimmed response (see the operation). Default false" }),
  ledger_limit: z.coerce.number().int().min(0).max(100).optional().openapi({
    description: "0 to the project ceiling (100 unless the project sets `contextLedgerCeiling` lower); 0 " +
      "suppresses the ledger. Default 10, or the ceiling if lower. Above the ceiling: 400",
  }),
  thread_limit: z.coerce.number().int().min(1).max(50).optional().openapi({
    description:
      "1 to the project ceiling (50 unless the project sets `contextThreadCeiling` lower). Default " +
      "the ceiling. Outside: 400",
  }),
  thread_status: z.string().max(100).optional().openapi({
    description: "`open` (default), `closed` or `all`; any other value is ignored (open)",
  }),
  updates_limit: z.coerce.number().int().min(0).max(50).optional().openapi({
    description: "0 to 50, default 20. 0 returns no updates and marks nothing read",
  }),
  since: z.string().max(CONTEXT_CURSOR_MAX).refine(
    (v) => (v.length <= 64 && isIso8601(v)) || isContextCursor(v),
    "Must be an ISO 8601 date or date-time",
  ).optional().openapi({
    description: "ISO 8601: only ledger entries created after it. Extension (issue 27): a `contextCursor` " +
      "of an earlier answer instead (it starts with `c1.`) asks for the delta, as `delta` does; the ledger " +
      "is then not limited by time",
    example: "2026-01-31T12:00:00Z",
  }),
  include_system_ledger: Bool.optional().openapi({ description: "Default false: system entries left out" }),
  include_audit: Bool.optional().openapi({ description: "Default false: audit entries left out" }),
  ledger_source: z.enum(LEDGER_SOURCE_FILTERS).optional().openapi({
    description: "Overrides include_system_ledger when both are sent",
  }),
  ledger_type: z.string().max(400).refine(
    (v) => v.split(",").every((t) => (LEDGER_TYPES as readonly string[]).includes(t.trim())),
    "Unknown ledger type",
  ).optional().openapi({
    description: "Comma list of ledger types (exact, case-sensitive)",
    example: "DECISION,FOUND",
  }),
  ledger_sessionId: z.string().uuid().optional(),
  ledger_fileRef: FilePath.optional(),
  ledger_subAgent: z.string().min(1).max(64).optional(),
  delta: z.string().max(CONTEXT_CURSOR_MAX).optional().openapi({
    description:
      "Extension (issue 27): the `contextCursor` of an earlier answer. The answer then holds only " +
      "the sections that changed since that answer, a new `contextCursor` and `unchangedSections` " +
      "(schema ContextDelta); same reads, cost and side effects as a full call. A cursor that does not " +
      "decode or came from another caller, query or set of sections is not an error: every section is sent",
  }),
  include: z.string().max(200).optional().openapi({
    description: "Comma list; `write_schemas` adds schema.writePayloads. Unknown items are ignored",
  }),
  expectedPlatform: z.string().min(1).max(100).optional().openapi({
    description: "Same check as the X-Svc-Platform header: 409 IDENTITY_MISMATCH when it differs",
  }),
}).openapi("ContextQuery");

const Obj = z.record(z.string(), z.unknown());
const IdCount = (name: string) => z.object({ count: z.number().int(), [name]: z.array(z.string()) });

/** A ledger entry as context lists it: the entry without its session-report fields, `agentName` always present. */
export const ContextLedgerEntry = LedgerEntrySchema.pick({
  id: true,
  type: true,
  content: true,
  source: true,
  audit: true,
  agentId: true,
  subAgentName: true,
  sessionId: true,
  ticketId: true,
  threadId: true,
  fileRef: true,
  lineRef: true,
  labels: true,
  payload: true,
  severity: true,
  createdAt: true,
}).extend({ agentName: z.string().nullable() }).openapi("ContextLedgerEntry");

export const ContextThreadRow = ThreadSummary.omit({ agentName: true, expectedFiles: true })
  .openapi("ContextThreadRow");

const ContextThread = ThreadSummary.openapi("ContextThread");

const AgentRef = z.object({ id: z.string(), name: z.string() });

export const ReviewRow = z.object({
  ticketId: z.string(),
  ticketNumber: z.number().int(),
  title: z.string(),
  type: z.string().nullable(),
  tags: z.array(z.string()),
  branch: z.string().nullable(),
  generatorAgent: AgentRef.nullable().openapi({ description: "The assignee who handed the ticket in" }),
  reviewerAgent: AgentRef.nullable(),
  waitingSince: z.string().openapi({ description: "When the ticket entered its review status" }),
  coverage: z.object({
    covered: z.array(z.string()),
    uncovered: z.array(z.string()),
    ratio: z.number().min(0).max(1),
  }).optional().openapi({
    description: "(extension, issue 25) The coverage receipt of the handoff that sent the ticket to review " +
      "(its changedFiles against the files its session held); absent when the handoff named no changedFiles",
  }),
}).openapi("ReviewRow");

const OpenClaim = z.object({
  claimId: z.string(),
  file: z.string(),
  agentId: z.string(),
  agentName: z.string(),
  subAgentName: z.string().nullable(),
  ticketId: z.string().nullable(),
  claimedAt: z.string(),
  expiresAt: z.string(),
  isSelf: z.boolean(),
  isStale: z.boolean().openapi({ description: "Claimed more than 10 minutes ago" }),
}).openapi("ContextOpenClaim");

const ActiveTicket = z.object({
  id: z.string(),
  ticketRef: z.string(),
  title: z.string(),
  status: z.string(),
  expectedFiles: z.array(z.string()),
  acceptanceCriteria: z.array(Obj),
  criteriaAcknowledged: z.boolean(),
  doneDefinition: z.string().nullable(),
  verificationCommand: z.string().nullable(),
  riskClass: z.string().nullable(),
  outOfScope: z.string().nullable(),
  branch: z.string().nullable(),
  subAgentName: z.string().nullable(),
}).openapi("ContextActiveTicket");

const ContextDocument = z.object({
  id: z.string(),
  kind: z.enum(["skill", "project"]),
  title: z.string(),
  url: z.string().nullable(),
  contentText: z.string().nullable().openapi({
    description: "Preview, at most 8,000 characters; null in compact",
  }),
  totalChars: z.number().int(),
  truncated: z.boolean(),
}).openapi("ContextDocument");

export const ContextData = z.object({
  resume: z.object({
    activeTicket: ActiveTicket.nullable().openapi({
      description:
        "The caller's ticket in progress (else blocked, changes_requested or claimed), preferring " +
        "the one of the acting sub-agent",
    }),
    riskyFiles: z.array(z.object({ file: z.string(), claimant: z.string(), expiresAt: z.string() }))
      .optional()
      .openapi({ description: "Only when another agent holds one of the active ticket's expected files" }),
    staleClaims: z.array(z.object({
      file: z.string(),
      claimId: z.string(),
      claimedAt: z.string(),
      ageMinutes: z.number().int(),
    })).optional().openapi({ description: "Only when some of your live claims are older than 10 minutes" }),
    envBlockers: z.array(
      z.object({ status: z.string(), notes: z.array(z.unknown()), reportedAt: z.string().nullable() }),
    )
      .optional().openapi({ description: "Only when your latest envHealth report says broken" }),
    nextAction: NextAction.optional().openapi({ description: "Only with an active ticket (RESUME_WORK)" }),
  }),
  agent: AgentIdentity.extend({
    role: AgentRoleSchema,
    subAgentName: z.string().nullable(),
    capabilities: z.array(z.string()),
  }),
  project: z.object({
    id: z.string(),
    name: z.string(),
    phase: ProjectPhaseSchema,
    moduleCount: z.number().int().openapi({ description: "Tickets on the board, cancelled ones excepted" }),
    modulesDone: z.number().int().openapi({ description: "Distinct modules handed off (POST /handoff)" }),
  }),
  brief: z.object({ version: z.number().int(), content: z.string() }).openapi({
    description: "content: the serialized brief, cut to 16,000 characters (500 in compact mode)",
  }),
  briefTruncated: z.boolean(),
  briefFetchUrl: z.string().nullable().openapi({
    description: "GET /context/more?section=brief when truncated",
  }),
  openClaims: z.union([z.array(OpenClaim), IdCount("ticketIds")]).openapi({
    description: "Every live claimed file of the project (at most 200, newest first); compact: " +
      "`{ count, ticketIds }`",
  }),
  expiredClaims: z.array(z.object({
    claimId: z.string(),
    file: z.string(),
    ticketId: z.string().nullable(),
    expiredAt: z.string(),
  })).openapi({ description: "Your claims past their expiry and not released: claim again to keep them" }),
  expiringClaims: z.array(z.object({
    claimId: z.string(),
    file: z.string(),
    ticketId: z.string().nullable(),
    expiresAt: z.string(),
    secondsLeft: z.number().int(),
  })).openapi({ description: "Your live claims expiring within 5 minutes" }),
  conflictRisk: z.object({
    level: z.enum(["none", "low", "high"]),
    files: z.array(z.string()),
  }).openapi({
    description:
      "high: another agent holds one of your active ticket's expected files; low: another agent's " +
      "in-progress ticket expects files you expect or hold; none otherwise",
  }),
  collisionWarnings: z.array(z.object({
    agentName: z.string(),
    ticketRef: z.string(),
    conflictingFiles: z.array(z.string()),
  })).openapi({ description: "Advisory: other agents' in-progress tickets overlapping your files" }),
  ledger: z.array(ContextLedgerEntry).openapi({
    description: "Newest first, after the filters; compact: the 5 newest plus the non-superseded CONTEXT " +
      "entries pinned to your active ticket (latest per file or thread)",
  }),
  ledgerCursor: z.string().nullable().openapi({
    description:
      "Continue with GET /context/more?section=ledger&cursor=... (same filters); null when no more",
  }),
  threads: z.union([z.array(ContextThread), IdCount("ids")]),
  updates: z.array(z.object({
    id: z.string(),
    kind: z.string().openapi({ example: "mention" }),
    source: z.enum(["notification", "context"]),
    content: z.string(),
    threadId: z.string().nullable(),
    messageId: z.string().nullable(),
    createdAt: z.string(),
  })).openapi({
    description: "Newest first, at most updates_limit: a `brief.updated` item when the brief changed since " +
      "your previous context call, then your unread notifications (mentions...). Notifications returned " +
      "here are marked read by this call; meta.context.unreadNotifications counts the ones still waiting",
  }),
  pendingActions: z.array(z.object({
    action: z.string(),
    message: z.string(),
    blocking: z.boolean(),
    endpoint: z.string(),
  })).openapi({
    description: "LOG_LEDGER_ENTRY (blocking once LEDGER_STALE applies, a warning 5 minutes before), " +
      "ACKNOWLEDGE_CRITERIA / ADD_CRITERIA (blocking), RENEW_CLAIMS, LOG_TESTED_ENTRY, REVIEW_TICKETS, " +
      "SUBMIT_ENV_REPORT, FIX_ENVIRONMENT",
  }),
  hasBlockingActions: z.boolean(),
  yourReviews: z.array(z.object({
    ticketId: z.string(),
    ticketRef: z.string(),
    title: z.string(),
    status: z.string(),
    waitingSince: z.string(),
  })).openapi({ description: "Tickets in review naming you as reviewer (at most 20, oldest first)" }),
  pendingReviews: z.union([z.array(ReviewRow), IdCount("ticketIds")]).openapi({
    description:
      "Tickets in a review status not assigned to you, oldest waiting first, at most 20; compact: " +
      "`{ count, ticketIds }` with count = pendingReviewsTotal",
  }),
  pendingReviewsTotal: z.number().int(),
  pendingReviewsCursor: z.string().nullable().openapi({
    description:
      "When more than 20 wait: GET /context/more?section=reviews&cursor=... lists exactly the ones " +
      "not shown (newest first)",
  }),
  workqueue: z.array(WorkqueueItem),
  boardSummary: z.object({
    total: z.number().int(),
    byStatus: z.record(z.string(), z.number().int()),
    columns: z.array(z.string()),
    inReview: z.number().int(),
    unassignedReady: z.number().int(),
  }),
  activeSession: z.object({
    id: z.string(),
    status: z.string(),
    startedAt: z.string(),
    source: z.string(),
    ticketId: z.string().nullable(),
    planVersion: z.number().int(),
    plan: z.array(PlanItem),
    reportedAt: z.string().nullable(),
  }).nullable(),
  connectedAgents: z.array(z.object({
    agentId: z.string(),
    name: z.string(),
    role: z.string(),
    platform: z.string().nullable(),
    subAgentName: z.string().nullable(),
    sessionId: z.string(),
    since: z.string(),
    isSelf: z.boolean(),
  })).openapi({ description: "Agents with an open session (at most 50, newest first)" }),
  reviewConfig: z.object({
    mode: ReviewModeSchema,
    reviewStatus: z.string(),
    criteriaAckRequired: z.boolean(),
    testedEntryRequired: z.boolean(),
    directDoneAllowed: z.boolean(),
  }),
  guidance: z.array(z.string()),
  nextAction: NextAction,
  isFirstSession: z.boolean().openapi({
    description: "True while the agent (or sub-agent) has had one session",
  }),
  complianceScore: z.number().int().min(0).max(100).openapi({
    description:
      "Share of the applicable checks you pass: ledger not stale while holding work, environment " +
      "reported for the session, TESTED entry on the active ticket, no expired claims, criteria acknowledged",
  }),
  envHealth: z.object({
    status: z.string().openapi({ description: "ok, degraded, broken, or unknown when never reported" }),
    notes: z.array(z.unknown()),
    reportedAt: z.string().nullable(),
  }).openapi({ description: "From your latest ledger entry carrying envHealth" }),
  repoMismatch: z.object({
    mismatch: z.boolean(),
    expectedBranch: z.string(),
    reportedBranch: z.string(),
    reportedRemote: z.string().nullable(),
  }).nullable().openapi({
    description:
      "Your latest environment report's git_branch against the active ticket's branch; null when " +
      "either is unknown",
  }),
  skillVersion: z.string().openapi({ description: "Opaque" }),
  skillStale: z.boolean().openapi({
    description:
      "True when the skill instructions differ from the version you have: the `skill_hash` of your " +
      "latest environment report, else the version your previous context call returned",
  }),
  schema: z.object({
    openapiUrl: z.string(),
    docsUrl: z.string(),
    writePayloads: z.object({ ledger: Obj, ticket: Obj, claim: Obj, handoff: Obj }).optional()
      .openapi({
        description: "Only with include=write_schemas: JSON Schema draft 2020-12 of each request body",
      }),
  }),
  pollingHint: z.object({
    endpoint: z.literal("GET /events"),
    url: z.string(),
    cursor: z.string().openapi({ description: "The feed position now: poll GET /events?since=<cursor>" }),
    intervalSeconds: z.number().int(),
  }),
  staleTickets: z.array(z.object({
    ticketId: z.string(),
    ticketRef: z.string(),
    title: z.string(),
    assigneeAgentId: z.string().nullable(),
    subAgentName: z.string().nullable(),
    lastEntryAt: z.string().nullable(),
    minutesSilent: z.number().int(),
  })).optional().openapi({
    description:
      "Only when present: in-progress tickets without a ledger entry for 30 minutes, longest silent first, at most 20",
  }),
  claims: z.object({
    granted: z.array(z.object({
      requestId: z.string(),
      files: z.array(z.string()),
      grantedAt: z.string(),
    })).max(20).openapi({
      description: "Claims the service granted you from your wait queue (POST /claim with waitSeconds) " +
        "that still live, newest first, at most 20",
    }),
  }).optional().openapi({
    description: "(extension, wait queue) Only while a claim granted from your waiting requests lives",
  }),
  releaseRequests: z.array(ReleaseRequestSchema).max(RELEASE_REQUESTS_IN_CONTEXT).optional().openapi({
    description: "Only when present (extension, issue 24): pending release requests addressed to you whose " +
      "files you still hold, oldest first; answer each with POST /claim/release-requests/{requestId}/answer",
  }),
  documents: z.array(ContextDocument),
  mcpUrl: z.string(),
  contextCursor: z.string().optional().openapi({
    description:
      "Extension (issue 27): on every answer. Send it back as `since=<contextCursor>` (or `delta=`) to receive " +
      "only the sections that changed since this answer",
  }),
}).openapi("Context");

/**
 * Extension (issue 27): the answer to `GET /context?since=<contextCursor>` (or `delta=`): the sections that changed, the
 * new cursor, and the names of the unchanged ones. Generic over the sections of `Context`.
 */
export const ContextDeltaData = z.object({
  contextCursor: z.string().openapi({ description: "The cursor of this answer (for the next delta)" }),
  unchangedSections: z.array(z.string()).openapi({
    description: "Sections of the full answer that are the same as in the answer the `delta` cursor came " +
      "with (left out here). Sections present here changed; an unusable cursor makes this list empty",
  }),
}).catchall(z.unknown()).openapi("ContextDelta", {
  description: "Besides these two: each section of Context that changed, under its own name and in its own " +
    "schema (a section absent here is listed in unchangedSections)",
});

export const ContextResponse = envelope(z.union([ContextData, ContextDeltaData]));

/** The context sections that page on through GET /context/more. */
const ContextSection = z.enum(["ledger", "threads", "brief", "reviews"]);

export const ContextMoreQuery = z.object({
  section: ContextSection,
  cursor: z.string().max(4000).optional().openapi({
    description:
      "A nextCursor (or ledgerCursor / pendingReviewsCursor of GET /context) passed back unchanged. " +
      "An invalid cursor is not an error: the listing starts from the beginning",
  }),
  limit: z.coerce.number().int().min(1).max(200).optional().openapi({
    description: "1 to 200, default 50. For section=brief: the chunk size in kilobytes (1024 bytes)",
  }),
}).openapi("ContextMoreQuery");

export const BriefChunkRow = z.object({
  version: z.number().int(),
  chunk: z.string(),
  offset: z.number().int().openapi({ description: "Byte offset (UTF-8) of the chunk" }),
  totalBytes: z.number().int(),
  hasMore: z.boolean(),
  nextCursor: z.string().nullable(),
}).openapi("BriefChunk");

export const ContextMoreData = z.object({
  section: ContextSection,
  rows: z.union([
    z.array(ContextLedgerEntry),
    z.array(ContextThreadRow),
    z.array(ReviewRow),
    z.array(BriefChunkRow),
  ]),
  hasMore: z.boolean(),
  nextCursor: z.string().nullable(),
}).openapi("ContextMore");

export const ContextMoreResponse = envelope(ContextMoreData);

/** `meta.context` on every authenticated call (CONV-009/010 design), published as a component. */
export const MetaContext = z.object({
  unreadNotifications: z.number().int().min(1).optional().openapi({
    description: "Notifications (mentions...) waiting for you: GET /context delivers them in `updates`",
  }),
  expiringClaims: z.number().int().min(1).optional().openapi({
    description: "Your live claims that expire within 5 minutes: claim the files again to keep them",
  }),
  expiredClaims: z.number().int().min(1).optional().openapi({
    description: "Your claims past their expiry and not released",
  }),
  ledgerStale: z.object({
    minutesSilent: z.number().int(),
    thresholdMinutes: z.number().int(),
    stale: z.boolean().openapi({
      description: "true: writes other than ledger writes answer 429 LEDGER_STALE",
    }),
  }).optional().openapi({
    description: "While you hold a claim or an in-progress ticket, from 5 minutes before the LEDGER_STALE " +
      "threshold: silence measured as the gate does",
  }),
}).openapi("MetaContext", {
  description: "meta.context: a compact update about the caller's own situation, computed at the start of " +
    "every authenticated call (GET /context: after it delivered notifications). Each key appears only when " +
    "non-zero; with nothing to report meta has no `context` key at all.",
});
