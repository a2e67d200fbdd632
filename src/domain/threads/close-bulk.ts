import type { z } from "zod";
import type { ThreadCloseBulkBody } from "@/contracts/threads.ts";
import { writeSystemEntry } from "@/domain/core/system-entry.ts";
import { actorDisplayName } from "@/domain/core/actor.ts";
import type { ActorCtx } from "@/domain/core/context.ts";
import { fail, recovery } from "@/domain/core/errors.ts";
import { closeOpenThreads, type ThreadFilter } from "./close.ts";
import { assertThreadsEnabled, chargeThreadAction } from "./guard.ts";
import { excerpt } from "@/domain/core/thread-serialize.ts";

/** POST /thread/close-bulk's body, as the route has parsed it. */
export type CloseBulkInput = z.output<typeof ThreadCloseBulkBody>;

/** More closes than this in one call leave an ALERT in the ledger (THREAD-039). */
export const BULK_ALERT_THRESHOLD = 5;

/**
 * POST /thread/close-bulk. Filters combine (AND): `mine` (threads you opened; for a sub-agent, the ones
 * that sub-agent opened), `agentId`, `subAgentName`. Non-orchestrators must scope to themselves with
 * `mine: true` or their own `agentId` (403 SCOPE_BULK_CLOSE otherwise); orchestrators may pass any
 * filter or none (every open thread of the project). One UPDATE closes them all in one transaction.
 */
export async function closeThreadsBulk(ctx: ActorCtx, input: CloseBulkInput) {
  const { actor } = ctx;
  await assertThreadsEnabled(ctx.db, actor.projectId);
  const orchestrator = actor.role === "orchestrator";
  const ownId = input.agentId === undefined || input.agentId.toLowerCase() === actor.agentId;
  const scoped = input.mine === true || (input.agentId !== undefined && ownId);
  if (!orchestrator && (!scoped || !ownId)) {
    throw fail.forbidden(
      input.agentId !== undefined && !ownId
        ? "Only orchestrators may bulk-close another agent's threads"
        : "Scope a bulk close to your own threads with mine: true (or your own agentId)",
      {
        recovery: recovery(
          "SCOPE_BULK_CLOSE",
          "POST /thread/close-bulk",
          "Send mine: true to close only the threads you opened",
          { outcome: "<outcome>", mine: true },
        ),
      },
    );
  }
  const now = ctx.clock.now();
  await chargeThreadAction(ctx.db, actor, "close", now);
  const filter: ThreadFilter = {};
  if (input.mine) {
    filter.agentId = actor.agentId;
    if (actor.subAgentName) filter.subAgentName = actor.subAgentName;
  }
  if (input.agentId !== undefined) {
    if (filter.agentId && filter.agentId !== input.agentId.toLowerCase()) return { closed: 0, threadIds: [] };
    filter.agentId = input.agentId.toLowerCase();
  }
  if (input.subAgentName !== undefined) {
    if (filter.subAgentName && filter.subAgentName !== input.subAgentName) {
      return { closed: 0, threadIds: [] };
    }
    filter.subAgentName = input.subAgentName;
  }
  return await ctx.db.transaction().execute(async (trx) => {
    const closed = await closeOpenThreads(trx, ctx, filter, input.outcome, now);
    const threadIds = closed.map((t) => t.id);
    if (closed.length > BULK_ALERT_THRESHOLD) {
      await writeSystemEntry(trx, {
        projectId: actor.projectId,
        type: "ALERT",
        content: `${actorDisplayName(actor)} bulk-closed ${closed.length} threads: ${excerpt(input.outcome)}`,
        agentId: actor.agentId,
        subAgentName: actor.subAgentName,
        sessionId: actor.sessionId,
        payload: {
          event: "thread.bulk_closed",
          closed: closed.length,
          threadIds,
          filter: {
            mine: input.mine ?? false,
            agentId: input.agentId ?? null,
            subAgentName: input.subAgentName ?? null,
          },
        },
        now,
      });
    }
    return { closed: closed.length, threadIds };
  });
}
