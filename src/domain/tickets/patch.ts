import type { UpdateObject } from "kysely";
import type { PatchTicketInput } from "@/contracts/workflow.ts";
import type { Database, Trx } from "@/db/database.ts";
import { toJson } from "@/db/tables/types.ts";
import { releaseClaims } from "@/domain/claims/release.ts";
import { recordEvent } from "@/domain/events/record.ts";
import type { Actor } from "@/domain/shared/actor.ts";
import type { ActorCtx } from "@/domain/shared/context.ts";
import { fail } from "@/domain/shared/errors.ts";
import {
  assertNotHumanOnly,
  checkReviewerDesignation,
  heldByAnother,
  notYours,
  orchestratorCannotClaim,
  relationOf,
} from "./permissions.ts";
import { resolveTicketRef } from "./refs.ts";
import { type TicketRow, withPriority } from "./serialize.ts";
import { loadProject, reviewEntry } from "./ticket-context.ts";
import {
  actionTarget,
  checkCriteria,
  checkDirectDone,
  checkReviewHandoff,
  checkStatusWrite,
  checkTested,
  checkTransition,
  planAction,
  type ReviewHandoff,
  type TicketAction,
} from "./transitions.ts";
import {
  appendReviewHistory,
  boardColumns,
  isReviewerStatus,
  isReviewStatus,
  isTerminal,
  moveStatus,
  observedConflict,
  REVIEWER_TARGETS,
  statusConflictError,
  unknownStatusError,
} from "./workflow.ts";

/** Body fields that count as "a field" (ticketId and expectedStatus do not; false flags are no-ops). */
function changedFields(input: PatchTicketInput): string[] {
  const out: string[] = [];
  for (const [key, value] of Object.entries(input)) {
    if (key === "ticketId" || key === "expectedStatus" || value === undefined) continue;
    if ((key === "assignToSelf" || key === "unassign" || key === "acceptSuggestions") && value !== true) {
      continue;
    }
    out.push(key);
  }
  return out;
}

const TITLE_FIELDS = ["title", "description"];
const MOVE_FIELDS = ["action", "status"];

/** The PATCH /ticket response. */
export function patchedTicket(row: TicketRow, prefix: string) {
  return {
    id: row.id,
    number: row.number,
    ticketRef: `${prefix}-${row.number}`,
    status: row.status,
    title: row.title,
    description: row.description,
    assigneeAgentId: row.assignee_agent_id,
    reviewerAgentId: row.reviewer_agent_id,
    updatedAt: row.updated_at.toISOString(),
  };
}

/**
 * PATCH /ticket: field edits, assignment and one status move (an action wins over status), all in one
 * conditional UPDATE on the status read at the start (guard 6). Guards run in this order: human-only,
 * orchestrator claim, assignment conflict, permissions, guard 7, guard 1 (unknown status, terminal,
 * already there), guard 4, guard 1 (transition), guard 3, guard 5, review handoff.
 */
