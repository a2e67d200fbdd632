import { z } from "@hono/zod-openapi";
import { claimEntryList } from "./file-path.ts";
import { envelope, PaginationSchema } from "./common.ts";
import { CI_STATES } from "@/shared/vocabulary.ts";

/** Rows per `POST /ticket/batch` (and the `svc_ticket_batch` tool). */
export const MAX_BATCH_TICKETS = 25;

/** Git-style branch name: what `git check-ref-format --branch` accepts, minus the `refs/heads/` prefix. */
export const BranchSchema = z.string().min(1).max(255)
  .refine((b) => !b.startsWith("refs/heads/"), "Give the branch name without the refs/heads/ prefix")
  .refine(
    (b) =>
      // deno-lint-ignore no-control-regex
      !/[\s\x00-\x1f\x7f~^:?*[\\]/.test(b) && !b.includes("..") && !b.includes("@{") &&
      !b.startsWith("/") && !b.endsWith("/") && !b.endsWith(".") && !b.endsWith(".lock") &&
      !b.startsWith("-"),
    "Not a valid git branch name (no spaces, ~ ^ : ? * [ \\, '..', '@{', leading '-' or '/', trailing '/', '.' or '.lock')",
  )
  .openapi({
    description: "Up to 255 characters, a valid git branch name, never prefixed with refs/heads/",
    example: "feat/login-form",
  });

export const RiskClassSchema = z.enum(["local", "shared-state", "irreversible"]).openapi({
  description: "Drives reviewer routing: a local ticket may be reviewed by a generator, evaluator or " +
    "orchestrator other than its assignee; shared-state and irreversible tickets only by an evaluator or " +
    "orchestrator, and an irreversible ticket always needs a designated reviewer (see PATCH /ticket)",
});
export const PrioritySchema = z.enum(["critical", "high", "normal", "low"]).openapi({
  description: "Stored as tag priority:<level>; normal adds no tag",
});

/** One acceptance criterion on create: `title` (or `text` in its place); extra keys are kept unchanged. */
export const CriterionInput = z.looseObject({
  title: z.string().trim().min(1).max(500).optional(),
  text: z.string().trim().min(1).max(500).optional(),
  requiresEvidence: z.boolean().optional(),
  source: z.string().min(1).max(50).optional(),
}).refine((c) => c.title !== undefined || c.text !== undefined, {
  message: "Each criterion needs a title (or text)",
  path: ["title"],
}).openapi("AcceptanceCriterionInput", {
  description:
    "title (or text) 1 to 500; optional requiresEvidence and source; extra keys are stored and returned",
});

const ExpectedFiles = claimEntryList(1, 50, "1 to 50 repository entries you expect to touch").openapi({
  example: ["src/auth/login.ts"],
});

/** The agent-first fields: a create without them is refused with recovery ADD_REQUIRED_FIELDS. */
export const AGENT_FIRST_FIELDS = [
  "expectedFiles",
  "doneDefinition",
  "verificationCommand",
  "riskClass",
] as const;

const createShape = {
  title: z.string().trim().min(1).max(200).openapi({ example: "Add login form validation" }),
  type: z.string().trim().min(1).max(50).optional().openapi({
    description: "Up to 50 characters; a project may require it (requireType) or restrict it (allowedTypes)",
    example: "feature",
  }),
  description: z.string().max(2000).nullable().optional().openapi({
    description: "Up to 2000 characters; a project may require it (requireDescription)",
  }),
  expectedFiles: ExpectedFiles,
  doneDefinition: z.string().trim().min(20).max(500).openapi({
    description: "20 to 500 characters: what done means, checkably",
    example: "Invalid emails show an inline error and the form cannot be submitted",
  }),
  verificationCommand: z.string().trim().min(10).max(500).openapi({
    description: "10 to 500 characters: the command that proves it",
    example: "deno test tests/auth/",
  }),
  riskClass: RiskClassSchema,
  acceptanceCriteria: z.array(CriterionInput).min(1).max(20).optional(),
  outOfScope: z.string().max(500).optional(),
  parentId: z.string().uuid().nullable().optional().openapi({
    description: "UUID of a ticket in the same project; nesting goes at most three levels deep",
  }),
  branch: BranchSchema.nullable().optional(),
  tags: z.array(z.string().trim().min(1).max(50)).max(10).optional().openapi({
    description: "Up to 10 tags, each up to 50 characters (the priority tag counts towards the 10)",
  }),
  priority: PrioritySchema.optional(),
  assignToSelf: z.boolean().optional().openapi({
    description: "Caller becomes assignee; the ticket still starts in backlog (single create). " +
      "Supplied criteria are recorded as acknowledged. Orchestrators are refused (403).",
  }),
  sprintId: z.string().uuid().nullable().optional(),
  idempotencyKey: z.string().min(1).max(128).optional().openapi({
    description: "Up to 128 characters, unique per project for as long as the ticket exists; a repeat " +
      "answers 200 with idempotent: true for the original ticket",
  }),
};

export const CreateTicketBody = z.object(createShape).openapi("CreateTicketRequest");
export type CreateTicketInput = z.output<typeof CreateTicketBody>;

/** Older clients (X-Svc-Legacy-Create) may omit the agent-first fields until the sunset date. */
export const LegacyCreateTicketBody = z.object({
  ...createShape,
  expectedFiles: ExpectedFiles.optional(),
  doneDefinition: createShape.doneDefinition.optional(),
  verificationCommand: createShape.verificationCommand.optional(),
  riskClass: RiskClassSchema.optional(),
});
export type LegacyCreateTicketInput = z.output<typeof LegacyCreateTicketBody>;

/** True when a raw body lacks the field: absent, null, empty string or empty list. */
function isMissing(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === "string" && value.trim() === "") ||
    (Array.isArray(value) && value.length === 0);
}

