import { sql } from "kysely";
import { userProjects } from "@/domain/oauth/consent.ts";
import type { ServiceCtx } from "@/domain/core/context.ts";
import { boardColumns } from "@/domain/core/workflow.ts";
import type { MemberRole } from "./access.ts";

/** Session statuses of an agent that is working now: it counts as online. */
export const ONLINE_SESSION_STATUSES = ["active", "awaiting_input"] as const;

export interface ProjectSummary {
  id: string;
  name: string;
  orgName: string;
  role: MemberRole;
  agentsOnline: number;
  columns: { status: string; count: number }[];
  openClaims: number;
  lastActivityAt: Date | null;
}

/**
 * The projects list of the dashboard: the user's projects with agents online (an open session), tickets
 * per workflow column, open claims and the time of the last event. Five queries whatever the number of
 * projects.
 */
export async function projectSummaries(ctx: ServiceCtx, userId: string): Promise<ProjectSummary[]> {
  const projects = await userProjects(ctx, userId);
  if (projects.length === 0) return [];
  const ids = projects.map((p) => p.id);
  const now = ctx.clock.now();
  const [settings, tickets, online, claims, events] = await Promise.all([
    ctx.db.selectFrom("projects").select(["id", "settings"]).where("id", "in", ids).execute(),
    ctx.db.selectFrom("tickets").select(["project_id", "status", sql<number>`count(*)::int`.as("n")])
      .where("project_id", "in", ids).groupBy(["project_id", "status"]).execute(),
    ctx.db.selectFrom("sessions as s").innerJoin("agents as a", "a.id", "s.agent_id")
      .select(["s.project_id", sql<number>`count(distinct s.agent_id)::int`.as("n")])
      .where("s.project_id", "in", ids).where("s.status", "in", [...ONLINE_SESSION_STATUSES])
      .where("a.status", "=", "active").groupBy("s.project_id").execute(),
    ctx.db.selectFrom("claims").select(["project_id", sql<number>`count(*)::int`.as("n")])
      .where("project_id", "in", ids).where("released_at", "is", null).where("expires_at", ">", now)
      .groupBy("project_id").execute(),
    ctx.db.selectFrom("events").select(["project_id", sql<Date | null>`max(created_at)`.as("at")])
      .where("project_id", "in", ids).groupBy("project_id").execute(),
  ]);
  return projects.map((p) => {
    const columns = boardColumns(settings.find((s) => s.id === p.id)?.settings ?? {});
    const counts = tickets.filter((t) => t.project_id === p.id);
    const extra = counts.map((c) => c.status).filter((s) => !columns.includes(s));
    const at = events.find((e) => e.project_id === p.id)?.at ?? null;
    return {
      id: p.id,
      name: p.name,
      orgName: p.orgName,
      role: p.role,
      agentsOnline: online.find((o) => o.project_id === p.id)?.n ?? 0,
      columns: [...columns, ...extra].map((status) => ({
        status,
        count: counts.find((c) => c.status === status)?.n ?? 0,
      })),
      openClaims: claims.find((c) => c.project_id === p.id)?.n ?? 0,
      lastActivityAt: at === null ? null : new Date(at),
    };
  });
}
