import type { ActorCtx } from "@/domain/core/context.ts";
import { fail } from "@/domain/core/errors.ts";
import { priorityOf } from "@/domain/core/ticket-serialize.ts";
import { sprintNotFound, toSprint } from "./common.ts";
import type { ReleaseNotes } from "./release.ts";

/** GET /sprint: every sprint of the project, highest number first. */
export async function listSprints(ctx: ActorCtx) {
  const rows = await ctx.db.selectFrom("sprints").selectAll().where("project_id", "=", ctx.actor.projectId)
    .orderBy("number", "desc").execute();
  return rows.map(toSprint);
}

/** Sprint-row tickets of a sprint (assignee as `assigneeAgentId` / `assigneeAgentName`), by number. */
export async function sprintTickets(ctx: ActorCtx, sprintId: string) {
  const rows = await ctx.db.selectFrom("tickets as t")
    .innerJoin("projects as p", "p.id", "t.project_id")
    .leftJoin("agents as a", "a.id", "t.assignee_agent_id")
    .select([
      "t.id",
      "t.number",
      "t.title",
      "t.status",
      "t.type",
      "t.tags",
      "t.story_points",
      "t.assignee_agent_id",
      "t.sub_agent_name",
      "t.updated_at",
      "p.ticket_prefix",
      "a.name as assigneeName",
    ])
    .where("t.sprint_id", "=", sprintId).where("t.project_id", "=", ctx.actor.projectId)
    .orderBy("t.number").execute();
  return rows.map((r) => ({
    id: r.id,
    number: r.number,
    ticketRef: `${r.ticket_prefix}-${r.number}`,
    title: r.title,
    status: r.status,
    type: r.type,
    priority: priorityOf(r.tags),
    storyPoints: r.story_points === null ? null : Number(r.story_points),
    assigneeAgentId: r.assignee_agent_id,
    assigneeAgentName: r.assigneeName ?? null,
    subAgentName: r.sub_agent_name,
    updatedAt: r.updated_at.toISOString(),
  }));
}

const INCLUDES = ["tickets"];

/**
 * GET /sprint/current: the active sprint with a summary. `completionPct` is done tickets over the
 * sprint's non-cancelled tickets, rounded to an integer (0 for an empty sprint). `agentProgress` has one
 * row per assignee (unassigned tickets are left out), by name; `inReview` counts only status
 * `in_review`. 404 NO_ACTIVE_SPRINT when no sprint is active.
 */
export async function currentSprint(ctx: ActorCtx, include: string | undefined) {
  const wanted = (include ?? "").split(",").map((s) => s.trim()).filter(Boolean);
  const unknown = wanted.filter((w) => !INCLUDES.includes(w));
  if (unknown.length > 0) {
    throw fail.validation(`Unknown include "${unknown.join(",")}": use tickets`, {
      fields: [{ path: "include", message: "Allowed values: tickets", code: "invalid_value" }],
      target: "query",
    });
  }
  const sprint = await ctx.db.selectFrom("sprints").selectAll().where("project_id", "=", ctx.actor.projectId)
    .where("status", "=", "active").executeTakeFirst();
  if (!sprint) {
    throw fail.notFound("No sprint is active in this project", {
      recovery: {
        action: "LIST_SPRINTS",
        endpoint: "GET /sprint",
        hint: "List the sprints and activate one with PATCH /sprint/{sprintId} status active",
        payloadHint: null,
      },
    }, "NO_ACTIVE_SPRINT");
  }
  const tickets = await sprintTickets(ctx, sprint.id);
  const byStatus: Record<string, number> = {};
  for (const t of tickets) byStatus[t.status] = (byStatus[t.status] ?? 0) + 1;
  const done = byStatus.done ?? 0;
  const countable = tickets.length - (byStatus.cancelled ?? 0);
  const progress = new Map<
    string,
    { agentId: string; agentName: string; inProgress: number; inReview: number; done: number }
  >();
  for (const t of tickets) {
    if (!t.assigneeAgentId) continue;
    const row = progress.get(t.assigneeAgentId) ??
      {
        agentId: t.assigneeAgentId,
        agentName: t.assigneeAgentName ?? "",
        inProgress: 0,
        inReview: 0,
        done: 0,
      };
    if (t.status === "in_progress") row.inProgress++;
    if (t.status === "in_review") row.inReview++;
    if (t.status === "done") row.done++;
    progress.set(t.assigneeAgentId, row);
  }
  return {
    sprint: {
      id: sprint.id,
      name: sprint.name,
      number: sprint.number,
      goal: sprint.goal,
      status: sprint.status,
      // SPRINT-005: the sprint's start date under the name startedAt (activation fills a missing one,
      // SPRINT-008; started_at covers rows activated before that).
      startedAt: sprint.start_date ?? sprint.started_at?.toISOString() ?? null,
      completedAt: sprint.completed_at?.toISOString() ?? null,
    },
    summary: {
      total: tickets.length,
      byStatus,
      completionPct: countable > 0 ? Math.round((done / countable) * 100) : 0,
      agentProgress: [...progress.values()].sort((a, b) => a.agentName.localeCompare(b.agentName)),
    },
    ...(wanted.includes("tickets") ? { tickets } : {}),
  };
}

/** GET /sprint/{sprintId}: one sprint with its stored release notes (null until it completes). */
export async function getSprint(ctx: ActorCtx, sprintId: string) {
  const row = await ctx.db.selectFrom("sprints").selectAll().where("id", "=", sprintId)
    .where("project_id", "=", ctx.actor.projectId).executeTakeFirst();
  if (!row) throw sprintNotFound(sprintId);
  // `release_notes` holds what patchSprint stored from buildReleaseNotes, as JSON.
  return { ...toSprint(row), releaseNotes: (row.release_notes ?? null) as ReleaseNotes | null };
}
