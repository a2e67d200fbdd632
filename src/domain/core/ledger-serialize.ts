import type { z } from "zod";
import { identityName } from "@/domain/core/actor.ts";
import type { LedgerEntrySchema } from "@/contracts/ledger.ts";
import type { Selectable } from "kysely";
import type { LedgerEntriesTable } from "@/db/tables/work.ts";

export type LedgerRow = Selectable<LedgerEntriesTable> & { agent_name?: string | null };

/** A ledger entry as every surface returns it (GET /ledger, ticket detail): the contract's shape. */
export type LedgerEntry = z.infer<typeof LedgerEntrySchema>;

export function toLedgerEntry(row: LedgerRow): LedgerEntry {
  return {
    id: row.id,
    type: row.type,
    content: row.content,
    createdAt: row.created_at.toISOString(),
    source: row.source,
    audit: row.audit,
    agentId: row.agent_id,
    ...(row.agent_name !== undefined
      ? {
        agentName: identityName(row.agent_name, row.sub_agent_name),
      }
      : {}),
    subAgentName: row.sub_agent_name,
    sessionId: row.session_id,
    ticketId: row.ticket_id,
    threadId: row.thread_id,
    fileRef: row.file_ref,
    lineRef: row.line_ref,
    labels: row.labels ?? [],
    payload: row.payload ?? null,
    severity: row.severity,
    tokensUsed: row.tokens_used,
    activity: row.activity,
    envHealth: row.env_health ?? null,
    blockedByFile: row.blocked_by_file ?? null,
  };
}
