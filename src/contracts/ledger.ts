import {
  LEDGER_SEVERITIES,
  LEDGER_SOURCE_FILTERS,
  LEDGER_SOURCES,
  LEDGER_TYPES,
} from "@/shared/vocabulary.ts";
import { z } from "@hono/zod-openapi";
import { envelope, PaginationSchema } from "./common.ts";
import { FilePath } from "./file-path.ts";
import { NextActionSchema } from "./claims.ts";

export const LedgerTypeSchema = z.enum(LEDGER_TYPES).openapi({
  description: "Exact, case-sensitive. AGENT_JOINED is written only by the service; AGENT_SPAWNED, " +
    "AGENT_ASSIGNED and AGENT_COMPLETED are written by the service and may also be posted by orchestrators " +
    "(other roles: 422 INVALID).",
});

export const EnvHealthSchema = z.object({
  status: z.enum(["ok", "degraded", "broken"]),
  notes: z.array(z.string().max(200)).max(10).optional().openapi({ description: "Up to 10 notes of 200" }),
}).openapi("EnvHealth");

export const PROGRESS_TEXT_MAX = 1000;
export const DECISION_RATIONALE_MAX = 2000;
/** A payload list (`blockers`, `alternatives`): at most this many strings, each at most PAYLOAD_ITEM_MAX. */
export const PAYLOAD_LIST_MAX = 10;
export const PAYLOAD_ITEM_MAX = 500;
const payloadList = z.array(z.string().min(1).max(PAYLOAD_ITEM_MAX)).max(PAYLOAD_LIST_MAX);

/** The payload of a PROGRESS entry (checked by the domain: `payload` itself is any object). */
export const ProgressPayload = z.object({
  did: z.string().min(1).max(PROGRESS_TEXT_MAX),
  next: z.string().min(1).max(PROGRESS_TEXT_MAX),
  blockers: payloadList.optional(),
});

/** The payload of a DECISION entry. */
export const DecisionPayload = z.object({
  rationale: z.string().min(1).max(DECISION_RATIONALE_MAX),
  alternatives: payloadList.optional(),
});

export const LedgerEntryBody = z.object({
  type: LedgerTypeSchema,
  content: z.string().min(1).max(2000).optional().openapi({
    description:
      "1 to 2000 characters. Required, except for a PROGRESS entry with a payload, whose content " +
      "is derived from the payload (a content sent with it is replaced)",
  }),
  payload: z.record(z.string(), z.unknown()).optional().openapi({
    description:
      `PROGRESS: \`{ did, next, blockers? }\` (did and next 1 to ${PROGRESS_TEXT_MAX} characters, ` +
      `blockers up to ${PAYLOAD_LIST_MAX} strings of ${PAYLOAD_ITEM_MAX}, default []). DECISION: \`{ rationale ` +
      `(1 to ${DECISION_RATIONALE_MAX}, required: 422 VALIDATION_ERROR without it), alternatives? (up to ` +
      `${PAYLOAD_LIST_MAX} strings of ${PAYLOAD_ITEM_MAX}) }\`. Other types: any JSON object`,
  }),
  sessionId: z.string().uuid().optional().openapi({
    description: "Defaults to the token's session (svc_sess_, svc_sub_); required with OAuth tokens (400, " +
      "recovery PROVIDE_SESSION_ID). Must be one of your own sessions, else 403 FORBIDDEN",
  }),
  ticketId: z.string().min(1).max(64).optional().openapi({
    description: "UUID or key (`PREFIX-n`); unresolvable: 422 VALIDATION_ERROR, recovery RESOLVE_TICKET_REF",
  }),
  fileRef: FilePath.optional(),
  fence: z.number().int().positive().optional().openapi({
    description:
      "(extension, issue 25) Requires fileRef: the fencing token you hold for that file (POST /claim " +
      "`claims[].fence`). Not current (your claim ended, or another claim holds the file now): 409 FENCE_STALE, " +
      "nothing written",
    example: 42,
  }),
  lineRef: z.number().int().min(1).optional().openapi({ description: "Requires fileRef" }),
  labels: z.array(z.string().min(1).max(50)).max(10).optional().openapi({
    description: "Up to 10 known labels (see LedgerLabel); unknown labels: 422 INVALID",
  }),
  threadId: z.string().uuid().optional().openapi({
    description: "A thread of this project; unknown: 422 VALIDATION_ERROR",
  }),
  severity: z.enum(LEDGER_SEVERITIES).optional(),
  blockedByFile: FilePath.optional().openapi({
    description: "BLOCKED only (other types: 400). Opens a thread about the file unless one is open for it",
  }),
  tokensUsed: z.number().int().min(0).max(100_000_000).optional(),
  activity: z.string().min(1).max(200).optional().openapi({
    description: "Current activity line, up to 200",
  }),
  envHealth: EnvHealthSchema.optional(),
}).superRefine((body, ctx) => {
  if (body.lineRef !== undefined && body.fileRef === undefined) {
    ctx.addIssue({ code: "custom", path: ["lineRef"], message: "lineRef requires fileRef" });
  }
  if (body.fence !== undefined && body.fileRef === undefined) {
    ctx.addIssue({ code: "custom", path: ["fence"], message: "fence requires fileRef" });
  }
  if (body.blockedByFile !== undefined && body.type !== "BLOCKED") {
    ctx.addIssue({
      code: "custom",
      path: ["blockedByFile"],
      message: "blockedByFile is only for BLOCKED entries",
    });
  }
  if (body.content === undefined && !(body.type === "PROGRESS" && body.payload !== undefined)) {
    ctx.addIssue({
      code: "custom",
      path: ["content"],
      message: "content is required (1 to 2000 characters) except for a PROGRESS entry with a payload",
    });
  }
}).openapi("LedgerEntryRequest");

