import type { ActorCtx } from "@/domain/core/context.ts";
import { fail } from "@/domain/core/errors.ts";
import { assertThreadsEnabled } from "./guard.ts";
import { loadThread } from "@/domain/core/thread-serialize.ts";

/** GET /thread/{threadId}: the thread with its messages oldest first; another project's thread is unknown. */
export async function getThread(ctx: ActorCtx, threadId: string) {
  await assertThreadsEnabled(ctx.db, ctx.actor.projectId);
  const thread = await loadThread(ctx.db, ctx.actor.projectId, threadId);
  if (!thread) {
    throw fail.notFound(`No thread "${threadId}" in this project`, { threadId }, "THREAD_NOT_FOUND");
  }
  return thread;
}
