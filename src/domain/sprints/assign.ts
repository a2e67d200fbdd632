import type { z } from "zod";
import type { SprintAssignBody, SprintAssignResult } from "@/contracts/sprints.ts";
import { sql } from "kysely";
import { toJson } from "@/db/tables/types.ts";
import { recordEvent } from "@/domain/core/record-event.ts";
import type { ActorCtx } from "@/domain/core/context.ts";
import { fail } from "@/domain/core/errors.ts";
import { findTicketId, ticketNotFound } from "@/domain/core/ticket-refs.ts";
import { assertSprintWriter, listSprintsRecovery, sprintNotFound } from "./common.ts";

/** POST /sprint/assign's body, as the route has parsed it. */
export type AssignInput = z.output<typeof SprintAssignBody>;

/** What POST /sprint/assign answers (its `data`). */
export type AssignResult = z.output<typeof SprintAssignResult>;

/** How long an idempotency key replays its first result (SPRINT-041). */
export const ASSIGN_IDEMPOTENCY_MS = 60_000;
const CLOSED = ["complete", "archived", "cancelled"];

class Replay {
  constructor(readonly result: AssignResult) {}
}

/**
 * POST /sprint/assign. The move is a conditional UPDATE (`sprint_id IS DISTINCT FROM` the target), so
 * a ticket already in the requested state answers `idempotent: true, noop: true` without writing.
 * `idempotencyKey` (per agent) replays the first result for 60 seconds: the key is recorded in
 * `idempotency_records` in the same transaction as the move; a concurrent request with the same key
 * rolls back its own move and returns the recorded result. Assigning to a sprint that is complete,
 * archived or cancelled is refused with 422 VALIDATION_ERROR (design).
 */
export async function assignTicketToSprint(
  ctx: ActorCtx,
  input: AssignInput,
): Promise<{ result: AssignResult; replayed: boolean }> {
  const { actor } = ctx;
  assertSprintWriter(actor);
  const now = ctx.clock.now();
  const scope = `sprint-assign:${actor.projectId}:${actor.agentId}`;
  if (input.idempotencyKey) {
    const earlier = await ctx.db.selectFrom("idempotency_records").select("result")
      .where("scope", "=", scope).where("key", "=", input.idempotencyKey).where("expires_at", ">", now)
      .executeTakeFirst();
    if (earlier) return { result: earlier.result as AssignResult, replayed: true };
  }
  const ticketId = await findTicketId(ctx.db, actor.projectId, input.ticketId);
  if (!ticketId) throw ticketNotFound(input.ticketId);
  if (input.sprintId !== null) {
    const sprint = await ctx.db.selectFrom("sprints").select(["id", "status", "number"])
      .where("id", "=", input.sprintId).where("project_id", "=", actor.projectId).executeTakeFirst();
    if (!sprint) throw sprintNotFound(input.sprintId);
    if (CLOSED.includes(sprint.status)) {
      throw fail.unprocessable(`Sprint ${sprint.number} is ${sprint.status}: tickets can no longer join it`, {
        sprintId: sprint.id,
        sprintStatus: sprint.status,
        recovery: listSprintsRecovery("Pick a sprint in planning or active"),
      });
    }
  }
  const target = input.sprintId?.toLowerCase() ?? null;
  try {
    const result = await ctx.db.transaction().execute(async (trx) => {
      const moved = await trx.updateTable("tickets").set({ sprint_id: target, updated_at: now })
        .where("id", "=", ticketId)
        .where(sql<boolean>`sprint_id IS DISTINCT FROM ${target}::uuid`)
        .returning("id").executeTakeFirst();
      const base: AssignResult = { ticketId, sprintId: target, action: target ? "assigned" : "unassigned" };
      const result: AssignResult = moved ? base : { ...base, idempotent: true, noop: true };
      if (input.idempotencyKey) {
        const kept = await trx.insertInto("idempotency_records").values({
          scope,
          key: input.idempotencyKey,
          result: toJson(result),
          created_at: now,
          expires_at: new Date(now.getTime() + ASSIGN_IDEMPOTENCY_MS),
        }).onConflict((oc) =>
          oc.columns(["scope", "key"]).doUpdateSet({
            result: toJson(result),
            created_at: now,
            expires_at: new Date(now.getTime() + ASSIGN_IDEMPOTENCY_MS),
          }).where("idempotency_records.expires_at", "<=", now)
        ).returning("key").executeTakeFirst();
        if (!kept) {
          const earlier = await trx.selectFrom("idempotency_records").select("result")
            .where("scope", "=", scope).where("key", "=", input.idempotencyKey).executeTakeFirstOrThrow();
          throw new Replay(earlier.result as AssignResult);
        }
      }
      if (moved) {
        await recordEvent(trx, {
          projectId: actor.projectId,
          kind: target ? "sprint.ticket_assigned" : "sprint.ticket_unassigned",
          entityType: "ticket",
          entityId: ticketId,
          agentId: actor.agentId,
          data: { sprintId: target },
          now,
        });
      }
      return result;
    });
    return { result, replayed: false };
  } catch (err) {
    if (err instanceof Replay) return { result: err.result, replayed: true };
    throw err;
  }
}
