import type { ReviewMode } from "@/shared/vocabulary.ts";
import { type RawBuilder, sql } from "kysely";
import type { DbOrTrx } from "@/db/database.ts";
import { type ComplianceCheck, complianceChecksOf, complianceScoreOf } from "@/domain/context/assemble.ts";
import { criteriaAckRequired } from "@/domain/core/transitions.ts";
import { ACTIVE_STATUSES, SESSION_OPEN } from "@/domain/context/load.ts";
import { situationColumns, situationOf } from "@/domain/core/silence.ts";
import { sameSubAgent } from "@/domain/core/sub-agent-sql.ts";

/** One identity (an agent, or one of its sub-agents) with the compliance score GET /context would give it. */
export interface IdentityCompliance {
  agentId: string;
  /** Null for the agent itself. */
  subAgentName: string | null;
  /** The sub-agent's role (null for the agent itself). */
  role: string | null;
  score: number;
  /** The graded habits behind the score, so the page can say what counts and how to raise it. */
  checks: ComplianceCheck[];
}

interface Row {
  agent_id: string;
  sub_agent_name: string | null;
  role: string | null;
  session: { report: Record<string, unknown> | null } | string | null;
  own_expired: number;
  active_id: string | null;
  active_ack: boolean | null;
  tested: boolean | null;
}

/**
 * The inputs of `complianceScoreOf` for the identities `from` lists (columns agent_id, sub_agent_name,
 * role): the situation of the meta.context statement, the newest open session, the identity's own expired
 * claimed files. `sub` is null for agents, a column reference for sub-agents.
 */
function identityColumns(
  projectId: string,
  sub: RawBuilder<unknown> | null,
  now: Date,
  from: RawBuilder<unknown>,
) {
  const agent = sql.ref("i.agent_id");
  const open = sql.join(SESSION_OPEN.map((s) => sql.lit(s)));
  return sql`SELECT i.agent_id, i.sub_agent_name, i.role, ${situationColumns(agent, projectId, sub, now)},
      (SELECT jsonb_build_object('report', s.report) FROM sessions s WHERE s.agent_id = ${agent}
        AND ${sameSubAgent("s.sub_agent_name", sub)} AND s.status IN (${open})
        ORDER BY s.started_at DESC LIMIT 1) AS session,
      (SELECT count(*)::int FROM claims c JOIN claim_files f ON f.claim_id = c.id
        WHERE c.agent_id = ${agent} AND ${sameSubAgent("c.sub_agent_name", sub)} AND c.released_at IS NULL
          AND c.expires_at <= ${now} AND f.project_id = ${projectId} AND f.released_at IS NULL) AS own_expired
    FROM ${from}`;
}

/**
 * The compliance score of every listed agent of the project (the first `agentLimit` by status and name,
 * as the agents page lists them) and of each of their live sub-agents, in ONE statement: each identity's
 * inputs are index lookups, then graded by `complianceScoreOf`, the rule GET /context applies to its
 * caller. The active ticket is chosen as GET /context chooses it; the session is the identity's newest
 * open one (GET /context grades the caller's own session).
 */
export async function complianceScores(
  db: DbOrTrx,
  project: { id: string; reviewMode: ReviewMode },
  now: Date,
  agentLimit: number,
): Promise<IdentityCompliance[]> {
  const p = project.id;
  const agents = sql`(SELECT id AS agent_id, NULL::text AS sub_agent_name, NULL::text AS role FROM agents
    WHERE project_id = ${p} ORDER BY status, name LIMIT ${agentLimit}) i`;
  const subs = sql`(SELECT parent_agent_id AS agent_id, name AS sub_agent_name, role::text AS role
    FROM sub_agents WHERE project_id = ${p} AND revoked_at IS NULL) i`;
  const active = sql.join(ACTIVE_STATUSES.map((s) => sql.lit(s)));
  const result = await sql<Row & Record<string, unknown>>`SELECT x.*, at.id AS active_id,
      at.criteria_acknowledged_at IS NOT NULL AS active_ack,
      EXISTS (SELECT 1 FROM ledger_entries l WHERE l.ticket_id = at.id
        AND l.type IN ('TESTED', 'VERIFIED')) AS tested
    FROM (${identityColumns(p, null, now, agents)}
      UNION ALL ${identityColumns(p, sql.ref("i.sub_agent_name"), now, subs)}) x
    LEFT JOIN LATERAL (SELECT t.id, t.criteria_acknowledged_at FROM tickets t
      WHERE t.assignee_agent_id = x.agent_id AND t.project_id = ${p} AND t.status IN (${active})
      ORDER BY (t.sub_agent_name IS NOT DISTINCT FROM x.sub_agent_name) DESC, (t.status = 'in_progress') DESC,
        t.status_changed_at DESC
      LIMIT 1) at ON true`.execute(db);
  const ackRequired = criteriaAckRequired(project.reviewMode);
  return result.rows.map((r) => {
    const session = typeof r.session === "string" ? JSON.parse(r.session) : r.session;
    const inputs = {
      situation: situationOf(r, now),
      session: session ?? undefined,
      activeTicket: r.active_id ? { criteriaAcknowledged: r.active_ack === true } : null,
      hasTestedEntry: r.tested === true,
      ownExpiredClaims: Number(r.own_expired),
      criteriaAckRequired: ackRequired,
    };
    return {
      agentId: r.agent_id,
      subAgentName: r.sub_agent_name,
      role: r.role,
      score: complianceScoreOf(inputs),
      checks: complianceChecksOf(inputs),
    };
  });
}
