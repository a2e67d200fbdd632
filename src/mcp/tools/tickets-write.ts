import { z } from "@hono/zod-openapi";
import {
  AcknowledgeBody,
  AcknowledgeResponse,
  BatchResponse,
  CreatedTicket,
  CreateTicketBody,
  CriterionInput,
  MAX_BATCH_TICKETS,
  RiskClassSchema,
  TicketIdParam,
} from "@/contracts/tickets.ts";
import { BeginBody, BeginResult, PatchedTicket, PatchTicketBody } from "@/contracts/workflow.ts";
import type { ToolDefinition } from "../types.ts";
import { ADDITIVE, callOf, fieldsOf, relay, updating } from "./shared.ts";
import { acknowledgeRoute, batchTicketsRoute, createTicketRoute } from "@/routes/tickets.ts";
import { beginRoute, patchTicketRoute } from "@/routes/workflow.ts";

/** MCP-050: the ticket types the tool offers (REST takes any string up to 50). */
export const TICKET_TYPES = ["feature", "bug", "chore", "refactor", "spike", "docs"] as const;
/** MCP-051: how a criterion's evidence is shown. */
export const EVIDENCE_KINDS = ["ledger", "pr", "screenshot", "log", "none"] as const;
const EVIDENCE_REQUIRED = EVIDENCE_KINDS.filter((kind) => kind !== "none");

const AckCriterion = AcknowledgeBody.shape.additionalCriteria.unwrap().element;

/** A criterion as the tool takes it (MCP-051). */
const ToolCriterion = z.object({
  title: CriterionInput.shape.title.unwrap(),
  description: AckCriterion.shape.description,
  evidence: z.enum(EVIDENCE_KINDS).describe(
    `How completion is shown: ${
      EVIDENCE_REQUIRED.join(", ")
    } (each means the criterion requires evidence) or ` +
      "none (no evidence required)",
  ),
});

const create = CreateTicketBody.shape;
const TicketCreateInput = z.object({
  ...fieldsOf(CreateTicketBody, "riskClass", "expectedFiles", "doneDefinition", "verificationCommand"),
  ...fieldsOf(CreateTicketBody, "sprintId", "tags"),
  title: create.title.max(100).describe("1 to 100 characters"),
  type: z.enum(TICKET_TYPES),
  description: create.description.unwrap().unwrap().min(1).describe("1 to 2000 characters"),
  acceptanceCriteria: z.array(ToolCriterion).min(1).max(20).describe(
    "1 to 20 criteria { title, description?, evidence }",
  ),
});
type TicketCreate = z.infer<typeof TicketCreateInput>;

/**
 * The REST body of a tool create. MCP-052 (design): `evidence` other than `none` means
 * `requiresEvidence: true`; the kind itself is kept on the criterion (`evidence`), which REST stores
 * and returns like any extra criterion key.
 */
export function createBody(input: TicketCreate): Record<string, unknown> {
  return {
    ...input,
    acceptanceCriteria: input.acceptanceCriteria.map((c) => ({
      title: c.title,
      ...(c.description !== undefined ? { description: c.description } : {}),
      requiresEvidence: c.evidence !== "none",
      evidence: c.evidence,
    })),
  };
}

const CREATE_FIELDS = `Required: \`title\` (up to 100), \`type\` (${TICKET_TYPES.join(", ")}), ` +
  `\`description\` (up to 2000), \`riskClass\` (${
    RiskClassSchema.options.join(", ")
  }), \`expectedFiles\` (1 to 50 ` +
  "repository paths), `acceptanceCriteria` (1 to 20, each { title, description?, evidence } with evidence " +
  `${EVIDENCE_REQUIRED.join(", ")} or none: every value but none sets requiresEvidence true, none false), ` +
  "`doneDefinition` (20 to 500), `verificationCommand` (10 to 500). Optional: `sprintId`, `tags` (up to 10).";

export const svcTicketCreate: ToolDefinition<typeof TicketCreateInput> = {
  name: "svc_ticket_create",
  title: "Create a ticket",
  description: `Creates a ticket in the backlog (POST /ticket). ${CREATE_FIELDS} The first ticket of a ` +
    "project needs a brief (422 BRIEF_REQUIRED: write it with svc_brief_update). Returns the ticket with " +
    "possibleDuplicates and nextAction.",
  input: TicketCreateInput,
  output: CreatedTicket,
  annotations: ADDITIVE,
  scope: "write",
  async run(args, forward) {
    return relay(await forward(callOf(createTicketRoute, { body: createBody(args) })));
  },
};

