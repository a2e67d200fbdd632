import { sql } from "kysely";
import { identityName } from "@/domain/core/actor.ts";
import type { Trx } from "@/db/database.ts";
import type { ActorCtx } from "@/domain/core/context.ts";
import { fail, recovery } from "@/domain/core/errors.ts";
import { recordEvent } from "@/domain/core/record-event.ts";
import { resolveTicketRef } from "@/domain/core/ticket-refs.ts";
import { loadProject } from "./project-info.ts";

/** Statuses in which a ticket is being worked on or reviewed and cannot be deleted. */
export const UNDELETABLE_STATUSES = ["in_progress", "in_review", "qa"] as const;

/**
 * DELETE /ticket: only the creator (an agent and its sub-agents are one identity) or an orchestrator.
 * Refused (400) while the ticket is in progress, in review or QA, or has open claims (live claims not
 * released nor expired). The delete itself re-checks both conditions in one statement, so a claim or a
 * move racing the delete cannot slip through. Children keep existing (their parent link is cleared);
 * ledger entries stay, since the ledger is append-only.
 */
export async function deleteTicket(ctx: ActorCtx, ref: string) {
  const { actor } = ctx;
  const project = await loadProject(ctx.db, actor.projectId);
  const now = ctx.clock.now();
  return await ctx.db.transaction().execute(async (trx) => {
    const id = await resolveTicketRef(trx, actor.projectId, ref);
    const ticket = await trx.selectFrom("tickets").select([
      "id",
      "number",
      "title",
      "status",
      "created_by_agent_id",
    ])
      .where("id", "=", id).forUpdate().executeTakeFirstOrThrow();
    const ticketRef = `${project.prefix}-${ticket.number}`;
    if (actor.role !== "orchestrator" && ticket.created_by_agent_id !== actor.agentId) {
      throw fail.forbidden(`Only the creator of ${ticketRef} or an orchestrator may delete it`, {
        guidance:
          "Ask the ticket's creator or an orchestrator, or cancel it with PATCH /ticket if you may move it",
      });
    }
    if ((UNDELETABLE_STATUSES as readonly string[]).includes(ticket.status)) {
      throw fail.validation(`${ticketRef} is ${ticket.status} and cannot be deleted`, {
        ticketId: id,
        status: ticket.status,
        recovery: recovery(
          "USE_VALID_TRANSITION",
          "PATCH /ticket",
          "Cancel the ticket instead, or wait until it leaves in_progress, in_review and qa",
          { ticketId: id, status: "cancelled" },
        ),
      });
    }
    const open = await openClaims(trx, id, now);
    if (open.length > 0) {
      throw fail.validation(`${ticketRef} has open file claims and cannot be deleted`, {
        ticketId: id,
        openClaims: open,
        recovery: recovery(
          "RETRY_LATER",
          "DELETE /ticket",
          "Retry once the holders have released their claims (POST /release) or the claims expired",
          { ticketId: id },
        ),
      });
    }
    const deleted = await trx.deleteFrom("tickets").where("id", "=", id)
      .where("status", "not in", [...UNDELETABLE_STATUSES])
      .where(({ not, exists, selectFrom }) =>
        not(exists(
          selectFrom("claims as c").innerJoin("claim_files as f", "f.claim_id", "c.id").select(
            sql`1`.as("one"),
          )
            .where("c.ticket_id", "=", id).where("c.released_at", "is", null).where(
              "f.released_at",
              "is",
              null,
            )
            .where("c.expires_at", ">", now),
        ))
      )
      .returning(["id", "number", "title"]).executeTakeFirst();
    if (!deleted) throw fail.conflict(`${ticketRef} changed during the delete; read it again`);
    await recordEvent(trx, {
      projectId: actor.projectId,
      kind: "ticket.deleted",
      entityType: "ticket",
      entityId: id,
      agentId: actor.agentId,
      data: { ticketRef, number: deleted.number, title: deleted.title },
      now,
    });
    return { deleted: { id: deleted.id, number: deleted.number, ticketRef, title: deleted.title } };
  });
}

async function openClaims(trx: Trx, ticketId: string, now: Date) {
  const rows = await trx.selectFrom("claims as c").innerJoin("claim_files as f", "f.claim_id", "c.id")
    .innerJoin("agents as a", "a.id", "c.agent_id")
    .select(["f.file", "a.name", "c.sub_agent_name", "c.expires_at"])
    .where("c.ticket_id", "=", ticketId).where("c.released_at", "is", null).where("f.released_at", "is", null)
    .where("c.expires_at", ">", now).execute();
  return rows.map((r) => ({
    file: r.file,
    claimant: identityName(r.name, r.sub_agent_name),
    expiresAt: r.expires_at.toISOString(),
  }));
}