export type LedgerEntryInput = z.output<typeof LedgerEntryBody>;

export const LedgerWriteData = z.object({
  id: z.string().uuid(),
  createdAt: z.string(),
  nextAction: NextActionSchema,
  warnings: z.array(z.string()).optional().openapi({
    description: "Present when something needs attention but did not block the write (DONE without a " +
      "TESTED or VERIFIED entry, a BLOCKED entry whose ticket could not move)",
  }),
  ticket: z.object({ id: z.string(), status: z.string() }).optional().openapi({
    description: "BLOCKED via POST /ledger: the ticket moved to `blocked`",
  }),
  threadId: z.string().optional().openapi({ description: "BLOCKED with blockedByFile: the thread opened" }),
  agentOffline: z.literal(true).optional().openapi({
    description: "Critical ALERT: the agent is offline and its credentials are revoked",
  }),
}).openapi("LedgerWriteResult");

export const LedgerWriteResponse = envelope(LedgerWriteData).openapi("LedgerWriteResponse");

export const LedgerBatchBody = z.object({
  entries: z.array(z.record(z.string(), z.unknown())).min(1).openapi({
    description: "1 to 20 entries shaped like POST /ledger bodies (more than 20: 422, recovery SPLIT_BATCH)",
  }),
}).openapi("LedgerBatchRequest");

const BatchError = z.object({
  code: z.string(),
  message: z.string(),
  details: z.record(z.string(), z.unknown()).optional(),
});

export const LedgerBatchData = z.object({
  ok: z.boolean().openapi({ description: "True when every entry was written" }),
  results: z.array(z.object({
    ok: z.boolean(),
    id: z.string().optional(),
    createdAt: z.string().optional(),
    error: BatchError.optional(),
  })).openapi({ description: "results[i] belongs to entries[i]" }),
  succeeded: z.number().int(),
  failed: z.number().int(),
}).openapi("LedgerBatchResult");

export const LedgerBatchResponse = envelope(LedgerBatchData).openapi("LedgerBatchResponse");

export const LedgerEntrySchema = z.object({
  id: z.string(),
  type: z.string(),
  content: z.string(),
  createdAt: z.string(),
  source: z.enum(LEDGER_SOURCES),
  audit: z.boolean(),
  agentId: z.string().nullable(),
  agentName: z.string().nullable().optional(),
  subAgentName: z.string().nullable(),
  sessionId: z.string().nullable(),
  ticketId: z.string().nullable(),
  threadId: z.string().nullable(),
  fileRef: z.string().nullable(),
  lineRef: z.number().int().nullable(),
  labels: z.array(z.string()),
  payload: z.record(z.string(), z.unknown()).nullable(),
  severity: z.enum(LEDGER_SEVERITIES).nullable(),
  tokensUsed: z.number().int().nullable(),
  activity: z.string().nullable(),
  envHealth: z.record(z.string(), z.unknown()).nullable(),
  blockedByFile: z.string().nullable(),
}).openapi("LedgerEntry");

const boolParam = z.enum(["true", "false"]).optional();

export const LedgerQuery = z.object({
  ticketId: z.string().min(1).max(64).optional().openapi({ description: "UUID or key" }),
  type: z.string().min(1).optional().openapi({ description: "Comma list of types; any unknown type: 400" }),
  agentId: z.string().uuid().optional(),
  sessionId: z.string().uuid().optional(),
  source: z.enum(LEDGER_SOURCE_FILTERS).optional().openapi({
    description: "Default `all` (the ledger is the whole record)",
  }),
  include_audit: boolParam.openapi({ description: "Default false: audit entries are left out" }),
  since: z.string().datetime({ offset: true }).optional().openapi({ description: "ISO 8601, inclusive" }),
  until: z.string().datetime({ offset: true }).optional().openapi({ description: "ISO 8601, inclusive" }),
  limit: z.coerce.number().int().min(1).max(200).optional().openapi({ description: "1 to 200, default 50" }),
  offset: z.coerce.number().int().min(0).optional().openapi({ description: "Default 0" }),
  order: z.enum(["asc", "desc"]).optional().openapi({ description: "Default desc (newest first)" }),
});

export const LedgerListResponse = envelope(z.object({
  entries: z.array(LedgerEntrySchema),
  pagination: PaginationSchema,
})).openapi("LedgerListResponse");
