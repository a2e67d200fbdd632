import type { Trx } from "@/db/database.ts";
import { revokeSessionTokens } from "@/domain/auth/revoke.ts";
import { recordEvent } from "@/domain/core/record-event.ts";

export const OPEN_SESSION_STATUSES = ["active", "awaiting_input", "error"] as const;

export interface CloseSessionsInput {
  projectId: string;
  sessionIds: string[];
  status: "complete" | "canceled";
  /** The agent whose call closed them (events). */
  byAgentId: string | null;
  reason: string;
  now: Date;
}

/**
 * Closes the sessions that are still open (conditional update: a session closes once), revokes the
 * tokens bound to them and the sub-agent tokens minted from those, and records one event per session.
 * Returns the ids this call closed.
 */
export async function closeSessions(trx: Trx, input: CloseSessionsInput): Promise<string[]> {
  if (input.sessionIds.length === 0) return [];
  const closed = await trx.updateTable("sessions").set({ status: input.status, ended_at: input.now })
    .where("id", "in", input.sessionIds).where("status", "in", [...OPEN_SESSION_STATUSES])
    .returning(["id", "agent_id", "sub_agent_name"]).execute();
  const ids = closed.map((s) => s.id);
  await revokeSessionTokens(trx, ids, input.now);
  for (const session of closed) {
    await recordEvent(trx, {
      projectId: input.projectId,
      kind: input.status === "complete" ? "session.completed" : "session.canceled",
      entityType: "session",
      entityId: session.id,
      agentId: input.byAgentId,
      data: {
        sessionAgentId: session.agent_id,
        subAgentName: session.sub_agent_name,
        reason: input.reason,
      },
      now: input.now,
    });
  }
  return ids;
}
