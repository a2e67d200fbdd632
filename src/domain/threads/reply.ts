import { actorDisplayName } from "@/domain/core/actor.ts";
import type { ActorCtx } from "@/domain/core/context.ts";
import { DomainError, recovery } from "@/domain/core/errors.ts";
import { recordThreadActivity } from "./activity.ts";
import { assertThreadsEnabled, chargeThreadAction } from "./guard.ts";
import { notifyMentions } from "./mentions.ts";
import { excerpt } from "@/domain/core/thread-serialize.ts";

/**
 * POST /thread/{threadId}/reply. The message is inserted only while the thread is open: the thread row
 * is locked and re-checked in the same transaction, so a reply racing a close never lands on a closed
 * thread. Unknown thread: 404 INVALID; closed: 422 INVALID.
 */
export async function replyToThread(ctx: ActorCtx, threadId: string, input: { content: string }) {
  const { actor } = ctx;
  await assertThreadsEnabled(ctx.db, actor.projectId);
  const now = ctx.clock.now();
  await chargeThreadAction(ctx.db, actor, "reply", now);
  return await ctx.db.transaction().execute(async (trx) => {
    const thread = await trx.selectFrom("threads").select(["id", "status", "intent", "ticket_id"])
      .where("id", "=", threadId).where("project_id", "=", actor.projectId)
      .forUpdate().executeTakeFirst();
    if (!thread) {
      throw new DomainError("not_found", "INVALID", `Cannot reply: no thread "${threadId}" in this project`, {
        threadId,
      });
    }
    if (thread.status === "closed") {
      throw new DomainError("unprocessable", "INVALID", "Cannot reply to a closed thread; reopen it first", {
        threadId,
        status: "closed",
        // Reopening is the thread's one valid transition out of closed (THREAD-008).
        recovery: recovery(
          "USE_VALID_TRANSITION",
          `PATCH /thread/${threadId}`,
          "The thread is closed: reopen it with PATCH /thread/{threadId} and status open, then send the reply again",
          { status: "open" },
        ),
      });
    }
    const id = crypto.randomUUID();
    await trx.insertInto("thread_messages").values({
      id,
      thread_id: threadId,
      author_type: "agent",
      author_id: actor.agentId,
      author_name: actor.agentName,
      sub_agent_name: actor.subAgentName,
      content: input.content,
      created_at: now,
    }).execute();
    await trx.updateTable("threads").set({ last_message_at: now }).where("id", "=", threadId).execute();
    const notified = await notifyMentions(trx, {
      projectId: actor.projectId,
      threadId,
      messageId: id,
      intent: thread.intent,
      authorAgentId: actor.agentId,
      authorName: actorDisplayName(actor),
      content: input.content,
      now,
    });
    await recordThreadActivity(trx, {
      projectId: actor.projectId,
      threadId,
      ticketId: thread.ticket_id,
      intent: thread.intent,
      agentId: actor.agentId,
      subAgentName: actor.subAgentName,
      sessionId: actor.sessionId,
      kind: "thread.replied",
      line: `${actorDisplayName(actor)} replied: ${excerpt(input.content)}`,
      data: { messageId: id, mentionedAgentIds: notified.agentIds, mentionedUserIds: notified.userIds },
      now,
    });
    return { id, createdAt: now.toISOString() };
  });
}
