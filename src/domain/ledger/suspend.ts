import type { Trx } from "@/db/database.ts";
import type { EventInput } from "@/domain/core/record-event.ts";
import type { Actor } from "@/domain/core/actor.ts";

/**
 * A critical ALERT takes the agent offline and revokes every live credential of it: API keys, session
 * tokens, sub-agent tokens and OAuth refresh tokens. (design) The whole agent is suspended, also
 * when one of its sub-agents raised the alert. Pairing again brings it back. Returns the
 * `agent.offline` event for the caller to record last.
 */
export async function takeAgentOffline(
  trx: Trx,
  actor: Actor,
  entryId: string,
  now: Date,
): Promise<EventInput> {
  await trx.updateTable("agents").set({ status: "offline" }).where("id", "=", actor.agentId)
    .where("status", "=", "active").execute();
  const revoked = await trx.updateTable("tokens").set({ revoked_at: now })
    .where("agent_id", "=", actor.agentId).where("revoked_at", "is", null).returning("id").execute();
  return {
    projectId: actor.projectId,
    kind: "agent.offline",
    entityType: "agent",
    entityId: actor.agentId,
    agentId: actor.agentId,
    data: { reason: "critical_alert", ledgerEntryId: entryId, revokedTokens: revoked.length },
    now,
  };
}
