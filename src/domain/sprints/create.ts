import type { z } from "zod";
import type { SprintCreateBody } from "@/contracts/sprints.ts";
import { sql } from "kysely";
import { recordEvent } from "@/domain/core/record-event.ts";
import type { ActorCtx } from "@/domain/core/context.ts";
import { fail, recovery } from "@/domain/core/errors.ts";
import { endBeforeStart } from "@/shared/sprint-dates.ts";
import { isUniqueViolation } from "@/db/errors.ts";
import { assertSprintWriter, fixSprintFields } from "./common.ts";

/** POST /sprint's body, as the route has parsed it. */
export type CreateSprintInput = z.output<typeof SprintCreateBody>;

/**
 * POST /sprint. The number is the project's highest plus one, computed inside the INSERT; two creates
 * racing for the same number are told apart by UNIQUE (project_id, number): the loser's transaction
 * rolls back (nothing created) and answers 409 CONFLICT with recovery RETRY.
 */
export async function createSprint(ctx: ActorCtx, input: CreateSprintInput) {
  const { actor } = ctx;
  assertSprintWriter(actor);
  const start = input.startDate ?? null;
  const end = input.endDate ?? null;
  if (endBeforeStart(start, end)) {
    throw fixSprintFields("endDate is earlier than startDate", [
      { path: "endDate", message: "Must not be earlier than startDate", code: "custom" },
    ]);
  }
  const now = ctx.clock.now();
  const id = crypto.randomUUID();
  try {
    return await ctx.db.transaction().execute(async (trx) => {
      const next = sql<
        number
      >`(SELECT coalesce(max(number), 0) + 1 FROM sprints WHERE project_id = ${actor.projectId})`;
      const row = await trx.insertInto("sprints").values({
        id,
        project_id: actor.projectId,
        number: next,
        name: input.name ?? sql<string>`'Sprint ' || ${next}`,
        goal: input.goal === "" ? null : input.goal ?? null,
        status: "planning",
        start_date: start,
        end_date: end,
        capacity_points: input.capacityPoints ?? null,
        release_notes: null,
        created_at: now,
        updated_at: now,
        started_at: null,
        completed_at: null,
      }).returning(["id", "number", "name", "status", "created_at"]).executeTakeFirstOrThrow();
      await recordEvent(trx, {
        projectId: actor.projectId,
        kind: "sprint.created",
        entityType: "sprint",
        entityId: id,
        agentId: actor.agentId,
        data: { number: row.number, name: row.name },
        now,
      });
      return {
        id: row.id,
        number: row.number,
        name: row.name,
        status: "planning" as const,
        createdAt: row.created_at.toISOString(),
      };
    });
  } catch (err) {
    if (isUniqueViolation(err)) {
      throw fail.conflict("Another sprint took this number at the same moment; nothing was created", {
        recovery: recovery("RETRY", "POST /sprint", "Send the same request again", null),
      });
    }
    throw err;
  }
}
