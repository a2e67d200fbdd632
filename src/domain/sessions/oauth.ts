import type { Trx } from "@/db/database.ts";
import type { Actor } from "@/domain/core/actor.ts";
import { OPEN_SESSION_STATUSES } from "./close.ts";
import { insertSession } from "./open.ts";

/**
 * The session of an OAuth caller's work. OAuth access tokens carry no session, yet the ledger and the
 * handoff need one ("sessionId, from begin"): POST /begin gives the caller its open OAuth session, or
 * opens one (source `oauth`). Other credentials keep the session of their token.
 */
export async function workSessionOf(trx: Trx, actor: Actor, now: Date): Promise<string | null> {
  if (actor.sessionId !== null || actor.kind !== "oauth") return actor.sessionId;
  const open = await trx.selectFrom("sessions").select("id").where("agent_id", "=", actor.agentId)
    .where("project_id", "=", actor.projectId).where("sub_agent_name", "is", null)
    .where("source", "=", "oauth").where("status", "in", [...OPEN_SESSION_STATUSES])
    .orderBy("started_at", "desc").limit(1).executeTakeFirst();
  if (open) return open.id;
  return await insertSession(trx, {
    projectId: actor.projectId,
    agentId: actor.agentId,
    subAgentName: null,
    source: "oauth",
    now,
  });
}
