import type { z } from "zod";
import type { SprintPatchBody } from "@/contracts/sprints.ts";
import type { Trx } from "@/db/database.ts";
import type { SprintsTable } from "@/db/tables/work.ts";
import { toJson } from "@/db/tables/types.ts";
import { isUniqueViolation } from "@/db/errors.ts";
import { recordEvent } from "@/domain/core/record-event.ts";
import type { Actor } from "@/domain/core/actor.ts";
import type { ActorCtx } from "@/domain/core/context.ts";
import { type DomainError, fail, recovery } from "@/domain/core/errors.ts";
import type { Updateable } from "kysely";
import { assertSprintWriter, fixSprintFields, sprintNotFound, type SprintRow } from "./common.ts";
import { endBeforeStart } from "@/shared/sprint-dates.ts";
import { buildReleaseNotes, publishRelease } from "./release.ts";

type Status = SprintRow["status"];

/** The sprint state machine (spec: Sprint statuses), exactly. */
export const SPRINT_TRANSITIONS: Record<Status, Status[]> = {
  planning: ["active", "cancelled"],
  active: ["complete", "cancelled"],
  complete: ["archived"],
  archived: [],
  cancelled: [],
};

/** PATCH /sprint/{sprintId}'s body, as the route has parsed it. */
export type PatchSprintInput = z.output<typeof SprintPatchBody>;

const FIELD_ORDER = ["name", "goal", "status", "startDate", "endDate", "capacityPoints"] as const;

/**
 * The columns a PATCH writes, refusing an illegal status move (422 USE_VALID_TRANSITION) or an end
 * before the start. Activation without a start date starts the sprint now; an empty goal clears it.
 */
export function sprintChanges(
  sprint: SprintRow,
  input: PatchSprintInput,
  now: Date,
): Updateable<SprintsTable> {
  const target = input.status;
  if (target !== undefined && !SPRINT_TRANSITIONS[sprint.status].includes(target)) {
    throw illegalTransition(sprint, target);
  }
  const set: Updateable<SprintsTable> = { updated_at: now };
  if (input.name !== undefined) set.name = input.name;
  if (input.goal !== undefined) set.goal = input.goal === "" ? null : input.goal;
  if (input.capacityPoints !== undefined) set.capacity_points = input.capacityPoints;
  let start = input.startDate !== undefined ? input.startDate : sprint.start_date;
  const end = input.endDate !== undefined ? input.endDate : sprint.end_date;
  if (target === "active" && !start) start = now.toISOString();
  if (start !== sprint.start_date) set.start_date = start;
  if (end !== sprint.end_date) set.end_date = end;
  if (endBeforeStart(start, end)) {
    throw fixSprintFields(`endDate ${end} is earlier than startDate ${start}`, [
      {
        path: input.endDate !== undefined ? "endDate" : "startDate",
        message: "endDate before startDate",
        code: "custom",
      },
    ]);
  }
  if (target) set.status = target;
  if (target === "active") set.started_at = now;
  if (target === "complete") set.completed_at = now;
  return set;
}

/**
 * PATCH /sprint/{sprintId}. One transaction with the sprint row locked. Activation relies on the partial
 * unique index `sprints_one_active`: of two sprints activated at once, the second UPDATE violates it
 * and answers 422 VALIDATION_ERROR. Completing or cancelling moves every non-done ticket out of the
 * sprint (sprintId null); completing also builds release notes and may publish a release.
 */
export async function patchSprint(ctx: ActorCtx, sprintId: string, input: PatchSprintInput) {
  assertSprintWriter(ctx.actor);
  const now = ctx.clock.now();
  try {
    return await ctx.db.transaction().execute((trx) => patchIn(trx, ctx.actor, sprintId, input, now));
  } catch (err) {
    if (isUniqueViolation(err, "sprints_one_active")) throw anotherActive();
    throw err;
  }
}

