import type { UpdateObject } from "kysely";
import { lockProjectClaims } from "@/domain/core/claim-lock.ts";
import type { PatchTicketInput } from "@/contracts/workflow.ts";
import type { Database, DbOrTrx, Trx } from "@/db/database.ts";
import { toJson } from "@/db/tables/types.ts";
import { releaseClaims } from "@/domain/claims/release.ts";
import { recordEvent } from "@/domain/core/record-event.ts";
import type { Actor } from "@/domain/core/actor.ts";
import type { ActorCtx } from "@/domain/core/context.ts";
import { fail } from "@/domain/core/errors.ts";
import {
  changedFields,
  decideMove,
  mergedHandoff,
  MOVE_FIELDS,
  reviewColumns,
  suggestions,
} from "./patch-plan.ts";
import {
  assertNotHumanOnly,
  checkReviewerDesignation,
  heldByAnother,
  orchestratorCannotClaim,
  relationOf,
} from "./permissions.ts";
import { type TicketRow, withPriority } from "@/domain/core/ticket-serialize.ts";
import { loadTicketTarget, type TicketTarget } from "./ticket-context.ts";
import {
  assertTested,
  checkCriteria,
  checkDirectDone,
  checkReviewHandoff,
  checkTransition,
  type ReviewHandoff,
  type TicketAction,
} from "@/domain/core/transitions.ts";
import {
  isReviewStatus,
  isTerminal,
  moveStatus,
  observedConflict,
  statusConflictError,
} from "@/domain/core/workflow.ts";

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
 * PATCH /ticket: field edits, assignment and one status move (an action wins over status), in one
 * conditional UPDATE on the status read at the start (guard 6). Load (one statement), decide, write: a
 * move that writes nothing else is one statement (the update and its event); edits and claim releases
 * join it in one transaction. Reads need no transaction: the write is conditional on what they saw.
 */
export async function patchTicket(ctx: ActorCtx, input: PatchTicketInput) {
  const fields = changedFields(input);
  if (fields.length === 0) {
    throw fail.validation("Send at least one field to change besides ticketId", {
      fields: [{ path: "(root)", message: "No field to change", code: "custom" }],
    });
  }
  const now = ctx.clock.now();
  const target = await loadTicketTarget(ctx.db, ctx.actor.projectId, input.ticketId);
  const plan = await planPatch(ctx, target, input, fields, now);
  const row = plan.edited.length === 0 && plan.release === null
    ? await writeTicket(ctx.db, ctx.actor, target, plan, now)
    : await ctx.db.transaction().execute(async (trx) => {
      // A release of claims grants waiters: take the claim lock first (one lock order with the queue).
      if (plan.release !== null) await lockProjectClaims(trx, ctx.actor.projectId);
      const row = await writeTicket(trx, ctx.actor, target, plan, now);
      await writeAfter(trx, ctx.actor, target.ticket, plan, row, now);
      return row;
    });
  return patchedTicket(row, target.project.prefix);
}

/** What a PATCH writes, decided from what was read. */
interface PatchWrite {
  action: TicketAction | undefined;
  to: string | null;
  set: UpdateObject<Database, "tickets">;
  /** The fields edited besides the move (a `ticket.updated` event names them). */
  edited: string[];
  /** The claims a move releases: every claim on the ticket, the caller's own on it, or none. */
  release: "all" | "own" | null;
}

/**
 * The checks, in this order: human-only, orchestrator claim, assignment conflict, permissions, guard 7,
 * guard 1 (unknown status, terminal, already there), guard 4, guard 1 (transition), guard 3, guard 5,
 * review handoff. Reads only a designated reviewer (when one is sent).
 */
