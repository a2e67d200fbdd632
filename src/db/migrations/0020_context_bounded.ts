import type { Kysely } from "kysely";
import { runStatements } from "./run-statements.ts";

/**
 * GET /context bounded by the caller's work, not by the project's history (issue 12), found with
 * `scripts/bench/explain-context.ts` on the bench's large project (10,000 tickets, 100,000 entries):
 *
 * - The caller's last agent-written entry (`meta.context` silence, read by the admission statement of
 *   every authenticated call: `WHERE agent_id = $1 AND sub_agent_name ... AND source = 'agent' ORDER BY
 *   seq DESC LIMIT 1`). Once the statement runs as a generic prepared plan, the planner estimates some
 *   4,000 entries per agent and walks the whole ledger backwards by `seq` (the unique index), finding
 *   nothing for an agent without entries: 13 to 35 ms per call. An index-only path (sub_agent_name and
 *   created_at included) costs less than that walk in the generic plan too: 0.03 ms. It replaces
 *   `ledger_agent_seq_idx` (0018), which has the same key.
 * - Stale tickets (in progress, silent for 30 minutes, longest silent first): ordered by the
 *   expression, the first 20 are read from the index instead of sorting every in-progress ticket.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, [
    `CREATE INDEX ledger_agent_last_idx ON ledger_entries (agent_id, seq DESC)
      INCLUDE (sub_agent_name, created_at) WHERE source = 'agent'`,
    `DROP INDEX ledger_agent_seq_idx`,
    `CREATE INDEX tickets_stale_idx ON tickets
      (project_id, (greatest(status_changed_at, coalesce(last_ledger_at, status_changed_at))), id)
      WHERE status = 'in_progress'`,
  ]);
}