async function patchIn(trx: Trx, actor: Actor, sprintId: string, input: PatchSprintInput, now: Date) {
  const updatedFields = FIELD_ORDER.filter((f) => input[f] !== undefined);
  const sprint = await trx.selectFrom("sprints").selectAll().where("id", "=", sprintId)
    .where("project_id", "=", actor.projectId).forUpdate().executeTakeFirst();
  if (!sprint) throw sprintNotFound(sprintId);
  const set = sprintChanges(sprint, input, now);
  const target = input.status;
  let removedTicketIds: string[] | undefined;
  let releaseNotes: ReturnType<typeof buildReleaseNotes> | undefined;
  if (target === "complete" || target === "cancelled") {
    const removed = await moveOutNonDone(trx, sprint.id, now);
    removedTicketIds = removed.map((t) => t.id);
    if (target === "complete") {
      releaseNotes = await releaseNotesFor(trx, sprint, removed, now);
      set.release_notes = toJson(releaseNotes);
    }
  }
  const updated = await trx.updateTable("sprints").set(set).where("id", "=", sprint.id)
    .where("status", "=", sprint.status).returningAll().executeTakeFirstOrThrow();
  const release = releaseNotes
    ? {
      releaseNotes,
      releasePublish: await publishRelease(trx, {
        projectId: actor.projectId,
        agentId: actor.agentId,
        sprint: updated,
        notes: releaseNotes,
        now,
      }),
    }
    : {};
  const result = {
    id: updated.id,
    status: updated.status,
    name: updated.name,
    updatedFields,
    ...(removedTicketIds ? { removedTicketIds } : {}),
    ...release,
  };
  await recordEvent(trx, {
    projectId: actor.projectId,
    kind: "sprint.updated",
    entityType: "sprint",
    entityId: sprint.id,
    agentId: actor.agentId,
    data: {
      updatedFields,
      ...(target ? { fromStatus: sprint.status, toStatus: target } : {}),
      ...(removedTicketIds ? { removedTicketIds } : {}),
    },
    now,
  });
  return result;
}

function illegalTransition(sprint: SprintRow, target: Status): DomainError {
  const valid = SPRINT_TRANSITIONS[sprint.status];
  return fail.unprocessable(
    `Cannot move sprint ${sprint.number} from ${sprint.status} to ${target}` +
      (valid.length ? `: allowed ${valid.join(", ")}` : `: ${sprint.status} is final`),
    {
      currentStatus: sprint.status,
      requestedStatus: target,
      validTransitions: valid,
      recovery: recovery(
        "USE_VALID_TRANSITION",
        `PATCH /sprint/${sprint.id}`,
        valid.length ? `Use one of: ${valid.join(", ")}` : "This sprint can no longer change status",
        valid.length ? { status: valid[0] } : null,
      ),
    },
  );
}

function anotherActive(): DomainError {
  return fail.unprocessable("Another sprint of this project is already active; complete or cancel it first", {
    reason: "another_sprint_active",
    recovery: recovery(
      "LIST_SPRINTS",
      "GET /sprint/current",
      "Find the active sprint, complete or cancel it, then activate this one",
      null,
    ),
  });
}

/** Non-done tickets leave the sprint; returns them (by number) for the release notes. */
async function moveOutNonDone(trx: Trx, sprintId: string, now: Date) {
  const rows = await trx.updateTable("tickets").set({ sprint_id: null, updated_at: now })
    .where("sprint_id", "=", sprintId).where("status", "!=", "done")
    .returning(["id", "number", "title", "status"]).execute();
  return rows.sort((a, b) => a.number - b.number);
}

async function releaseNotesFor(
  trx: Trx,
  sprint: SprintRow,
  carried: { id: string; number: number; title: string; status: string }[],
  now: Date,
) {
  const project = await trx.selectFrom("projects").select("ticket_prefix").where("id", "=", sprint.project_id)
    .executeTakeFirstOrThrow();
  const done = await trx.selectFrom("tickets as t").leftJoin("agents as a", "a.id", "t.assignee_agent_id")
    .select(["t.id", "t.number", "t.title", "t.type", "t.story_points", "a.name as assigneeName"])
    .where("t.sprint_id", "=", sprint.id).where("t.status", "=", "done").orderBy("t.number").execute();
  return buildReleaseNotes(
    sprint,
    project.ticket_prefix,
    done.map((t) => ({
      id: t.id,
      number: t.number,
      title: t.title,
      type: t.type,
      storyPoints: t.story_points === null ? null : Number(t.story_points),
      assigneeAgentName: t.assigneeName ?? null,
    })),
    carried,
    now,
  );
}
