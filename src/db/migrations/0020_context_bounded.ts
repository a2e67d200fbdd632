import type { Kysely } from "kysely";
import { runStatements } from "./run-statements.ts";

/**
 * GET /context bounded by the caller's work, not by the project's history (issue 12), found with
 * `scripts/bench/explain-context.ts` on the bench's large project (10,000 tickets, 100,000 entries):
 *
 * - The caller's last agent-written entry (`meta.context` silence, read by the admission statement of
 *   every authenticated call). Written `ORDER BY seq DESC LIMIT 1`, it let the planner walk the whole
 *   ledger backwards by `seq` (the unique index) when the agent comes from the admission's token row
 *   (an estimate of some 4,000 entries per agent): 13 to 43 ms for an agent without entries. It now
 *   reads `max(created_at)` as the LEDGER_STALE gate does, which only an index on the agent provides:
 *   0.05 ms; this one includes sub_agent_name, for both. It replaces `ledger_agent_seq_idx` (0018).
 * - Stale tickets (in progress, silent for 30 minutes, longest silent first): ordered by the
 *   expression, the first 20 are read from the index instead of sorting every in-progress ticket.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, [
    `CREATE INDEX ledger_agent_last_idx ON ledger_entries (agent_id, created_at DESC)
      INCLUDE (sub_agent_name) WHERE source = 'agent'`,
    `DROP INDEX ledger_agent_seq_idx`,
    `CREATE INDEX tickets_stale_idx ON tickets
      (project_id, (greatest(status_changed_at, coalesce(last_ledger_at, status_changed_at))), id)
      WHERE status = 'in_progress'`,
  ]);
}
