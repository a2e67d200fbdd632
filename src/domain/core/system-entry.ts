import { type RawBuilder, sql } from "kysely";
import type { Trx } from "@/db/database.ts";
import type { LedgerType } from "@/db/tables/work.ts";
import { toJson } from "@/db/tables/types.ts";
import { type EventInput, recordEvent } from "@/domain/core/record-event.ts";

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
  const id = crypto.randomUUID();
  await trx.insertInto("ledger_entries").values(systemEntryRow(id, input)).execute();
  await recordEvent(trx, systemEntryEvent(id, input));
  return id;
}

/** The row of a system entry (to insert alone or inside a larger statement). */
export function systemEntryRow(id: string, input: SystemEntryInput) {
  return {
    id,
    project_id: input.projectId,
    type: input.type,
    content: input.content,
    source: input.source ?? "system",
    agent_id: input.agentId,
    sub_agent_name: input.subAgentName ?? null,
    session_id: input.sessionId ?? null,
    ticket_id: input.ticketId ?? null,
    thread_id: input.threadId ?? null,
    file_ref: input.fileRef ?? null,
    payload: input.payload ? toJson(input.payload) : null,
    created_at: input.now,
  };
}

/** The `ledger.appended` event of a system entry. */
export function systemEntryEvent(id: string, input: SystemEntryInput): EventInput {
  return {
    projectId: input.projectId,
    kind: "ledger.appended",
    entityType: "ledger_entry",
    entityId: id,
    agentId: input.agentId,
    data: { type: input.type, ticketId: input.ticketId ?? null, source: input.source ?? "system" },
    now: input.now,
  };
}

/**
 * A CTE body that locks the ticket row of an entry written by a larger statement, to list in
 * `eventCtes`' `after`. The ledger trigger (migration 0011) updates that row at the END of the statement,
 * after the event counter row is locked; every transaction takes the ticket first and the counter last
 * (a move and its event), so without this lock two writers could take the two rows in opposite orders.
 */
export function lockEntryTicket(ticketId: string | null | RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`SELECT id FROM tickets WHERE id = (${ticketId})::uuid FOR NO KEY UPDATE`;
}

/** `lockEntryTicket` for a statement that writes several entries: the ticket rows of `ticketIds` (a query), in id order. */
export function lockEntryTickets(ticketIds: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`SELECT id FROM tickets WHERE id IN (${ticketIds}) ORDER BY id FOR NO KEY UPDATE`;
}
