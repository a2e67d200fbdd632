import type { Trx } from "@/db/database.ts";
import { lockProjectClaims } from "@/domain/core/claim-lock.ts";
import { releaseClaims } from "@/domain/claims/release.ts";
import { recordEvent } from "@/domain/core/record-event.ts";
import { writeSystemEntry } from "@/domain/core/system-entry.ts";
import { closeSessions, OPEN_SESSION_STATUSES } from "@/domain/sessions/close.ts";

export interface RevokeAgentInput {
  projectId: string;
  agentId: string;
  /** The agent whose call revokes (the dashboard user's agent); null for the operator. */
  byAgentId: string | null;
  /** Who revoked, for the ledger entry: `Ada from the dashboard`, `the operator`. */
  byLabel: string;
  /** `revoke_agent` payload source: `dashboard` or `operator`. */
  via: "dashboard" | "operator";
  now: Date;
}

/** What one revocation changed. */
export interface AgentRevocation {
  id: string;
  name: string;
  /** Every credential this call revoked (session, sub-agent and API key tokens), by kind. */
  revokedTokens: { id: string; kind: string }[];
  canceledSessionIds: string[];
  releasedFiles: string[];
  revokedSubAgents: number;
}

/**
 * Revokes an agent of the project inside the caller's transaction: status `revoked`, every live
 * credential revoked (keys, session, sub-agent and refresh tokens), its open sessions canceled, its
 * claims released and its sub-agents unregistered, with an `ALERT` ledger entry and `agent.revoked`.
 * Every credential check reads these rows on each request, so every instance refuses them at once.
 * Answers null when the project has no such agent or it is already revoked (the caller decides).
 */
export async function revokeAgentIn(trx: Trx, input: RevokeAgentInput): Promise<AgentRevocation | null> {
  const { projectId, now } = input;
  // First: the revocation releases claims and grants waiters (one lock order with the wait queue).
  await lockProjectClaims(trx, projectId);
  const agent = await trx.updateTable("agents").set({ status: "revoked" })
    .where("id", "=", input.agentId).where("project_id", "=", projectId)
    .where("status", "!=", "revoked").returning(["id", "name"]).executeTakeFirst();
  if (!agent) return null;
  const live = await trx.selectFrom("tokens").select(["id", "kind"]).where("agent_id", "=", agent.id)
    .where("revoked_at", "is", null).execute();
  const open = await trx.selectFrom("sessions").select("id").where("agent_id", "=", agent.id)
    .where("status", "in", [...OPEN_SESSION_STATUSES]).execute();
  const canceled = await closeSessions(trx, {
    projectId,
    sessionIds: open.map((s) => s.id),
    status: "canceled",
    byAgentId: input.byAgentId,
    reason: "agent_revoked",
    now,
  });
  await trx.updateTable("tokens").set({ revoked_at: now }).where("agent_id", "=", agent.id)
    .where("revoked_at", "is", null).execute();
  const subAgents = await trx.updateTable("sub_agents").set({ revoked_at: now })
    .where("parent_agent_id", "=", agent.id).where("revoked_at", "is", null).returning("id").execute();
  // One release of the agent's and its sub-agents' claims: an entry per holder, one claim.released.
  const releasedFiles = await releaseClaims(trx, {
    projectId,
    agentId: agent.id,
    withSubAgents: true,
    all: true,
    now,
  });
  await writeSystemEntry(trx, {
    projectId,
    type: "ALERT",
    content: `Agent ${agent.name} was revoked by ${input.byLabel}`,
    agentId: input.byAgentId,
    subAgentName: null,
    sessionId: null,
    ticketId: null,
    fileRef: null,
    payload: { action: "revoke_agent", agentId: agent.id, via: input.via },
    now,
  });
  await recordEvent(trx, {
    projectId,
    kind: "agent.revoked",
    entityType: "agent",
    entityId: agent.id,
    agentId: input.byAgentId,
    data: { name: agent.name, revokedTokens: live.length, via: input.via },
    now,
  });
  return {
    id: agent.id,
    name: agent.name,
    revokedTokens: live.map((t) => ({ id: t.id, kind: t.kind })),
    canceledSessionIds: canceled,
    releasedFiles,
    revokedSubAgents: subAgents.length,
  };
}
