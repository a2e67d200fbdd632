import { sql } from "kysely";
import type { DbOrTrx } from "@/db/database.ts";
import { STALE_TICKET_MS, type StaleTicket } from "@/domain/ledger/stale.ts";

interface StaleRow {
  id: string;
  number: number;
  title: string;
  assignee_agent_id: string | null;
  sub_agent_name: string | null;
  last_entry: Date | string | null;
  since: Date | string;
}

/**
 * The `staleTickets` of domain/ledger/stale.ts (same rule, same rows: in-progress tickets whose latest
 * ledger entry, or their move to in_progress when later, is 30 minutes old or more; longest silent
 * first), bounded for context: only the first `limit`, with one index-only probe per in-progress ticket
 * and table reads for the rows returned only. The unbounded version reads every in-progress ticket.
 * MATERIALIZED: computed once per candidate, not once per reference to `last_entry`.
 */
export async function staleTicketsTop(
  db: DbOrTrx,
  projectId: string,
  prefix: string,
  now: Date,
  limit = 20,
): Promise<StaleTicket[]> {
  const cutoff = new Date(now.getTime() - STALE_TICKET_MS);
  const result = await sql<StaleRow>`
    WITH cand AS MATERIALIZED (
      SELECT t.id, t.status_changed_at,
        (SELECT max(l.created_at) FROM ledger_entries l WHERE l.ticket_id = t.id) AS last_entry
      FROM tickets t
      WHERE t.project_id = ${projectId} AND t.status = 'in_progress' AND t.status_changed_at <= ${cutoff}
    ), stale AS (
      SELECT id, last_entry, greatest(status_changed_at, coalesce(last_entry, status_changed_at)) AS since
      FROM cand WHERE last_entry IS NULL OR last_entry <= ${cutoff}
      ORDER BY since, id LIMIT ${limit}
    )
    SELECT s.id, s.last_entry, s.since, t.number, t.title, t.assignee_agent_id, t.sub_agent_name
    FROM stale s JOIN tickets t ON t.id = s.id ORDER BY s.since, s.id`.execute(db);
  return result.rows.map((r) => {
    const since = new Date(r.since);
    return {
      ticketId: r.id,
      ticketRef: `${prefix}-${r.number}`,
      title: r.title,
      assigneeAgentId: r.assignee_agent_id,
      subAgentName: r.sub_agent_name,
      lastEntryAt: r.last_entry ? new Date(r.last_entry).toISOString() : null,
      minutesSilent: Math.floor((now.getTime() - since.getTime()) / 60_000),
    };
  });
}
