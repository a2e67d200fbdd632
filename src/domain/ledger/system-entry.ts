import type { Trx } from "@/db/database.ts";
import type { LedgerType } from "@/db/tables/work.ts";
import { toJson } from "@/db/tables/types.ts";
import { recordEvent } from "@/domain/events/record.ts";

export interface SystemEntryInput {
  projectId: string;
  type: LedgerType;
  content: string;
  agentId: string | null;
  subAgentName?: string | null;
  sessionId?: string | null;
  ticketId?: string | null;
  threadId?: string | null;
  fileRef?: string | null | undefined;
  payload?: Record<string, unknown> | null;
  now: Date;
  /**
   * `system` (default): the service's own record. `agent`: an entry in the agent's own voice that the
   * service writes from what the agent sent (handoff summary, diffStat, classified tool results).
   */
  source?: "system" | "agent";
}

/** Writes a ledger entry on the service's behalf (`source: system` unless told), with its event. */
export async function writeSystemEntry(trx: Trx, input: SystemEntryInput): Promise<string> {
  const source = input.source ?? "system";
  const id = crypto.randomUUID();
  await trx.insertInto("ledger_entries").values({
    id,
    project_id: input.projectId,
    type: input.type,
    content: input.content,
    source,
    agent_id: input.agentId,
    sub_agent_name: input.subAgentName ?? null,
    session_id: input.sessionId ?? null,
    ticket_id: input.ticketId ?? null,
    thread_id: input.threadId ?? null,
    file_ref: input.fileRef ?? null,
    payload: input.payload ? toJson(input.payload) : null,
    created_at: input.now,
  }).execute();
  await recordEvent(trx, {
    projectId: input.projectId,
    kind: "ledger.appended",
    entityType: "ledger_entry",
    entityId: id,
    agentId: input.agentId,
    data: { type: input.type, ticketId: input.ticketId ?? null, source },
    now: input.now,
  });
  return id;
}
