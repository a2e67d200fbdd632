import type { Kysely } from "kysely";
import { runStatements } from "./run-statements.ts";

/**
 * GET /context bounded by the caller's work, not by the project's history (issue 12), found with
 * `scripts/bench/explain-context.ts` on the bench's large project (10,000 tickets, 100,000 entries):
 *
 * - The caller's last agent-written entry (`meta.context` silence, read by the admission statement of
 *   every authenticated call) is `max(created_at)` as the LEDGER_STALE gate reads it, served by
 *   `ledger_agent_idx` and 0019's sub-agent index (an `ORDER BY seq DESC LIMIT 1` let the planner walk the
 *   whole ledger backwards by `seq`: 13 to 43 ms for an agent without entries; now about 0.1 ms). No
 *   further ledger index: each one costs every ledger insert.
 * - Stale tickets (in progress, silent for 30 minutes, longest silent first): ordered by the
 *   expression, the first 20 are read from the index instead of sorting every in-progress ticket.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, [
    `CREATE INDEX tickets_stale_idx ON tickets
      (project_id, (greatest(status_changed_at, coalesce(last_ledger_at, status_changed_at))), id)
      WHERE status = 'in_progress'`,
  ]);
}
