import { z } from "@hono/zod-openapi";
import { WorkqueueItem } from "./pairing.ts";
import { isSprintDate } from "@/shared/sprint-dates.ts";
import { envelope } from "./common.ts";

export const SPRINT_STATUSES = ["planning", "active", "complete", "archived", "cancelled"] as const;

const SprintDate = z.string().max(40).refine(isSprintDate, {
  message: "Use an ISO 8601 date (2026-03-01) or a date-time with an offset (2026-03-01T09:00:00Z)",
}).openapi({
  description: "ISO 8601 date `YYYY-MM-DD` (covers that whole day, UTC) or date-time with offset",
  example: "2026-03-01",
});
const Name = z.string().trim().min(1).max(200);
const Goal = z.string().max(2000);
const Capacity = z.number().int().min(0).max(9999);

export const SprintCreateBody = z.object({
  name: Name.optional().openapi({ description: "1 to 200 characters; default `Sprint N` (N = its number)" }),
  goal: Goal.nullable().optional().openapi({ description: "Up to 2000 characters" }),
  startDate: SprintDate.nullable().optional(),
  endDate: SprintDate.nullable().optional().openapi({ description: "Not earlier than startDate" }),
  capacityPoints: Capacity.nullable().optional().openapi({ description: "0 to 9999" }),
}).openapi("SprintCreateRequest");

export const SprintPatchBody = z.object({
  name: Name.optional(),
  goal: Goal.nullable().optional().openapi({ description: "Up to 2000; empty string (or null) clears it" }),
  status: z.enum(SPRINT_STATUSES).optional().openapi({
    description: "planning→active (no other active sprint), active→complete, complete→archived, " +
      "planning|active→cancelled; anything else 422 VALIDATION_ERROR",
  }),
  startDate: SprintDate.nullable().optional().openapi({ description: "null clears it" }),
  endDate: SprintDate.nullable().optional().openapi({ description: "null clears it" }),
  capacityPoints: Capacity.nullable().optional().openapi({ description: "0 to 9999; null clears it" }),
}).refine((b) => Object.values(b).some((v) => v !== undefined), {
  message: "Send at least one of name, goal, status, startDate, endDate, capacityPoints",
  path: [],
}).openapi("SprintPatchRequest");

const TICKET_REF =
  /^(?:[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}|[A-Z]{2,10}-\d{1,9})$/;

export const SprintAssignBody = z.object({
  ticketId: z.string().regex(TICKET_REF, "A ticket UUID or a <PREFIX>-<number> key").openapi({
    description: "Ticket UUID or `<PREFIX>-<number>` key",
    example: "WEB-12",
  }),
  sprintId: z.string().uuid().nullable().openapi({
    description: "Sprint UUID (never its number), or null to unassign",
  }),
  idempotencyKey: z.string().min(1).max(120).optional().openapi({
    description: "Up to 120 characters; repeating it within 60 seconds returns the earlier result",
  }),
}).openapi("SprintAssignRequest");

export const SprintIdParams = z.object({
  sprintId: z.string().uuid().openapi({
    param: { name: "sprintId", in: "path" },
    description: "Sprint UUID",
  }),
});

export const CurrentSprintQuery = z.object({
  include: z.string().max(100).optional().openapi({
    description: "Comma list; `tickets` adds the sprint's tickets",
  }),
});

export const Sprint = z.object({
  id: z.string().uuid(),
  number: z.number().int(),
  name: z.string(),
  goal: z.string().nullable(),
  status: z.enum(SPRINT_STATUSES),
  startDate: z.string().nullable(),
  endDate: z.string().nullable(),
  capacityPoints: z.number().int().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
  startedAt: z.string().nullable().openapi({ description: "When it was activated" }),
  completedAt: z.string().nullable().openapi({ description: "Null until complete" }),
}).openapi("Sprint");

export const ReleaseNotes = z.object({
  title: z.string().openapi({ example: "Sprint 3: Checkout" }),
  sprint: z.object({
    id: z.string(),
    number: z.number().int(),
    name: z.string(),
    goal: z.string().nullable(),
  }),
  completedAt: z.string(),
  summary: z.object({
    done: z.number().int(),
    carriedOver: z.number().int().openapi({ description: "Non-done tickets moved out of the sprint" }),
    storyPointsDone: z.number(),
  }),
  items: z.array(z.object({
    ticketId: z.string(),
    ticketRef: z.string(),
    title: z.string(),
    type: z.string().nullable(),
    assigneeAgentName: z.string().nullable(),
    storyPoints: z.number().nullable(),
  })).openapi({ description: "Done tickets, by number" }),
  carriedOver: z.array(z.object({
    ticketId: z.string(),
    ticketRef: z.string(),
    title: z.string(),
    status: z.string(),
  })),
  markdown: z.string().openapi({ description: "The same notes as Markdown" }),
}).openapi("ReleaseNotes");