export async function patchTicket(ctx: ActorCtx, input: PatchTicketInput) {
  const { actor } = ctx;
  const fields = changedFields(input);
  if (fields.length === 0) {
    throw fail.validation("Send at least one field to change besides ticketId", {
      fields: [{ path: "(root)", message: "No field to change", code: "custom" }],
    });
  }
  const now = ctx.clock.now();
  return await ctx.db.transaction().execute(async (trx) => {
    const ticketId = await resolveTicketRef(trx, actor.projectId, input.ticketId);
    const ticket = await trx.selectFrom("tickets").selectAll().where("id", "=", ticketId)
      .executeTakeFirstOrThrow();
    const project = await loadProject(trx, actor.projectId);
    const { settings, mode } = project;
    if (input.expectedStatus !== undefined && input.expectedStatus !== ticket.status) {
      throw statusConflictError(ticket.id, input.expectedStatus, ticket.status);
    }
    assertNotHumanOnly(ticket);
    const rel = relationOf(actor, ticket);

    const claiming = input.action === "claim" || input.assignToSelf === true;
    if (claiming && rel.orchestrator) throw orchestratorCannotClaim();
    if (claiming && ticket.assignee_agent_id !== null && !rel.assignee) {
      const holder = await trx.selectFrom("agents").select("name").where("id", "=", ticket.assignee_agent_id)
        .executeTakeFirst();
      throw heldByAnother(ticket, holder?.name ?? null);
    }
    const actsAsAssignee = rel.assignee || claiming;
    const unassigning = input.unassign === true || input.action === "release";

    // Which status move, if any (guard 1 first half: the status exists, the ticket is not terminal).
    // Permission first (on the move's target), then the state-dependent checks of guard 1.
    const action: TicketAction | undefined = input.action;
    if (!action && input.status !== undefined && !boardColumns(settings).includes(input.status)) {
      throw unknownStatusError(settings, input.status);
    }
    const target = action ? actionTarget(settings, action) : input.status ?? null;
    assertMayChange(actor, ticket, { fields, to: target, actsAsAssignee, unassigning });
    let to: string | null = null;
    // release of an assigned backlog ticket, or claim of an unassigned claimed one, only (un)assigns.
    const assignOnly =
      (action === "release" && ticket.status === "backlog" && ticket.assignee_agent_id !== null) ||
      (action === "claim" && ticket.status === "claimed" && ticket.assignee_agent_id === null);
    if (action && !assignOnly) to = planAction(settings, action, ticket.status, ticket.id).to;
    else if (input.status !== undefined) {
      checkStatusWrite(settings, ticket.id, ticket.status, input.status);
      to = input.status;
    }

    if (ticket.status === "done" && (input.title !== undefined || input.description !== undefined)) {
      throw fail.unprocessable("A done ticket's title and description cannot be edited (guard 7)", {
        status: "done",
        fields: TITLE_FIELDS.filter((f) => f in input && input[f as keyof PatchTicketInput] !== undefined),
      });
    }

    const storedHandoff = (ticket.review_handoff ?? null) as ReviewHandoff | null;
    const handoff: ReviewHandoff | null = input.reviewHandoff
      ? { ...(storedHandoff ?? {}), ...definedOnly(input.reviewHandoff) }
      : storedHandoff;
    if (to !== null) {
      if (!action || action === "approve") checkDirectDone(mode, ticket, to);
      if (!action) checkTransition(settings, ticket.status, to);
      checkCriteria(mode, ticket, to);
      await checkTested(trx, mode, ticket, to);
      checkReviewHandoff(ticket, to, handoff);
    }

    const set = await buildSet(trx, ctx, ticket, input, { claiming, unassigning, handoff });
    const entering = to !== null && isReviewStatus(to) && !isReviewStatus(ticket.status);
    if (to !== null) {
      if (isReviewStatus(ticket.status) && !isReviewStatus(to) && to !== "done" && !input.reviewHandoff) {
        set.review_handoff = null;
      }
      const event = reviewEvent(ticket.status, to);
      if (event) {
        set.review_history = appendReviewHistory(
          reviewEntry(actor, event, ticket.status, to, now, event === "submitted" ? { handoff } : {}),
        );
      }
    }

    const row = to !== null
      ? await moveStatus(trx, {
        projectId: actor.projectId,
        ticketId: ticket.id,
        from: ticket.status,
        to,
        now,
        agentId: actor.agentId,
        set,
        expectAssignee: ticket.assignee_agent_id,
        eventData: { ...(action ? { action } : {}), ticketRef: `${project.prefix}-${ticket.number}` },
      })
      : await updateFields(trx, ticket, set, now);

    const edited = fields.filter((f) => !MOVE_FIELDS.includes(f));
    if (edited.length > 0) {
      await recordEvent(trx, {
        projectId: actor.projectId,
        kind: "ticket.updated",
        entityType: "ticket",
        entityId: ticket.id,
        agentId: actor.agentId,
        data: { number: ticket.number, fields: edited, assigneeAgentId: row.assignee_agent_id },
        now,
      });
    }
    if (to !== null && isTerminal(to)) {
      await releaseClaims(trx, {
        projectId: actor.projectId,
        agentId: actor.agentId,
        ticketId: ticket.id,
        anyHolder: true,
        sessionId: actor.sessionId,
        now,
      });
    } else if (entering) {
      await releaseClaims(trx, {
        projectId: actor.projectId,
        agentId: actor.agentId,
        subAgentName: actor.subAgentName,
        ticketId: ticket.id,
        sessionId: actor.sessionId,
        now,
      });
    }
    return patchedTicket(row, project.prefix);
  });
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function reviewEvent(from: string, to: string): "submitted" | "changes_requested" | "approved" | null {
  if (isReviewStatus(to) && !isReviewStatus(from)) return "submitted";
  if (isReviewStatus(from) && to === "done") return "approved";
  if (isReviewStatus(from) && (to === "changes_requested" || to === "in_progress")) {
    return "changes_requested";
  }
  return null;
}

/**
 * Permission rules of PATCH /ticket: orchestrators change anything; the assignee (or an agent claiming an
 * unassigned ticket) changes their ticket; the designated reviewer moves it out of review (to done,
 * changes_requested or in_progress); the creator may edit title and description; nobody else anything.
 */
function assertMayChange(
  actor: Actor,
  ticket: TicketRow,
  p: { fields: string[]; to: string | null; actsAsAssignee: boolean; unassigning: boolean },
): void {
  const rel = relationOf(actor, ticket);
  if (rel.orchestrator) return;
  if (p.unassigning && !rel.assignee) throw notYours(ticket, actor, "unassign or release this ticket");
  if (p.actsAsAssignee) return;
  for (const field of p.fields) {
    if (MOVE_FIELDS.includes(field)) {
      const reviewerMove = rel.reviewer && isReviewerStatus(ticket.status) && p.to !== null &&
        (REVIEWER_TARGETS as readonly string[]).includes(p.to);
      if (!reviewerMove) {
        throw notYours(
          ticket,
          actor,
          rel.reviewer ? "move this ticket (a reviewer moves it only out of review)" : "move this ticket",
        );
      }
    } else if (TITLE_FIELDS.includes(field)) {
      if (!rel.creator) {
        throw fail.forbidden(
          "Only the assignee, the creator or an orchestrator may edit title or description",
          {
            field,
            assigneeAgentId: ticket.assignee_agent_id,
            createdByAgentId: ticket.created_by_agent_id,
          },
        );
      }
    } else if (field === "reviewerAgentId") {
      throw fail.forbidden("Only the assignee or an orchestrator may set reviewerAgentId", {
        field,
        assigneeAgentId: ticket.assignee_agent_id,
      });
    } else if (field !== "reviewHandoff" || !rel.reviewer) {
      throw notYours(ticket, actor, `change ${field}`);
    }
  }
}

async function buildSet(
  trx: Trx,
  ctx: ActorCtx,
  ticket: TicketRow,
  input: PatchTicketInput,
  p: { claiming: boolean; unassigning: boolean; handoff: ReviewHandoff | null },
): Promise<UpdateObject<Database, "tickets">> {
  const set: UpdateObject<Database, "tickets"> = {};
  const clearable = (v: string | null | undefined) => v === undefined ? undefined : v === "" ? null : v;
  if (input.title !== undefined) set.title = input.title;
  if (input.description !== undefined) set.description = clearable(input.description);
  if (input.priority !== undefined) set.tags = toJson(withPriority(ticket.tags, input.priority));
  if (input.branch !== undefined) set.branch = input.branch;
  if (input.doneDefinition !== undefined) set.done_definition = clearable(input.doneDefinition);
  if (input.verificationCommand !== undefined) {
    set.verification_command = clearable(input.verificationCommand);
  }
  if (input.outOfScope !== undefined) set.out_of_scope = clearable(input.outOfScope);
  if (input.riskClass !== undefined) set.risk_class = input.riskClass;
  if (input.noArtifact !== undefined) set.no_artifact = input.noArtifact;
  if (input.noArtifactReason !== undefined) set.no_artifact_reason = clearable(input.noArtifactReason);
  if (input.acceptSuggestions === true) Object.assign(set, suggestions(ticket, input));
  if (input.reviewHandoff) set.review_handoff = toJson(p.handoff);
  if (p.claiming) {
    set.assignee_agent_id = ctx.actor.agentId;
    set.sub_agent_name = ctx.actor.subAgentName;
  }
  if (p.unassigning) {
    set.assignee_agent_id = null;
    set.sub_agent_name = null;
  }
  if (input.reviewerAgentId !== undefined) {
    if (input.reviewerAgentId !== null) {
      const assigneeAfter = p.claiming ? ctx.actor.agentId : p.unassigning ? null : ticket.assignee_agent_id;
      await checkReviewerDesignation(
        trx,
        { ...ticket, risk_class: input.riskClass ?? ticket.risk_class },
        input.reviewerAgentId.toLowerCase(),
        assigneeAfter,
      );
    }
    set.reviewer_agent_id = input.reviewerAgentId?.toLowerCase() ?? null;
  }
  return set;
}

/**
 * acceptSuggestions (design: TKT-158): fills the agent-first fields the ticket lacks, never overwriting
 * a stored value or a field sent in the same body.
 */
function suggestions(ticket: TicketRow, input: PatchTicketInput): UpdateObject<Database, "tickets"> {
  const out: UpdateObject<Database, "tickets"> = {};
  if (!ticket.done_definition && input.doneDefinition === undefined) {
    const criteria = ticket.acceptance_criteria.map((c) => String(c.title ?? c.text ?? "")).filter(Boolean);
    const text = criteria.length > 0
      ? `"${ticket.title}" is done when: ${criteria.join("; ")}`
      : `"${ticket.title}" works as described and its checks pass`;
    out.done_definition = text.slice(0, 500);
  }
  if (!ticket.verification_command && input.verificationCommand === undefined) {
    out.verification_command = "n/a";
  }
  if (!ticket.risk_class && input.riskClass === undefined) out.risk_class = "local";
  return out;
}

/** A field-only write, still conditional on the status and assignee read at the start (guard 6). */
async function updateFields(
  trx: Trx,
  ticket: TicketRow,
  set: UpdateObject<Database, "tickets">,
  now: Date,
): Promise<TicketRow> {
  const row = await trx.updateTable("tickets").set({ ...set, updated_at: now })
    .where("id", "=", ticket.id).where("status", "=", ticket.status)
    .where("assignee_agent_id", "is not distinct from", ticket.assignee_agent_id)
    .returningAll().executeTakeFirst();
  if (!row) throw await observedConflict(trx, ticket.id, ticket.status, ticket.assignee_agent_id);
  return row;
}
