import type { Kysely } from "kysely";
import { runStatements } from "./run-statements.ts";

/**
 * Performance of the dashboard on a large project (issue 14) and of the silence lookups (issue 12).
 *
 * An identity's last own ledger entry is now `max(created_at)` (as the LEDGER_STALE gate reads it): for an
 * agent itself `ledger_agent_idx (agent_id, created_at DESC)` serves it; a sub-agent gets its own index,
 * so that its lookup does not walk its parent's entries. 0018's `(agent_id, seq DESC)` index served the
 * former `ORDER BY seq DESC LIMIT 1`, which the planner preferred to answer by walking the whole ledger
 * backwards by `seq` (650 ms on the agents page of the bench's large project); nothing reads it now.
 *
 * The dashboard's threads list (open first, latest message first, then newest) pages from an index in
 * its own order, instead of joining and sorting every thread of the project.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, [
    `DROP INDEX ledger_agent_seq_idx`,
    `CREATE INDEX ledger_sub_agent_time_idx ON ledger_entries (agent_id, sub_agent_name, created_at DESC)
      WHERE source = 'agent' AND sub_agent_name IS NOT NULL`,
    `CREATE INDEX threads_dashboard_order_idx ON threads
      (project_id, status DESC, last_message_at DESC NULLS LAST, created_at DESC)`,
  ]);
}