const BatchInput = z.object({
  tickets: z.array(TicketCreateInput).min(1).max(MAX_BATCH_TICKETS).describe(
    `1 to ${MAX_BATCH_TICKETS} tickets shaped like svc_ticket_create`,
  ),
});

export const svcTicketBatch: ToolDefinition<typeof BatchInput> = {
  name: "svc_ticket_batch",
  title: "Create tickets in a batch",
  description:
    `Creates 1 to ${MAX_BATCH_TICKETS} tickets (POST /ticket/batch), each shaped like svc_ticket_create's ` +
    "parameters and created on its own: a failing row is listed in `errors` (index, status, error) and " +
    "never stops the others. Result { created[], errors[], total }.",
  input: BatchInput,
  output: BatchResponse.shape.data,
  annotations: ADDITIVE,
  scope: "write",
  async run(args, forward) {
    return relay(
      await forward(callOf(batchTicketsRoute, { body: { tickets: args.tickets.map(createBody) } })),
    );
  },
};

const BeginInput = z.object({
  ...fieldsOf(BeginBody, "files", "acknowledgeCriteria"),
  // MCP-054: the internal id only, never the human key.
  ticketId: BeginBody.shape.ticketId.uuid().describe("The ticket's UUID (not its key)"),
});

export const svcTicketBegin: ToolDefinition<typeof BeginInput> = {
  name: "svc_ticket_begin",
  title: "Begin a ticket",
  description: "Starts work on a ticket in one step (POST /begin): claims `files` (1 to 20 paths) for it, " +
    "moves it to in_progress with you as assignee and links your session; returns `sessionId` (use it for " +
    "svc_ledger_add and svc_handoff). Generators only (403 otherwise). `acknowledgeCriteria: true` " +
    "acknowledges the acceptance criteria first. Failures carry what to do next: unacknowledged criteria " +
    "return them in details.acceptanceCriteria with details.nextStep (begin again with acknowledgeCriteria: " +
    "true); a ticket without criteria returns details.nextStep to call svc_ticket_acknowledge with " +
    "additionalCriteria; a file held by another agent is 409 CONFLICT with details.conflicts.",
  input: BeginInput,
  output: BeginResult,
  annotations: updating(false),
  scope: "write",
  async run(args, forward) {
    const body = {
      ticketId: args.ticketId,
      files: args.files,
      // MCP-055: sent only when true.
      ...(args.acknowledgeCriteria === true ? { acknowledgeCriteria: true } : {}),
    };
    return relay(await forward(callOf(beginRoute, { body })));
  },
};

const UpdateInput = z.object(
  fieldsOf(PatchTicketBody, "ticketId", "status", "priority", "assignToSelf", "unassign", "reviewHandoff"),
);

export const svcTicketUpdate: ToolDefinition<typeof UpdateInput> = {
  name: "svc_ticket_update",
  title: "Update a ticket",
  description:
    "Changes a ticket (PATCH /ticket): `ticketId` (UUID or key, required), `status` (a status of " +
    "the board, following its transitions), `priority` (critical, high, normal, low), `assignToSelf` or " +
    "`unassign`, and `reviewHandoff` { summary, changedFiles, branch, prUrl? } (needed to enter review). " +
    "Returns the updated ticket's id, ref, status and assignee.",
  input: UpdateInput,
  output: PatchedTicket,
  annotations: updating(false),
  scope: "write",
  async run(args, forward) {
    return relay(await forward(callOf(patchTicketRoute, { body: args })));
  },
};

const AcknowledgeInput = AcknowledgeBody.extend({ ticketId: TicketIdParam.shape.ticketId });

export const svcTicketAcknowledge: ToolDefinition<typeof AcknowledgeInput> = {
  name: "svc_ticket_acknowledge",
  title: "Acknowledge acceptance criteria",
  description: "Acknowledges a ticket's acceptance criteria (POST /ticket/{id}/acknowledge), which " +
    "svc_ticket_begin needs in medium and strict review modes. `ticketId` is the ticket's UUID. " +
    "`additionalCriteria` (up to 20, each { title 1 to 500, description? up to 2000, requiresEvidence }) " +
    "adds criteria first, marked manual; required when the ticket has none. Idempotent: a repeat changes " +
    "nothing and answers alreadyAcknowledged: true.",
  input: AcknowledgeInput,
  output: AcknowledgeResponse.shape.data,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  scope: "write",
  async run({ ticketId, ...body }, forward) {
    return relay(
      await forward(callOf(acknowledgeRoute, { params: { ticketId }, body })),
    );
  },
};
