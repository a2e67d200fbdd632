import type { AgentRole } from "@/db/tables/foundation.ts";
import type { ServiceCtx } from "@/domain/core/context.ts";
import type { DashboardMember } from "./access.ts";
import { complianceScores } from "./compliance.ts";
import type { ComplianceCheck } from "@/domain/context/assemble.ts";
import { ONLINE_SESSION_STATUSES } from "./projects.ts";

/** Agents listed on the agents page (by status, then name). */
const AGENTS_SHOWN = 200;

export interface AgentSession {
  id: string;
  subAgentName: string | null;
  status: string;
  startedAt: Date;
  ticketKey: string | null;
}

export interface AgentRow {
  id: string;
  name: string;
  role: AgentRole;
  platform: string | null;
  model: string | null;
  status: string;
  /** The signed-in user's own agent (the one their dashboard actions run as). */
  mine: boolean;
  online: boolean;
  lastSeenAt: Date | null;
  currentTicket: string | null;
  /** 0..100, graded as GET /context grades its caller (`complianceScoreOf`). */
  complianceScore: number | null;
  /** What the score counts: each habit, kept or not, and how to keep it. */
  complianceChecks: ComplianceCheck[];
  subAgents: {
    name: string;
    role: string;
    online: boolean;
    currentTicket: string | null;
    complianceScore: number | null;
    complianceChecks: ComplianceCheck[];
  }[];
  sessions: AgentSession[];
}

/**
 * Agents with their open sessions and sub-agents (under their parent). Last seen is the latest of the
 * pairing time and the last use of one of its tokens; the current ticket is the open session's ticket,
 * else the newest in-progress ticket assigned to it; each identity's compliance score comes with its
 * sub-agents in one statement. Four queries.
 */
export async function projectAgents(ctx: ServiceCtx, member: DashboardMember): Promise<AgentRow[]> {
  const { project } = member;
  const [agents, identities, sessions, working] = await Promise.all([
    ctx.db.selectFrom("agents as a")
      .select([
        "a.id",
        "a.name",
        "a.role",
        "a.platform",
        "a.model",
        "a.status",
        "a.last_seen_at",
        "a.user_id",
        (eb) =>
          eb.selectFrom("tokens").select((e) => e.fn.max("last_used_at").as("u"))
            .whereRef("tokens.agent_id", "=", "a.id").as("last_used"),
      ])
      .where("a.project_id", "=", project.id).orderBy("a.status").orderBy("a.name").limit(AGENTS_SHOWN)
      .execute(),
    complianceScores(ctx.db, project, ctx.clock.now(), AGENTS_SHOWN),
    ctx.db.selectFrom("sessions as s").leftJoin("tickets as t", "t.id", "s.ticket_id")
      .select(["s.id", "s.agent_id", "s.sub_agent_name", "s.status", "s.started_at", "t.number"])
      .where("s.project_id", "=", project.id).where("s.status", "in", [...ONLINE_SESSION_STATUSES])
      .orderBy("s.started_at", "desc").limit(500).execute(),
    ctx.db.selectFrom("tickets").select(["assignee_agent_id", "sub_agent_name", "number"])
      .where("project_id", "=", project.id).where("status", "=", "in_progress")
      .where("assignee_agent_id", "is not", null).orderBy("number", "desc").limit(500).execute(),
  ]);
  const key = (n: number | null) => (n === null ? null : `${project.prefix}-${n}`);
  const ticketOf = (agentId: string, sub: string | null) => {
    const s = sessions.find((x) => x.agent_id === agentId && x.sub_agent_name === sub && x.number !== null);
    if (s) return key(s.number);
    const w = working.find((x) => x.assignee_agent_id === agentId && x.sub_agent_name === sub);
    return w ? key(w.number) : null;
  };
  const scoreOf = (agentId: string, sub: string | null) =>
    identities.find((i) => i.agentId === agentId && i.subAgentName === sub)?.score ?? null;
  const checksOf = (agentId: string, sub: string | null) =>
    identities.find((i) => i.agentId === agentId && i.subAgentName === sub)?.checks ?? [];
  const subs = identities.filter((i) => i.subAgentName !== null)
    .sort((x, y) => x.subAgentName!.localeCompare(y.subAgentName!));
  return agents.map((a) => {
    const own = sessions.filter((s) => s.agent_id === a.id);
    const lastUsed = a.last_used ? new Date(a.last_used) : null;
    const lastSeen = [a.last_seen_at, lastUsed].filter((d): d is Date => d !== null)
      .sort((x, y) => y.getTime() - x.getTime())[0] ?? null;
    return {
      id: a.id,
      name: a.name,
      role: a.role,
      platform: a.platform,
      model: a.model,
      status: a.status,
      mine: a.user_id !== null && a.user_id === member.user.id,
      online: a.status === "active" && own.length > 0,
      lastSeenAt: lastSeen,
      currentTicket: ticketOf(a.id, null),
      complianceScore: scoreOf(a.id, null),
      complianceChecks: checksOf(a.id, null),
      subAgents: subs.filter((s) => s.agentId === a.id).map((s) => ({
        name: s.subAgentName!,
        role: s.role ?? "",
        online: own.some((x) => x.sub_agent_name === s.subAgentName),
        currentTicket: ticketOf(a.id, s.subAgentName),
        complianceScore: s.score,
        complianceChecks: s.checks,
      })),
      sessions: own.map((s) => ({
        id: s.id,
        subAgentName: s.sub_agent_name,
        status: s.status,
        startedAt: s.started_at,
        ticketKey: key(s.number),
      })),
    };
  });
}

/** The project's agents for a filter menu (the ledger feed's), by name; one query. */
export async function agentOptions(ctx: ServiceCtx, member: DashboardMember) {
  return await ctx.db.selectFrom("agents").select(["id", "name"]).where("project_id", "=", member.project.id)
    .orderBy("name").limit(AGENTS_SHOWN).execute();
}
