import { acquireClaims } from "@/domain/claims/acquire.ts";
import { lockProjectClaims } from "@/domain/core/claim-lock.ts";
import { refuseQueued } from "@/domain/claims/wait.ts";
import type { Trx } from "@/db/database.ts";
import { recordEvent } from "@/domain/core/record-event.ts";
import { writeSystemEntry } from "@/domain/core/system-entry.ts";
import { workSessionOf } from "@/domain/sessions/oauth.ts";
import { type Actor, actorDisplayName } from "@/domain/core/actor.ts";
import type { ActorCtx } from "@/domain/core/context.ts";
import { type BeginInput, type BeginPlan, beginResponse, planBegin } from "./begin-plan.ts";
import { assertNotHumanOnly, heldByAnother, relationOf } from "./permissions.ts";
import { resolveTicketRef } from "@/domain/core/ticket-refs.ts";
import type { TicketRow } from "@/domain/core/ticket-serialize.ts";
import { loadProject } from "./ticket-context.ts";
import { moveStatus, observedConflict } from "@/domain/core/workflow.ts";

export type { BeginInput } from "./begin-plan.ts";

/**
 * POST /begin (design: TKT-187): in ONE transaction, acknowledges the criteria when asked, claims the
 * files for the ticket (409 CONFLICT with details.conflicts when another identity holds one), moves the
 * ticket to `in_progress` with the caller as assignee (compare-and-swap on the status read), and links
 * the caller's session to the ticket. Any refusal rolls everything back. Begin starts a ticket from any
 * open status (a ticket already in progress and unassigned or the caller's is re-begun: claims renewed
 * or added, session linked, no status write).
 */
export async function beginTicket(ctx: ActorCtx, input: BeginInput) {
  const { actor } = ctx;
  const now = ctx.clock.now();
  return await ctx.db.transaction().execute(async (trx) => {
    // The claim lock first, before any lock a claim write also takes (the event counter's).
    await lockProjectClaims(trx, actor.projectId);
    const { ticket, project } = await loadBeginTarget(trx, actor, input.ticketId);
    const plan = planBegin(actor, ticket, project, input, now);
    // An OAuth caller has no token session: begin opens (or reuses) its work session.
    const sessionId = await workSessionOf(trx, actor, now);
    const acquire = {
      projectId: actor.projectId,
      agentId: actor.agentId,
      agentName: actor.agentName,
      subAgentName: actor.subAgentName,
      sessionId,
      ticketId: ticket.id,
      files: input.files,
      ...(input.estimatedSeconds !== undefined ? { estimatedSeconds: input.estimatedSeconds } : {}),
      now,
    };
    // Fair order (issue 24): files other agents wait for go to them first (409 CONFLICT, details.queue).
    await refuseQueued(trx, acquire);
    const claimed = await acquireClaims(trx, acquire);
    await writeBegin(trx, { actor, ticket, plan, files: input.files, sessionId, now });
    return beginResponse(ticket, plan, sessionId, claimed.claims);
  });
}

/** The ticket and its project; refuses a human-only ticket, then one held by another identity. */
async function loadBeginTarget(trx: Trx, actor: Actor, ref: string) {
  const ticketId = await resolveTicketRef(trx, actor.projectId, ref);
  const ticket = await trx.selectFrom("tickets").selectAll().where("id", "=", ticketId)
    .executeTakeFirstOrThrow();
  const project = await loadProject(trx, actor.projectId);
  assertNotHumanOnly(ticket);
  if (ticket.assignee_agent_id !== null && !relationOf(actor, ticket).assignee) {
    const holder = await trx.selectFrom("agents").select("name").where("id", "=", ticket.assignee_agent_id)
      .executeTakeFirst();
    throw heldByAnother(ticket, holder?.name ?? null);
  }
  return { ticket, project };
}

interface BeginWrite {
  actor: Actor;
  ticket: TicketRow;
  plan: BeginPlan;
  files: string[];
  sessionId: string | null;
  now: Date;
}

/** The move (or the re-begin update, compare-and-swap alike), the session link, the ledger and event rows. */
async function writeBegin(trx: Trx, w: BeginWrite): Promise<void> {
  const { actor, ticket, plan, sessionId, now } = w;
  if (plan.moving) {
    await moveStatus(trx, {
      projectId: actor.projectId,
      ticketId: ticket.id,
      number: ticket.number,
      from: ticket.status,
      to: "in_progress",
      now,
      agentId: actor.agentId,
      set: plan.set,
      expectAssignee: ticket.assignee_agent_id,
      eventData: { action: "begin", ticketRef: plan.ref, files: w.files },
    });
  } else {
    const row = await trx.updateTable("tickets").set({ ...plan.set, updated_at: now })
      .where("id", "=", ticket.id).where("status", "=", ticket.status)
      .where("assignee_agent_id", "is not distinct from", ticket.assignee_agent_id).returning("id")
      .executeTakeFirst();
    if (!row) throw await observedConflict(trx, ticket.id, ticket.status, ticket.assignee_agent_id);
  }
  if (sessionId) {
    await trx.updateTable("sessions").set({ ticket_id: ticket.id }).where("id", "=", sessionId)
      .where("agent_id", "=", actor.agentId).execute();
  }
  if (ticket.assignee_agent_id === null) {
    await writeSystemEntry(trx, {
      projectId: actor.projectId,
      type: "AGENT_ASSIGNED",
      content: `${actorDisplayName(actor)} began ${plan.ref}`,
      agentId: actor.agentId,
      subAgentName: actor.subAgentName,
      sessionId,
      ticketId: ticket.id,
      payload: { via: "begin", files: w.files },
      now,
    });
  }
  if (plan.acknowledging) {
    await recordEvent(trx, {
      projectId: actor.projectId,
      kind: "ticket.updated",
      entityType: "ticket",
      entityId: ticket.id,
      agentId: actor.agentId,
      data: { number: ticket.number, fields: ["criteriaAcknowledgedAt"], via: "begin" },
      now,
    });
  }
}
