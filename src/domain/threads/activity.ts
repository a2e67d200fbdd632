import type { Trx } from "@/db/database.ts";
import { recordEvent } from "@/domain/core/record-event.ts";
import { writeSystemEntry } from "@/domain/core/system-entry.ts";
import { excerpt } from "@/domain/core/thread-serialize.ts";

export interface ThreadActivity {
  projectId: string;
  threadId: string;
  ticketId: string | null;
  intent: string;
  agentId: string;
  subAgentName: string | null;
  sessionId: string | null;
  /** Event kind: thread.opened, thread.replied, thread.closed, thread.reopened, thread.updated. */
  kind: string;
  /** One line for the ledger, after the `Thread "<intent>"` prefix. */
  line: string;
  data: Record<string, unknown>;
  now: Date;
}

/**
 * Records thread activity: a system `CONTEXT` ledger entry linked to the thread (and its ticket), and
 * the `thread.*` event. Intent-only edits record the event but no ledger entry.
 */
export async function recordThreadActivity(trx: Trx, input: ThreadActivity): Promise<void> {
  if (input.kind !== "thread.updated") {
    await writeSystemEntry(trx, {
      projectId: input.projectId,
      type: "CONTEXT",
      content: `Thread "${excerpt(input.intent, 120)}": ${input.line}`,
      agentId: input.agentId,
      subAgentName: input.subAgentName,
      sessionId: input.sessionId,
      ticketId: input.ticketId,
      threadId: input.threadId,
      payload: { event: input.kind, threadId: input.threadId, ...input.data },
      now: input.now,
    });
  }
  await recordEvent(trx, {
    projectId: input.projectId,
    kind: input.kind,
    entityType: "thread",
    entityId: input.threadId,
    agentId: input.agentId,
    data: { ...input.data, ticketId: input.ticketId },
    now: input.now,
  });
}