async function planPatch(
  ctx: ActorCtx,
  target: TicketTarget,
  input: PatchTicketInput,
  fields: string[],
  now: Date,
): Promise<PatchWrite> {
  const { actor } = ctx;
  const { ticket, project: { settings, mode } } = target;
  if (input.expectedStatus !== undefined && input.expectedStatus !== ticket.status) {
    throw statusConflictError(ticket.id, input.expectedStatus, ticket.status);
  }
  assertNotHumanOnly(ticket);
  assertMayClaim(actor, target, input.action === "claim" || input.assignToSelf === true);
  const move = decideMove(actor, ticket, settings, input, fields);
  const { action, to } = move;
  const handoff = mergedHandoff(ticket, input);
  if (to !== null) {
    if (!action || action === "approve") checkDirectDone(mode, ticket, to);
    if (!action) checkTransition(settings, ticket.status, to);
    checkCriteria(mode, ticket, to);
    assertTested(mode, ticket, to, target.tested);
    checkReviewHandoff(ticket, to, handoff);
  }
  const set = await buildSet(ctx, ticket, input, { ...move, handoff });
  if (to !== null) Object.assign(set, reviewColumns(actor, ticket.status, to, input, handoff, now));
  const edited = fields.filter((f) => !MOVE_FIELDS.includes(f));
  return { action, to, set, edited, release: to === null ? null : releaseOnMove(ticket.status, to) };
}

/** The ticket's conditional write: the move with its event, or the field update. */
async function writeTicket(db: DbOrTrx, actor: Actor, target: TicketTarget, plan: PatchWrite, now: Date) {
  const { ticket, project } = target;
  if (plan.to === null) return await updateFields(db, ticket, plan.set, now);
  return await moveStatus(db, {
    projectId: actor.projectId,
    ticketId: ticket.id,
    number: ticket.number,
    from: ticket.status,
    to: plan.to,
    now,
    agentId: actor.agentId,
    set: plan.set,
    expectAssignee: ticket.assignee_agent_id,
    eventData: {
      ...(plan.action ? { action: plan.action } : {}),
      ticketRef: `${project.prefix}-${ticket.number}`,
    },
  });
}

/** The `ticket.updated` event of edited fields, and the claims the move releases. */
async function writeAfter(
  trx: Trx,
  actor: Actor,
  ticket: TicketRow,
  plan: PatchWrite,
  row: TicketRow,
  now: Date,
) {
  if (plan.edited.length > 0) {
    await recordEvent(trx, {
      projectId: actor.projectId,
      kind: "ticket.updated",
      entityType: "ticket",
      entityId: ticket.id,
      agentId: actor.agentId,
      data: { number: ticket.number, fields: plan.edited, assigneeAgentId: row.assignee_agent_id },
      now,
    });
  }
  if (plan.release === null) return;
  const at = {
    projectId: actor.projectId,
    agentId: actor.agentId,
    ticketId: ticket.id,
    sessionId: actor.sessionId,
    now,
  };
  if (plan.release === "all") await releaseClaims(trx, { ...at, anyHolder: true });
  else await releaseClaims(trx, { ...at, subAgentName: actor.subAgentName });
}

/** An orchestrator never claims; a ticket assigned to someone else is not claimed from them. */
function assertMayClaim(actor: Actor, target: TicketTarget, claiming: boolean): void {
  if (!claiming) return;
  const { ticket } = target;
  const rel = relationOf(actor, ticket);
  if (rel.orchestrator) throw orchestratorCannotClaim();
  if (ticket.assignee_agent_id !== null && !rel.assignee) throw heldByAnother(ticket, target.assigneeName);
}

/**
 * A terminal move releases every claim on the ticket; entering review releases the caller's own claims on
 * it (the reviewer works from the review handoff).
 */
function releaseOnMove(from: string, to: string): PatchWrite["release"] {
  if (isTerminal(to)) return "all";
  if (isReviewStatus(to) && !isReviewStatus(from)) return "own";
  return null;
}

async function buildSet(
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
        ctx.db,
        { ...ticket, risk_class: input.riskClass ?? ticket.risk_class },
        input.reviewerAgentId.toLowerCase(),
        assigneeAfter,
      );
    }
    set.reviewer_agent_id = input.reviewerAgentId?.toLowerCase() ?? null;
  }
  return set;
}

/** A field-only write, still conditional on the status and assignee read at the start (guard 6). */
async function updateFields(
  trx: DbOrTrx,
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
