import type { z } from "zod";
import type { ThreadOpenBody } from "@/contracts/threads.ts";
import type { Trx } from "@/db/database.ts";
import { toJson } from "@/db/tables/types.ts";
import type { ActorCtx } from "@/domain/core/context.ts";
import { resolveTicketRef } from "@/domain/core/ticket-refs.ts";
import { recordThreadActivity } from "./activity.ts";
import { assertThreadsEnabled, chargeThreadAction } from "./guard.ts";

/** POST /thread's body, as the route has parsed it. */
export type OpenThreadInput = z.output<typeof ThreadOpenBody>;

/** POST /thread: opens a thread (status `open`) with its CONTEXT ledger entry and event. */
export async function openThread(ctx: ActorCtx, input: OpenThreadInput) {
  const { actor } = ctx;
  await assertThreadsEnabled(ctx.db, actor.projectId);
  const now = ctx.clock.now();
  await chargeThreadAction(ctx.db, actor, "open", now);
  const ticketId = input.ticketId ? await resolveTicketRef(ctx.db, actor.projectId, input.ticketId) : null;
  return await ctx.db.transaction().execute((trx) =>
    insertThread(trx, {
      projectId: actor.projectId,
      agentId: actor.agentId,
      subAgentName: actor.subAgentName,
      sessionId: actor.sessionId,
      intent: input.intent,
      expectedFiles: [...new Set(input.expectedFiles ?? [])],
      ticketId,
      blockedByFile: null,
      now,
    })
  );
}

export interface InsertThreadInput {
  projectId: string;
  agentId: string;
  subAgentName: string | null;
  sessionId: string | null;
  intent: string;
  expectedFiles: string[];
  ticketId: string | null;
  /** Set when the service opens the thread for a BLOCKED ledger entry's `blockedByFile`. */
  blockedByFile: string | null;
  now: Date;
}

/**
 * Inserts an open thread inside the caller's transaction, with its ledger entry and event. Other areas
 * (a BLOCKED ledger entry with `blockedByFile`) open threads through this too.
 */
export async function insertThread(trx: Trx, input: InsertThreadInput) {
  const id = crypto.randomUUID();
  await trx.insertInto("threads").values({
    id,
    project_id: input.projectId,
    agent_id: input.agentId,
    sub_agent_name: input.subAgentName,
    intent: input.intent,
    expected_files: toJson(input.expectedFiles),
    ticket_id: input.ticketId,
    status: "open",
    outcome: null,
    blocked_by_file: input.blockedByFile,
    created_at: input.now,
    closed_at: null,
    last_message_at: null,
  }).execute();
  await recordThreadActivity(trx, {
    projectId: input.projectId,
    threadId: id,
    ticketId: input.ticketId,
    intent: input.intent,
    agentId: input.agentId,
    subAgentName: input.subAgentName,
    sessionId: input.sessionId,
    kind: "thread.opened",
    line: input.expectedFiles.length > 0
      ? `opened about ${input.expectedFiles.slice(0, 5).join(", ")}${
        input.expectedFiles.length > 5 ? ", ..." : ""
      }`
      : "opened",
    data: { expectedFiles: input.expectedFiles, blockedByFile: input.blockedByFile },
    now: input.now,
  });
  return { id, createdAt: input.now.toISOString() };
}
