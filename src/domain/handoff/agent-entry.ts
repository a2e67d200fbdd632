import type { Trx } from "@/db/database.ts";
import type { LedgerType } from "@/db/tables/work.ts";
import { toJson } from "@/db/tables/types.ts";
import { recordEvent } from "@/domain/events/record.ts";

export interface AgentEntryInput {
  projectId: string;
  type: LedgerType;
  content: string;
  agentId: string;
  subAgentName: string | null;
  sessionId: string;
  ticketId: string | null;
  payload?: Record<string, unknown> | null;
  now: Date;
}

/**
 * A ledger entry in the agent's own voice (`source: agent`), written by the service from what the
 * agent sent (handoff summary, diffStat, classified tool results), with its event.
 */
export async function writeAgentEntry(trx: Trx, input: AgentEntryInput): Promise<string> {
  const id = crypto.randomUUID();
  await trx.insertInto("ledger_entries").values({
    id,
    project_id: input.projectId,
    type: input.type,
    content: input.content,
    source: "agent",
    agent_id: input.agentId,
    sub_agent_name: input.subAgentName,
    session_id: input.sessionId,
    ticket_id: input.ticketId,
    thread_id: null,
    file_ref: null,
    payload: input.payload ? toJson(input.payload) : null,
    created_at: input.now,
  }).execute();
  await recordEvent(trx, {
    projectId: input.projectId,
    kind: "ledger.appended",
    entityType: "ledger_entry",
    entityId: id,
    agentId: input.agentId,
    data: { type: input.type, ticketId: input.ticketId, source: "agent" },
    now: input.now,
  });
  return id;
}
