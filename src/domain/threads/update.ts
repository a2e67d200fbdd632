import type { z } from "zod";
import type { ThreadPatchBody } from "@/contracts/threads.ts";
import { actorDisplayName } from "@/domain/core/actor.ts";
import type { ActorCtx } from "@/domain/core/context.ts";
import { fail } from "@/domain/core/errors.ts";
import { recordThreadActivity } from "./activity.ts";
import { closeOpenThreads } from "./close.ts";
import { assertThreadsEnabled, chargeThreadAction } from "./guard.ts";

/** PATCH /thread/{threadId}'s body, as the route has parsed it. */
export type ThreadPatchInput = z.output<typeof ThreadPatchBody>;

/**
 * PATCH /thread/{threadId}. `status: closed` closes without recording an outcome (a close, budgeted as
 * one); `status: open` reopens a closed thread and clears its outcome and closedAt; a status the thread
 * already has is a no-op. `intent` is renamed in the same transaction. Unknown: 404 THREAD_NOT_FOUND.
 */
export async function patchThread(ctx: ActorCtx, threadId: string, input: ThreadPatchInput) {
  const { actor } = ctx;
  await assertThreadsEnabled(ctx.db, actor.projectId);
  const now = ctx.clock.now();
  if (input.status === "closed") await chargeThreadAction(ctx.db, actor, "close", now);
  return await ctx.db.transaction().execute(async (trx) => {
    const thread = await trx.selectFrom("threads").select(["id", "status", "intent", "ticket_id"])
      .where("id", "=", threadId).where("project_id", "=", actor.projectId).forUpdate().executeTakeFirst();
    if (!thread) {
      throw fail.notFound(`No thread "${threadId}" in this project`, { threadId }, "THREAD_NOT_FOUND");
    }
    const base = {
      projectId: actor.projectId,
      threadId,
      ticketId: thread.ticket_id,
      agentId: actor.agentId,
      subAgentName: actor.subAgentName,
      sessionId: actor.sessionId,
      now,
    };
    let intent = thread.intent;
    if (input.intent !== undefined && input.intent !== thread.intent) {
      await trx.updateTable("threads").set({ intent: input.intent }).where("id", "=", threadId).execute();
      await recordThreadActivity(trx, {
        ...base,
        intent: input.intent,
        kind: "thread.updated",
        line: "intent changed",
        data: { intent: input.intent, previousIntent: thread.intent },
      });
      intent = input.intent;
    }
    let status = thread.status;
    if (input.status === "closed" && thread.status === "open") {
      await closeOpenThreads(trx, ctx, { ids: [threadId] }, null, now);
      status = "closed";
    } else if (input.status === "open" && thread.status === "closed") {
      await trx.updateTable("threads").set({ status: "open", outcome: null, closed_at: null })
        .where("id", "=", threadId).execute();
      await recordThreadActivity(trx, {
        ...base,
        intent,
        kind: "thread.reopened",
        line: `reopened by ${actorDisplayName(actor)}`,
        data: {},
      });
      status = "open";
    }
    return { ok: true, intent, status };
  });
}
