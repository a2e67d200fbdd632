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
import { resolveTicketRef } from "./refs.ts";
import { type TicketRow, withPriority } from "./serialize.ts";
import { loadProject } from "./ticket-context.ts";
import {
  checkCriteria,
  checkDirectDone,
  checkReviewHandoff,
  checkTested,
  checkTransition,
  type ReviewHandoff,
} from "./transitions.ts";
import { isReviewStatus, isTerminal, moveStatus, observedConflict, statusConflictError } from "./workflow.ts";

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
 * conditional UPDATE on the status read at the start (guard 6), in one transaction with its reads.
 */
export async function patchTicket(ctx: ActorCtx, input: PatchTicketInput) {
  const fields = changedFields(input);
  if (fields.length === 0) {
    throw fail.validation("Send at least one field to change besides ticketId", {
      fields: [{ path: "(root)", message: "No field to change", code: "custom" }],
    });
  }
  const now = ctx.clock.now();
  return await ctx.db.transaction().execute((trx) => patchIn(trx, ctx, input, fields, now));
}

/**
 * The PATCH inside its transaction. Guards run in this order: human-only, orchestrator claim, assignment
 * conflict, permissions, guard 7, guard 1 (unknown status, terminal, already there), guard 4, guard 1
 * (transition), guard 3, guard 5, review handoff.
 */
async function patchIn(trx: Trx, ctx: ActorCtx, input: PatchTicketInput, fields: string[], now: Date) {
  const { actor } = ctx;
  const ticketId = await resolveTicketRef(trx, actor.projectId, input.ticketId);
  const ticket = await trx.selectFrom("tickets").selectAll().where("id", "=", ticketId)
    .executeTakeFirstOrThrow();
  const project = await loadProject(trx, actor.projectId);
  const { settings, mode } = project;
  if (input.expectedStatus !== undefined && input.expectedStatus !== ticket.status) {
    throw statusConflictError(ticket.id, input.expectedStatus, ticket.status);
  }
  assertNotHumanOnly(ticket);
  await assertMayClaim(trx, actor, ticket, input.action === "claim" || input.assignToSelf === true);
  const move = decideMove(actor, ticket, settings, input, fields);
  const { action, to } = move;
  const handoff = mergedHandoff(ticket, input);
  if (to !== null) {
    if (!action || action === "approve") checkDirectDone(mode, ticket, to);
    if (!action) checkTransition(settings, ticket.status, to);
    checkCriteria(mode, ticket, to);
    await checkTested(trx, mode, ticket, to);
    checkReviewHandoff(ticket, to, handoff);
  }

  const set = await buildSet(trx, ctx, ticket, input, { ...move, handoff });
  if (to !== null) Object.assign(set, reviewColumns(actor, ticket.status, to, input, handoff, now));
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
  if (to !== null) await releaseAfterMove(trx, actor, ticket, to, now);
  return patchedTicket(row, project.prefix);
}

/** An orchestrator never claims; a ticket assigned to someone else is not claimed from them. */
async function assertMayClaim(trx: Trx, actor: Actor, ticket: TicketRow, claiming: boolean): Promise<void> {
  if (!claiming) return;
  const rel = relationOf(actor, ticket);
  if (rel.orchestrator) throw orchestratorCannotClaim();
  if (ticket.assignee_agent_id !== null && !rel.assignee) {
    const holder = await trx.selectFrom("agents").select("name").where("id", "=", ticket.assignee_agent_id)
      .executeTakeFirst();
    throw heldByAnother(ticket, holder?.name ?? null);
  }
}

/**
 * A terminal move releases every claim on the ticket; entering review releases the caller's own claims on
 * it (the reviewer works from the review handoff).
 */
async function releaseAfterMove(trx: Trx, actor: Actor, ticket: TicketRow, to: string, now: Date) {
  const at = {
    projectId: actor.projectId,
    agentId: actor.agentId,
    ticketId: ticket.id,
    sessionId: actor.sessionId,
    now,
  };
  if (isTerminal(to)) {
    await releaseClaims(trx, { ...at, anyHolder: true });
  } else if (isReviewStatus(to) && !isReviewStatus(ticket.status)) {
    await releaseClaims(trx, { ...at, subAgentName: actor.subAgentName });
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
