import { acquireClaims } from "@/domain/claims/acquire.ts";
import { recordEvent } from "@/domain/events/record.ts";
import { writeSystemEntry } from "@/domain/ledger/system-entry.ts";
import { workSessionOf } from "@/domain/sessions/oauth.ts";
import { actorDisplayName } from "@/domain/shared/actor.ts";
import type { ActorCtx } from "@/domain/shared/context.ts";
import { DomainError, recovery } from "@/domain/shared/errors.ts";
import { assertNotHumanOnly, heldByAnother, relationOf } from "./permissions.ts";
import { resolveTicketRef } from "./refs.ts";
import { loadProject } from "./ticket-context.ts";
import { checkCriteria } from "./transitions.ts";
import {
  boardColumns,
  invalidTransitionError,
  isReviewStatus,
  isTerminal,
  moveStatus,
  observedConflict,
} from "./workflow.ts";

export interface BeginInput {
  ticketId: string;
  files: string[];
  acknowledgeCriteria?: boolean | undefined;
  estimatedSeconds?: number | undefined;
}

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
    const ticketId = await resolveTicketRef(trx, actor.projectId, input.ticketId);
    const ticket = await trx.selectFrom("tickets").selectAll().where("id", "=", ticketId)
      .executeTakeFirstOrThrow();
    const project = await loadProject(trx, actor.projectId);
    const ref = `${project.prefix}-${ticket.number}`;
    assertNotHumanOnly(ticket);
    if (ticket.assignee_agent_id !== null && !relationOf(actor, ticket).assignee) {
      const holder = await trx.selectFrom("agents").select("name").where("id", "=", ticket.assignee_agent_id)
        .executeTakeFirst();
      throw heldByAnother(ticket, holder?.name ?? null);
    }
    if (isTerminal(ticket.status)) {
      throw invalidTransitionError(project.settings, ticket.status, "in_progress");
    }
    if (!boardColumns(project.settings).includes("in_progress")) {
      throw new DomainError(
        "unprocessable",
        "INVALID_TRANSITION",
        "This board has no in_progress column to begin into",
        {
          from: ticket.status,
          to: "in_progress",
          validTransitions: [],
          recovery: recovery(
            "USE_VALID_TRANSITION",
            "PATCH /ticket",
            "Move the ticket with PATCH /ticket",
            null,
          ),
        },
      );
    }
    const moving = ticket.status !== "in_progress";
    const criteria = ticket.acceptance_criteria;
    const acknowledging = input.acknowledgeCriteria === true && criteria.length > 0 &&
      ticket.criteria_acknowledged_at === null;
    if (moving) {
      checkCriteria(
        project.mode,
        { ...ticket, criteria_acknowledged_at: acknowledging ? now : ticket.criteria_acknowledged_at },
        "in_progress",
        {
          none: {
            nextStep: {
              action: "ADD_CRITERIA",
              endpoint: `POST /ticket/${ticket.id}/acknowledge`,
              tool: "svc_ticket_acknowledge",
              message:
                "The ticket has no acceptance criteria: acknowledge it with additionalCriteria, then begin again",
              payload: {
                ticketId: ticket.id,
                additionalCriteria: [{ title: "<checkable criterion>", requiresEvidence: false }],
              },
            },
          },
          unacknowledged: {
            acceptanceCriteria: criteria,
            nextStep: {
              action: "ACKNOWLEDGE_CRITERIA",
              endpoint: "POST /begin",
              tool: "svc_ticket_begin",
              message: "Read the acceptance criteria above and begin again with acknowledgeCriteria: true",
              payload: { ticketId: input.ticketId, files: input.files, acknowledgeCriteria: true },
            },
          },
        },
      );
    }

    // An OAuth caller has no token session: begin opens (or reuses) its work session.
    const sessionId = await workSessionOf(trx, actor, now);
    const claimed = await acquireClaims(trx, {
      projectId: actor.projectId,
      agentId: actor.agentId,
      agentName: actor.agentName,
      subAgentName: actor.subAgentName,
      sessionId,
      ticketId: ticket.id,
      files: input.files,
      ...(input.estimatedSeconds !== undefined ? { estimatedSeconds: input.estimatedSeconds } : {}),
      now,
    });

    const set = {
      assignee_agent_id: actor.agentId,
      sub_agent_name: actor.subAgentName,
      ...(acknowledging ? { criteria_acknowledged_at: now } : {}),
      // Back to work from review: the submitted handoff is stale (reviewHistory keeps it).
      ...(isReviewStatus(ticket.status) ? { review_handoff: null } : {}),
    };
    if (moving) {
      await moveStatus(trx, {
        projectId: actor.projectId,
        ticketId: ticket.id,
        from: ticket.status,
        to: "in_progress",
        now,
        agentId: actor.agentId,
        set,
        expectAssignee: ticket.assignee_agent_id,
        eventData: { action: "begin", ticketRef: ref, files: input.files },
      });
    } else {
      const row = await trx.updateTable("tickets").set({ ...set, updated_at: now })
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
        content: `${actorDisplayName(actor)} began ${ref}`,
        agentId: actor.agentId,
        subAgentName: actor.subAgentName,
        sessionId,
        ticketId: ticket.id,
        payload: { via: "begin", files: input.files },
        now,
      });
    }
    if (acknowledging) {
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
    const verify = ticket.verification_command ? ` (run: ${ticket.verification_command})` : "";
    return {
      ticket: { id: ticket.id, status: "in_progress" },
      sessionId,
      claims: claimed.claims,
      criteriaAcknowledged: acknowledging || ticket.criteria_acknowledged_at !== null,
      nextAction: {
        action: "LOG_PROGRESS",
        endpoint: "POST /ledger",
        message: `Work on ${ref}: log PROGRESS entries as you go, a TESTED entry once verified${verify}, ` +
          "then POST /handoff",
      },
    };
  });
}