/** The agent-first fields a raw create body lacks. */
export function missingAgentFirst(raw: unknown): string[] {
  const body = typeof raw === "object" && raw !== null && !Array.isArray(raw)
    ? raw as Record<string, unknown>
    : {};
  return AGENT_FIRST_FIELDS.filter((f) => isMissing(body[f]));
}

export const LegacyCreateHeaders = z.object({
  "X-Svc-Legacy-Create": z.string().max(10).optional().openapi({
    description: "`1` or `true`: an older client that may omit the agent-first fields until the sunset",
  }),
});

export const BatchBody = z.object({
  tickets: z.array(
    z.unknown().openapi({
      type: "object",
      description: "A POST /ticket body (CreateTicketRequest), validated row by row exactly like a single " +
        "create; a row that is not an object fails alone",
    }),
  ).min(1).max(MAX_BATCH_TICKETS),
}).openapi("TicketBatchRequest");

export const AcknowledgeBody = z.object({
  additionalCriteria: z.array(z.object({
    title: z.string().trim().min(1).max(500),
    description: z.string().max(2000).optional(),
    requiresEvidence: z.boolean().default(false),
  })).max(20).optional().openapi({
    description:
      "Up to 20 criteria added before acknowledging, stored with source manual; required when the " +
      "ticket has none. A criterion whose title (case-insensitive) already exists is not added again.",
  }),
}).openapi("AcknowledgeCriteriaRequest");

export const DeleteTicketBody = z.object({
  ticketId: z.string().min(1).max(100).openapi({ description: "Ticket UUID or <PREFIX>-<number> key" }),
}).openapi("DeleteTicketRequest");

export const TicketIdParam = z.object({
  ticketId: z.string().min(1).max(100).openapi({
    param: { name: "ticketId", in: "path" },
    description: "The internal ticket id (UUID), never the human key",
  }),
});

const INCLUDES = ["comments", "ledger", "threads", "activities", "pullRequests", "ciStatus"] as const;
export type TicketInclude = typeof INCLUDES[number];

/** A comma list whose items all belong to `allowed`; empty items are ignored. */
function commaList<T extends string>(allowed: readonly T[]) {
  return z.string().max(500).transform((value, ctx) => {
    const items = value.split(",").map((s) => s.trim()).filter((s) => s.length > 0);
    const unknown = items.filter((s) => !(allowed as readonly string[]).includes(s));
    if (unknown.length > 0) {
      ctx.addIssue({
        code: "custom",
        message: `Unknown value(s) ${unknown.join(", ")}; use ${allowed.join(", ")}`,
      });
      return z.NEVER;
    }
    return [...new Set(items)] as T[];
  });
}

export const GetTicketQuery = z.object({
  id: z.string().uuid("id takes the ticket's UUID: send a <PREFIX>-<number> key as key=").optional().openapi({
    description: "Ticket UUID (a key goes in `key`)",
  }),
  key: z.string().min(1).max(30).optional().openapi({
    description: "Human key <PREFIX>-<number>; wins over id when both are given",
    example: "WEB-12",
  }),
  include: commaList(INCLUDES).optional().openapi({
    type: "string",
    description: "Comma list of comments, ledger, threads, activities, pullRequests, ciStatus",
    example: "ledger,comments",
  }),
  limit: z.coerce.number().int().min(1).max(100).default(20).openapi({
    description: "Items per included list, 1 to 100 (default 20)",
  }),
  offset: z.coerce.number().int().min(0).max(100_000).default(0).openapi({
    description: "Offset into each included list (offset pagination, see paginate=v2)",
  }),
  paginate: z.enum(["v2"]).optional().openapi({
    description: "v2 wraps the included comments, ledger, threads, activities and pullRequests as " +
      "{ data, pagination { total, limit, offset, hasMore } }",
  }),
}).refine((q) => q.id !== undefined || q.key !== undefined, {
  message: "Give id or key",
  path: ["id"],
});

