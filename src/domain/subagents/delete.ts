import { revokeTokens } from "@/domain/auth/revoke.ts";
import { recordEvent } from "@/domain/core/record-event.ts";
import { writeSystemEntry } from "@/domain/core/system-entry.ts";
import { closeSessions, OPEN_SESSION_STATUSES } from "@/domain/sessions/close.ts";
import type { ActorCtx } from "@/domain/core/context.ts";
import { fail } from "@/domain/core/errors.ts";

/**
 * DELETE /subagent/session: unregisters the caller's sub-agent, revokes its tokens and completes its
 * open sessions. An unknown or already deleted name answers 404 NOT_FOUND.
 */
export async function deleteSubAgent(ctx: ActorCtx, name: string) {
  const { actor } = ctx;
  const now = ctx.clock.now();
  return await ctx.db.transaction().execute(async (trx) => {
    const unregistered = await trx.updateTable("sub_agents").set({ revoked_at: now })
      .where("parent_agent_id", "=", actor.agentId).where("name", "=", name).where("revoked_at", "is", null)
      .returning("id").executeTakeFirst();
    if (!unregistered) throw fail.notFound(`No registered sub-agent named "${name}"`);
    const tokens = await trx.selectFrom("tokens").select("id").where("agent_id", "=", actor.agentId)
      .where("kind", "=", "subagent").where("sub_agent_name", "=", name).where("revoked_at", "is", null)
      .execute();
    const revoked = await revokeTokens(trx, tokens.map((t) => t.id), now);
    const open = await trx.selectFrom("sessions").select("id").where("agent_id", "=", actor.agentId)
      .where("sub_agent_name", "=", name).where("status", "in", [...OPEN_SESSION_STATUSES]).execute();
    const completed = await closeSessions(trx, {
      projectId: actor.projectId,
      sessionIds: open.map((s) => s.id),
      status: "complete",
      byAgentId: actor.agentId,
      reason: "sub_agent_deleted",
      now,
    });
    await writeSystemEntry(trx, {
      projectId: actor.projectId,
      type: "AGENT_COMPLETED",
      content: `${actor.agentName} ended sub-agent ${name}`,
      agentId: actor.agentId,
      subAgentName: name,
      sessionId: completed[0] ?? null,
      payload: { name, completedSessionIds: completed, revokedTokens: revoked.length },
      now,
    });
    await recordEvent(trx, {
      projectId: actor.projectId,
      kind: "subagent.deleted",
      entityType: "sub_agent",
      entityId: unregistered.id,
      agentId: actor.agentId,
      data: { name, completedSessionIds: completed },
      now,
    });
    return { ok: true as const, name, completedSessionIds: completed, revokedTokens: revoked.length };
  });
}
