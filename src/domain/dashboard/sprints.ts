import { sql } from "kysely";
import type { ServiceCtx } from "@/domain/core/context.ts";
import type { DashboardMember } from "./access.ts";

export const SPRINT_TICKETS_LIMIT = 200;
const DAY_MS = 86_400_000;

export interface SprintSummary {
  id: string;
  number: number;
  name: string;
  goal: string | null;
  status: string;
  startDate: string | null;
  endDate: string | null;
  total: number;
  done: number;
}

/** The project's sprints, newest first, with ticket and done counts. One query. */
export async function sprintList(ctx: ServiceCtx, member: DashboardMember): Promise<SprintSummary[]> {
  const rows = await ctx.db.selectFrom("sprints as s")
    .leftJoin("tickets as t", "t.sprint_id", "s.id")
    .select([
      "s.id",
      "s.number",
      "s.name",
      "s.goal",
      "s.status",
      "s.start_date",
      "s.end_date",
      sql<number>`count(t.id)::int`.as("total"),
      sql<number>`count(t.id) filter (where t.status = 'done')::int`.as("done"),
    ])
    .where("s.project_id", "=", member.project.id)
    .groupBy(["s.id", "s.number", "s.name", "s.goal", "s.status", "s.start_date", "s.end_date"])
    .orderBy("s.number", "desc").limit(100).execute();
  return rows.map((r) => ({
    id: r.id,
    number: r.number,
    name: r.name,
    goal: r.goal,
    status: r.status,
    startDate: r.start_date,
    endDate: r.end_date,
    total: r.total,
    done: r.done,
  }));
}

/** One point per day: tickets not yet done at the end of that day, and the ideal straight line. */
export interface BurndownPoint {
  day: string;
  remaining: number | null;
  ideal: number;
  /** Story points not yet done at the end of that day, when the sprint's tickets carry points. */
  remainingPoints?: number | null | undefined;
  idealPoints?: number | undefined;
}

/** The burndown in points, added to the ticket burndown when any ticket of the sprint carries points. */
function withPoints(
  points: BurndownPoint[],
  tickets: { status: string; status_changed_at: Date; story_points: string | number | null }[],
  start: Date,
): BurndownPoint[] {
  const pts = (t: { story_points: string | number | null }) => Number(t.story_points ?? 0) || 0;
  const total = tickets.reduce((sum, t) => sum + pts(t), 0);
  if (total === 0) return points;
  const days = points.length;
  return points.map((p, i) => {
    const dayEnd = new Date(start.getTime() + (i + 1) * DAY_MS);
    const done = tickets.filter((t) => t.status === "done" && t.status_changed_at < dayEnd)
      .reduce((sum, t) => sum + pts(t), 0);
    return {
      ...p,
      remainingPoints: p.remaining === null ? null : total - done,
      idealPoints: days === 1 ? 0 : total - (total * i) / (days - 1),
    };
  });
}

/**
 * One sprint with its tickets and burndown (remaining tickets per day from the start to the end date,
 * a ticket leaving "remaining" on the day it moved to done). Null when not a sprint of the project.
 */
export async function sprintDetail(ctx: ServiceCtx, member: DashboardMember, sprintId: string) {
  if (!/^[0-9a-f-]{36}$/i.test(sprintId)) return null;
  const sprint = await ctx.db.selectFrom("sprints").selectAll().where("project_id", "=", member.project.id)
    .where("id", "=", sprintId.toLowerCase()).executeTakeFirst();
  if (!sprint) return null;
  const tickets = await ctx.db.selectFrom("tickets as t").leftJoin(
    "agents as a",
    "a.id",
    "t.assignee_agent_id",
  )
    .select([
      "t.id",
      "t.number",
      "t.title",
      "t.status",
      "t.status_changed_at",
      "t.story_points",
      "a.name as assignee_name",
    ])
    .where("t.sprint_id", "=", sprint.id).orderBy("t.number").limit(SPRINT_TICKETS_LIMIT).execute();
  const now = ctx.clock.now();
  const startAt = sprint.start_date
    ? new Date(`${sprint.start_date}T00:00:00Z`)
    : (sprint.started_at ?? sprint.created_at);
  const start = new Date(Date.UTC(startAt.getUTCFullYear(), startAt.getUTCMonth(), startAt.getUTCDate()));
  const end = sprint.end_date ? new Date(`${sprint.end_date}T00:00:00Z`) : now;
  const days = Math.min(90, Math.max(1, Math.round((end.getTime() - start.getTime()) / DAY_MS) + 1));
  const total = tickets.length;
  const burndown: BurndownPoint[] = [];
  for (let i = 0; i < days; i++) {
    const dayEnd = new Date(start.getTime() + (i + 1) * DAY_MS);
    const future = dayEnd.getTime() - DAY_MS > now.getTime();
    const done = tickets.filter((t) => t.status === "done" && t.status_changed_at < dayEnd).length;
    burndown.push({
      day: new Date(start.getTime() + i * DAY_MS).toISOString().slice(0, 10),
      remaining: future ? null : total - done,
      ideal: days === 1 ? 0 : total - (total * i) / (days - 1),
    });
  }
  return {
    id: sprint.id,
    number: sprint.number,
    name: sprint.name,
    goal: sprint.goal,
    status: sprint.status,
    startDate: sprint.start_date,
    endDate: sprint.end_date,
    tickets: tickets.map((t) => ({
      key: `${member.project.prefix}-${t.number}`,
      title: t.title,
      status: t.status,
      assigneeName: t.assignee_name,
    })),
    burndown: withPoints(burndown, tickets, start),
  };
}

/** One sprint as its dashboard page shows it. */
export type SprintDetail = NonNullable<Awaited<ReturnType<typeof sprintDetail>>>;