export const BoardQuery = z.object({
  status: z.string().min(1).max(300).optional().openapi({
    description:
      "A status of the project's board (comma list allowed); unknown answers 400 with validStatuses",
  }),
  type: z.string().min(1).max(50).optional(),
  tags: z.string().min(1).max(600).optional().openapi({
    description: "Comma list; a ticket matches only when it carries every listed tag",
  }),
  assigneeId: z.string().min(1).max(40).optional().openapi({
    description: "Agent UUID, `me` (the caller) or `none` (unassigned)",
  }),
  sprintId: z.string().min(1).max(40).optional().openapi({
    description:
      "Sprint UUID or `none` (tickets in no sprint); anything else answers 400 with recovery LIST_SPRINTS",
  }),
  include: z.string().max(100).optional().openapi({
    description: "`cancelled` includes cancelled tickets when no status filter is given",
  }),
  limit: z.coerce.number().int().min(1).max(1000).default(50).openapi({
    description: "1 to 1000, default 50",
  }),
  cursor: z.string().min(1).max(500).optional().openapi({
    description: "The nextCursor of the previous page, unchanged, with the same filters",
  }),
});

export const SearchQuery = z.object({
  q: z.string().trim().min(2).max(200).openapi({
    description: 'Web-search syntax: words, "quoted phrases", OR, -excluded. A ticket key (DEMO-12) also ' +
      "finds that ticket first.",
    example: "login -oauth",
  }),
  status: z.string().min(1).max(300).optional().openapi({ description: "Board status (comma list allowed)" }),
  type: z.string().min(1).max(50).optional(),
  sprintId: z.string().min(1).max(40).optional().openapi({
    description: "Sprint UUID or `none`; anything else answers 400 with recovery LIST_SPRINTS",
  }),
  include: z.string().max(100).optional().openapi({
    description: "`cancelled` includes cancelled tickets when no status filter is given",
  }),
  limit: z.coerce.number().int().min(1).max(100).default(20).openapi({ description: "1 to 100, default 20" }),
  offset: z.coerce.number().int().min(0).max(10_000).default(0),
});

// ---- responses ----

const NextAction = z.object({
  action: z.string().openapi({ example: "BEGIN_TICKET" }),
  message: z.string(),
  endpoint: z.string().nullable(),
  payloadHint: z.record(z.string(), z.unknown()).nullable(),
}).openapi("TicketNextAction");

export const TicketSchema = z.object({
  id: z.string().uuid(),
  number: z.number().int(),
  ticketRef: z.string().openapi({ example: "WEB-12" }),
  title: z.string(),
  description: z.string().nullable(),
  type: z.string().nullable(),
  tags: z.array(z.string()),
  priority: PrioritySchema,
  status: z.string(),
  expectedFiles: z.array(z.string()),
  doneDefinition: z.string().nullable(),
  verificationCommand: z.string().nullable(),
  riskClass: RiskClassSchema.nullable(),
  outOfScope: z.string().nullable(),
  acceptanceCriteria: z.array(z.record(z.string(), z.unknown())),
  criteriaAcknowledgedAt: z.string().nullable(),
  assignee: z.object({ agentId: z.string(), name: z.string() }).nullable(),
  subAgentName: z.string().nullable(),
  reviewerAgentId: z.string().nullable(),
  reviewHistory: z.array(z.unknown()),
  reviewHandoff: z.record(z.string(), z.unknown()).nullable(),
  parentId: z.string().nullable(),
  parentTicketId: z.string().nullable(),
  branch: z.string().nullable(),
  sprintId: z.string().nullable(),
  humanOnly: z.boolean(),
  storyPoints: z.number().nullable(),
  noArtifact: z.boolean(),
  noArtifactReason: z.string().nullable(),
  createdByAgentId: z.string().nullable(),
  statusChangedAt: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
}).openapi("Ticket", {
  description: "The stored ticket. This is the complete field list: there are no hidden fields beyond " +
    "idempotencyKey (write-only) and the search vector.",
});

const Duplicate = z.object({
  number: z.number().int(),
  ticketRef: z.string(),
  title: z.string(),
  similarity: z.number().openapi({ description: "0.4 to 1, two decimals" }),
});

