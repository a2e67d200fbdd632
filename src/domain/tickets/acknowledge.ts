import type { AcceptanceCriterion } from "@/db/tables/work.ts";
import { toJson } from "@/db/tables/types.ts";
import { recordEvent } from "@/domain/core/record-event.ts";
import type { ActorCtx } from "@/domain/core/context.ts";
import { fail, recovery } from "@/domain/core/errors.ts";
import { ticketNextAction } from "./next-action.ts";
import { loadProject } from "./project-info.ts";
import { isUuid, pathTicketNotFound } from "@/domain/core/ticket-refs.ts";
import { TERMINAL_STATUSES } from "@/domain/core/workflow.ts";

export interface AdditionalCriterion {
  title: string;
  description?: string | undefined;
  requiresEvidence: boolean;
}

/** A ticket holds at most 20 acceptance criteria, however they were added. */
export const MAX_CRITERIA = 20;

/**
 * POST /ticket/{id}/acknowledge: adds `additionalCriteria` (source `manual`; a title already present,
 * case-insensitive, is skipped) and records the criteria as acknowledged. Idempotent: a repeat adds and
 * changes nothing, and `criteriaAcknowledgedAt` keeps its first value unless this call added criteria.
 * Refusals: no criteria and none supplied (400, ADD_CRITERIA); more than 20 criteria in all (400);
 * ticket assigned to another agent (403, unless orchestrator); done or cancelled ticket (409).
 */
export async function acknowledgeCriteria(
  ctx: ActorCtx,
  ticketId: string,
  additional: AdditionalCriterion[],
) {
  const { actor } = ctx;
  if (!isUuid(ticketId)) throw pathTicketNotFound(ticketId);
  const project = await loadProject(ctx.db, actor.projectId);
  const now = ctx.clock.now();
  return await ctx.db.transaction().execute(async (trx) => {
    const row = await trx.selectFrom("tickets").selectAll().where("id", "=", ticketId.toLowerCase())
      .where("project_id", "=", actor.projectId).forUpdate().executeTakeFirst();
    if (!row) throw pathTicketNotFound(ticketId);
    const ticketRef = `${project.prefix}-${row.number}`;
    if (row.assignee_agent_id && row.assignee_agent_id !== actor.agentId && actor.role !== "orchestrator") {
      throw fail.forbidden(`${ticketRef} is assigned to another agent, who acknowledges its criteria`, {
        guidance: "Acknowledge criteria of tickets assigned to you or unassigned ones",
      });
    }
    const known = new Set(row.acceptance_criteria.map((c) => String(c.title ?? "").trim().toLowerCase()));
    const added: AcceptanceCriterion[] = [];
    for (const c of additional) {
      const key = c.title.trim().toLowerCase();
      if (known.has(key)) continue;
      known.add(key);
      added.push({
        title: c.title.trim(),
        ...(c.description !== undefined ? { description: c.description } : {}),
        requiresEvidence: c.requiresEvidence,
        source: "manual",
      });
    }
    const criteria = [...row.acceptance_criteria, ...added];
    if (criteria.length === 0) {
      throw fail.validation(`${ticketRef} has no acceptance criteria: send additionalCriteria`, {
        missing: ["additionalCriteria"],
        recovery: recovery(
          "ADD_CRITERIA",
          `POST /ticket/${row.id}/acknowledge`,
          "Add 1 to 20 criteria while acknowledging",
          { additionalCriteria: [{ title: "<criterion>", requiresEvidence: true }] },
        ),
      });
    }
    if (criteria.length > MAX_CRITERIA) {
      throw fail.validation(
        `A ticket holds at most ${MAX_CRITERIA} criteria; ${ticketRef} would have ${criteria.length}`,
        {
          fields: [{
            path: "additionalCriteria",
            message: `At most ${MAX_CRITERIA} criteria in all`,
            code: "too_big",
          }],
        },
      );
    }
    const unchanged = added.length === 0 && row.criteria_acknowledged_at !== null;
    if (unchanged) return result(row, ticketRef, 0, true);
    if ((TERMINAL_STATUSES as readonly string[]).includes(row.status)) {
      throw fail.conflict(`${ticketRef} is ${row.status}; its criteria can no longer change`, {
        observedStatus: row.status,
        recovery: recovery("REFRESH_TICKET_STATE", "GET /ticket", "Read the ticket again", { id: row.id }),
      });
    }
    const updated = await trx.updateTable("tickets")
      .set({ acceptance_criteria: toJson(criteria), criteria_acknowledged_at: now, updated_at: now })
      .where("id", "=", row.id).returningAll().executeTakeFirstOrThrow();
    await recordEvent(trx, {
      projectId: actor.projectId,
      kind: "ticket.acknowledged",
      entityType: "ticket",
      entityId: row.id,
      agentId: actor.agentId,
      data: { ticketRef, added: added.length, criteriaCount: criteria.length },
      now,
    });
    return result(updated, ticketRef, added.length, false);
  });
}

function result(
  row: Parameters<typeof ticketNextAction>[0],
  ticketRef: string,
  added: number,
  already: boolean,
) {
  return {
    ticketId: row.id,
    ticketRef,
    criteriaAcknowledgedAt: row.criteria_acknowledged_at!.toISOString(),
    acceptanceCriteria: row.acceptance_criteria,
    added,
    alreadyAcknowledged: already,
    nextAction: ticketNextAction(row),
  };
}
