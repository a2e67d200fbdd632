import { sql } from "kysely";
import type { Trx } from "@/db/database.ts";
import { toJson } from "@/db/tables/types.ts";
import { releaseClaims } from "@/domain/claims/release.ts";
import { recordEvent } from "@/domain/core/record-event.ts";
import type { Actor } from "@/domain/core/actor.ts";
import { upsertArtifact } from "@/domain/tickets/artifacts.ts";
import type { TicketRow } from "@/domain/core/ticket-serialize.ts";
import { appendReviewHistory, observedConflict } from "@/domain/core/workflow.ts";
import type { HandoffArtifact } from "./types.ts";
import type { HandoffTarget, Written } from "./plan.ts";
import { createQaRun, evidenceCriteria } from "./qa.ts";

/** Where a handoff writes: the caller, its session, and the one instant of the call. */
export interface HandoffAt {
  actor: Actor;
  sessionId: string;
  now: Date;
}

/**
 * Stores one handed-off artifact on the ticket with the upsert POST /ticket/{id}/artifacts uses: the same
 * type and URL already on the ticket is updated in place; a commit is stored `closed`, anything else `open`.
 */
export async function storeArtifact(
  trx: Trx,
  at: HandoffAt,
  ticketId: string,
  a: HandoffArtifact,
): Promise<void> {
  const { actor, now } = at;
  const { row, created } = await upsertArtifact(trx, {
    ticketId,
    agentId: actor.agentId,
    now,
    type: a.type,
    url: a.url,
    ref: a.ref,
    title: a.title,
    metadata: a.metadata,
  });
  await recordEvent(trx, {
    projectId: actor.projectId,
    kind: created ? "artifact.added" : "artifact.updated",
    entityType: "artifact",
    entityId: row.id,
    agentId: actor.agentId,
    data: { ticketId, type: a.type, url: a.url, by: "handoff" },
    now,
  });
}

/**
 * HAND-008, HAND-035: the single ticket move, a compare-and-swap on the observed status and assignee (a
 * concurrent change answers 409 and rolls the whole handoff back); an adopting handoff (HAND-030) also
 * takes the ticket. Records the move (or the adoption) as an event.
 */
export async function moveTicket(
  trx: Trx,
  at: HandoffAt,
  move: {
    ticket: TicketRow;
    target: NonNullable<HandoffTarget>;
    adopt: boolean;
    reviewHandoff: Record<string, unknown> | null;
  },
): Promise<boolean> {
  const { actor, now } = at;
  const { ticket, target, adopt, reviewHandoff } = move;
  const changed = target.status !== ticket.status;
  const moved = await trx.updateTable("tickets").set({
    status: target.status,
    updated_at: now,
    // The column's update type is the serialized JSON; the append is done in SQL.
    review_history: sql<string>`${
      appendReviewHistory({
        action: "handoff",
        from: ticket.status,
        to: target.status,
        agentId: actor.agentId,
        subAgentName: actor.subAgentName,
        at: now.toISOString(),
      })
    }`,
    ...(changed ? { status_changed_at: now } : {}),
    ...(reviewHandoff ? { review_handoff: toJson(reviewHandoff) } : {}),
    ...(adopt ? { assignee_agent_id: actor.agentId, sub_agent_name: actor.subAgentName } : {}),
  }).where("id", "=", ticket.id).where("status", "=", ticket.status)
    .where((eb) =>
      ticket.assignee_agent_id === null
        ? eb("assignee_agent_id", "is", null)
        : eb("assignee_agent_id", "=", ticket.assignee_agent_id)
    )
    .returning("id").executeTakeFirst();
  if (!moved) throw await observedConflict(trx, ticket.id, ticket.status, ticket.assignee_agent_id);
  const event = {
    projectId: actor.projectId,
    entityType: "ticket",
    entityId: ticket.id,
    agentId: actor.agentId,
    now,
  };
  if (adopt && !changed) {
    await recordEvent(trx, {
      ...event,
      kind: "ticket.updated",
      data: { number: ticket.number, assigneeAgentId: actor.agentId, by: "handoff" },
    });
  }
  if (changed) {
    await recordEvent(trx, {
      ...event,
      kind: "ticket.moved",
      data: {
        number: ticket.number,
        from: ticket.status,
        to: target.status,
        by: "handoff",
        ...(adopt ? { assigneeAgentId: actor.agentId } : {}),
      },
    });
  }
  return changed;
}

/** HAND-003..005: the QA run of a ticket going to review with criteria that need evidence, else null. */
export async function maybeQaRun(
  trx: Trx,
  at: HandoffAt,
  ticket: TicketRow,
  target: NonNullable<HandoffTarget>,
): Promise<Written["qa"]> {
  const needEvidence = evidenceCriteria(ticket.acceptance_criteria);
  if (!target.reviewRequired || needEvidence.length === 0) return null;
  const id = await createQaRun(trx, {
    projectId: at.actor.projectId,
    ticketId: ticket.id,
    sessionId: at.sessionId,
    agentId: at.actor.agentId,
    criteria: needEvidence,
    now: at.now,
  });
  return { id, tests: needEvidence.length, criteria: ticket.acceptance_criteria.length };
}

/** HAND-036: releases every open claim of the identity (the agent and each of its sub-agents). */
export async function releaseIdentity(trx: Trx, at: HandoffAt): Promise<string[]> {
  const { actor } = at;
  return await releaseClaims(trx, {
    projectId: actor.projectId,
    agentId: actor.agentId,
    withSubAgents: true,
    all: true,
    sessionId: at.sessionId,
    now: at.now,
  });
}