/** TKT-108: what a legacy create (agent-first fields missing, accepted for a transition) is told. */
const LegacyCreateDeprecation = z.object({
  missing: z.array(z.string()),
  deprecatedSince: z.string(),
  sunset: z.string(),
  message: z.string(),
}).openapi("LegacyCreateDeprecation", {
  description: "Only on a create accepted without the agent-first fields (with the Deprecation header)",
});

export const CreatedTicket = TicketSchema.extend({
  possibleDuplicates: z.array(Duplicate).max(5),
  nextAction: NextAction,
  url: z.string(),
  deprecation: LegacyCreateDeprecation.optional(),
}).openapi("CreatedTicket");

export const IdempotentTicket = z.object({
  id: z.string().uuid(),
  number: z.number().int(),
  ticketRef: z.string(),
  status: z.string(),
  createdAt: z.string(),
  idempotent: z.literal(true),
  url: z.string(),
  nextAction: NextAction,
  deprecation: LegacyCreateDeprecation.optional(),
}).openapi("IdempotentTicketCreate");

export const CreateTicketResponse = envelope(CreatedTicket);
export const IdempotentTicketResponse = envelope(IdempotentTicket);

const BatchCreated = z.object({
  index: z.number().int(),
  id: z.string().uuid(),
  number: z.number().int(),
  ticketRef: z.string(),
  status: z.string(),
  createdAt: z.string(),
  url: z.string(),
  idempotent: z.boolean().optional(),
});

const BatchError = z.object({
  index: z.number().int().openapi({ description: "0-based position of the row in `tickets`" }),
  title: z.string().nullable(),
  status: z.number().int().openapi({ description: "The HTTP status a single create would have answered" }),
  error: z.object({
    code: z.string(),
    message: z.string(),
    details: z.record(z.string(), z.unknown()).optional(),
  }),
});

export const BatchResponse = envelope(
  z.object({
    created: z.array(BatchCreated),
    errors: z.array(BatchError),
    total: z.number().int().openapi({ description: "Rows received (created + errors)" }),
  }).openapi("TicketBatchResult"),
);

const Paged = <T extends z.ZodType>(item: T) =>
  z.union([
    z.array(item),
    z.object({
      data: z.array(item),
      pagination: PaginationSchema,
    }),
  ]);

const Row = z.record(z.string(), z.unknown());

export const TicketDetail = TicketSchema.extend({
  comments: Paged(Row).optional(),
  ledger: Paged(Row).optional(),
  threads: Paged(Row).optional(),
  activities: Paged(Row).optional(),
  pullRequests: Paged(Row).optional(),
  ciStatus: z.object({
    state: z.enum(CI_STATES),
    source: z.string().nullable(),
    url: z.string().nullable(),
    updatedAt: z.string().nullable(),
  }).optional(),
}).openapi("TicketDetail");

export const GetTicketResponse = envelope(TicketDetail);

export const BoardRow = TicketSchema.extend({
  criteriaCount: z.number().int(),
  criteriaPassed: z.number().int(),
  artifactCount: z.number().int(),
  hasOpenArtifacts: z.boolean(),
  nextAction: NextAction,
}).openapi("BoardTicket");

export const BoardResponse = envelope(
  z.object({
    tickets: z.array(BoardRow),
    total: z.number().int(),
    statusCounts: z.record(z.string(), z.number().int()),
    returned: z.number().int(),
    ticketPrefix: z.string(),
    hasMore: z.boolean(),
    nextCursor: z.string().nullable(),
    collisionWarnings: z.array(z.object({
      agentName: z.string(),
      agentId: z.string(),
      conflictingFiles: z.array(z.string()),
      tickets: z.array(z.object({ ticketRef: z.string(), assigneeName: z.string().nullable() })),
    })),
    columns: z.array(z.string()),
  }).openapi("Board"),
);

export const SearchResponse = envelope(
  z.object({
    query: z.string(),
    results: z.array(TicketSchema.extend({ rank: z.number(), snippet: z.string().nullable() })),
    pagination: PaginationSchema,
  }).openapi("TicketSearchResult"),
);

export const DeleteResponse = envelope(
  z.object({
    deleted: z.object({ id: z.string(), number: z.number().int(), ticketRef: z.string(), title: z.string() }),
  }).openapi("DeletedTicket"),
);

export const AcknowledgeResponse = envelope(
  z.object({
    ticketId: z.string(),
    ticketRef: z.string(),
    criteriaAcknowledgedAt: z.string(),
    acceptanceCriteria: z.array(z.record(z.string(), z.unknown())),
    added: z.number().int().openapi({ description: "Criteria added by this call (0 on a repeat)" }),
    alreadyAcknowledged: z.boolean().openapi({ description: "True when this call changed nothing" }),
    nextAction: NextAction,
  }).openapi("AcknowledgeCriteriaResult"),
);