export const ReleasePublish = z.object({
  published: z.boolean(),
  reason: z.string().nullable().openapi({ description: "Why nothing was published: `no_done_tickets`" }),
  channel: z.enum(["ledger"]).nullable(),
  ledgerEntryId: z.string().nullable(),
  eventKind: z.enum(["sprint.released"]).nullable(),
  version: z.string().nullable().openapi({ example: "sprint-3" }),
}).openapi("ReleasePublish");

export const SprintPatchResult = z.object({
  id: z.string().uuid(),
  status: z.enum(SPRINT_STATUSES),
  name: z.string(),
  updatedFields: z.array(z.string()),
  removedTicketIds: z.array(z.string()).optional().openapi({
    description: "On complete and cancel: the non-done tickets that left the sprint",
  }),
  releaseNotes: ReleaseNotes.optional(),
  releasePublish: ReleasePublish.optional(),
}).openapi("SprintPatchResult");

export const SprintAssignResult = z.object({
  ticketId: z.string().uuid(),
  sprintId: z.string().uuid().nullable(),
  action: z.enum(["assigned", "unassigned"]),
  idempotent: z.literal(true).optional(),
  noop: z.literal(true).optional(),
}).openapi("SprintAssignResult");

export const SprintTicketRow = WorkqueueItem.extend({
  priority: z.string(),
  storyPoints: z.number().nullable(),
  assigneeAgentId: z.string().nullable(),
  assigneeAgentName: z.string().nullable(),
  subAgentName: z.string().nullable(),
  updatedAt: z.string(),
}).openapi("SprintTicketRow");

export const CurrentSprint = z.object({
  sprint: z.object({
    id: z.string().uuid(),
    name: z.string(),
    number: z.number().int(),
    goal: z.string().nullable(),
    status: z.enum(SPRINT_STATUSES),
    startedAt: z.string().nullable().openapi({
      description: "The sprint's startDate (SPRINT-005): as planned, or the activation time when it had none",
    }),
    completedAt: z.string().nullable(),
  }),
  summary: z.object({
    total: z.number().int(),
    byStatus: z.record(z.string(), z.number().int()),
    completionPct: z.number().int(),
    agentProgress: z.array(z.object({
      agentId: z.string(),
      agentName: z.string(),
      inProgress: z.number().int(),
      inReview: z.number().int(),
      done: z.number().int(),
    })),
  }),
  tickets: z.array(SprintTicketRow).optional(),
}).openapi("CurrentSprint");

export const SprintListResponse = envelope(z.array(Sprint));
export const SprintDetailResponse = envelope(
  Sprint.extend({
    releaseNotes: ReleaseNotes.nullable().openapi({ description: "Stored at completion; null before" }),
  }).openapi("SprintDetail"),
);
export const SprintCreatedResponse = envelope(
  z.object({
    id: z.string().uuid(),
    number: z.number().int(),
    name: z.string(),
    status: z.literal("planning"),
    createdAt: z.string(),
  }).openapi("SprintCreated"),
);
export const SprintPatchResponse = envelope(SprintPatchResult);
export const SprintAssignResponse = envelope(SprintAssignResult);
export const CurrentSprintResponse = envelope(CurrentSprint);

/** GET /sprint/{sprintId}/plan (issue 24 point 6, an extension of the spec). */
export const SprintPlanTicket = z.object({
  key: z.string().openapi({ description: "`PREFIX-n`", example: "WEB-12" }),
  title: z.string(),
  priority: z.string().openapi({ description: "critical, high, normal or low (the order of the plan)" }),
  expectedFiles: z.array(z.string()),
}).openapi("SprintPlanTicket");

export const SprintPlan = z.object({
  waves: z.array(z.object({ tickets: z.array(SprintPlanTicket) })).openapi({
    description: "Waves in order; no two tickets of one wave have overlapping expected files",
  }),
  blockedByClaims: z.array(z.object({
    key: z.string(),
    files: z.array(z.string()).openapi({ description: "The ticket's expected files held now" }),
    holders: z.array(z.string()).openapi({
      description: "Their holders (`agentName` or `agentName/subAgentName`), sorted",
    }),
  })).openapi({
    description: "Tickets (also in their wave) whose expected files another agent holds now: not the " +
      "ticket's assignee, or for an unassigned ticket not you",
  }),
}).openapi("SprintPlan");

export const SprintPlanResponse = envelope(SprintPlan).openapi("SprintPlanResponse");
