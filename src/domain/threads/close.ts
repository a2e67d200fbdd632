import type { Trx } from "@/db/database.ts";
import { actorDisplayName } from "@/domain/core/actor.ts";
import type { ActorCtx } from "@/domain/core/context.ts";
import { DomainError } from "@/domain/core/errors.ts";
import { recordThreadActivity } from "./activity.ts";
import { assertThreadsEnabled, chargeThreadAction } from "./guard.ts";
import { excerpt } from "@/domain/core/thread-serialize.ts";

/**
 * POST /thread/{threadId}/close: records the outcome and closes an open thread. The close is a
 * conditional UPDATE (`status = 'open'`), so of two racing closes one records its outcome and the other
 * answers the same success; closing a closed thread changes nothing and answers `{ ok: true }`.
 * Unknown thread: 404 INVALID.
 */
export async function closeThread(ctx: ActorCtx, threadId: string, input: { outcome: string }) {
  const { actor } = ctx;
  await assertThreadsEnabled(ctx.db, actor.projectId);
  const now = ctx.clock.now();
  await chargeThreadAction(ctx.db, actor, "close", now);
  await ctx.db.transaction().execute(async (trx) => {
    const closed = await closeOpenThreads(trx, ctx, { ids: [threadId] }, input.outcome, now);
    if (closed.length > 0) return;
    const exists = await trx.selectFrom("threads").select("id").where("id", "=", threadId)
      .where("project_id", "=", actor.projectId).executeTakeFirst();
    if (!exists) {
      throw new DomainError("not_found", "INVALID", `Cannot close: no thread "${threadId}" in this project`, {
        threadId,
      });
    }
  });
  return { ok: true as const };
}

export interface ThreadFilter {
  ids?: string[];
  agentId?: string;
  subAgentName?: string;
}

/**
 * Closes the project's open threads matching `filter` (outcome null closes without one) and records
 * each close. Returns the closed threads.
 */
export async function closeOpenThreads(
  trx: Trx,
  ctx: ActorCtx,
  filter: ThreadFilter,
  outcome: string | null,
  now: Date,
) {
  const { actor } = ctx;
  let query = trx.updateTable("threads")
    .set({ status: "closed", outcome, closed_at: now })
    .where("project_id", "=", actor.projectId)
    .where("status", "=", "open");
  if (filter.ids) query = query.where("id", "in", filter.ids);
  if (filter.agentId) query = query.where("agent_id", "=", filter.agentId);
  if (filter.subAgentName) query = query.where("sub_agent_name", "=", filter.subAgentName);
  const closed = await query.returning(["id", "intent", "ticket_id"]).execute();
  closed.sort((a, b) => a.id.localeCompare(b.id));
  for (const thread of closed) {
    await recordThreadActivity(trx, {
      projectId: actor.projectId,
      threadId: thread.id,
      ticketId: thread.ticket_id,
      intent: thread.intent,
      agentId: actor.agentId,
      subAgentName: actor.subAgentName,
      sessionId: actor.sessionId,
      kind: "thread.closed",
      line: outcome === null
        ? `closed by ${actorDisplayName(actor)} (no outcome)`
        : `closed by ${actorDisplayName(actor)}: ${excerpt(outcome)}`,
      data: { outcome },
      now,
    });
  }
  return closed;
}
