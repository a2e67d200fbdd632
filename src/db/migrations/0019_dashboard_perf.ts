import type { Kysely } from "kysely";
import { runStatements } from "./run-statements.ts";

/**
 * Performance of the dashboard on a large project (issue 14) and of the silence lookups (issue 12).
 *
 * An identity's last own ledger entry (`WHERE agent_id = ? AND sub_agent_name IS NULL | = ? AND source =
 * 'agent' ORDER BY seq DESC LIMIT 1`: meta.context, GET /context, the agents page) is read index-only,
 * already in `seq` order: one index for agents themselves (`sub_agent_name IS NULL` in the predicate, since
 * an `IS NULL` index condition does not give the planner the `seq` order) and one for sub-agents. With
 * 0018's `(agent_id, seq DESC)` the planner still preferred walking the whole ledger backwards by `seq`
 * whenever it could not see the agent (a correlated subquery, a generic plan): for an agent with no
 * entries of its own that reads every row of the ledger (650 ms on the agents page of the bench's large
 * project). These replace 0018's index; a ledger row enters at most one of them.
 *
 * The dashboard's threads list (open first, latest message first, then newest) pages from an index in
 * its own order, instead of joining and sorting every thread of the project.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, [
    `CREATE INDEX ledger_agent_own_seq_idx ON ledger_entries (agent_id, seq DESC) INCLUDE (created_at)
      WHERE source = 'agent' AND sub_agent_name IS NULL`,
    `CREATE INDEX ledger_sub_agent_seq_idx ON ledger_entries (agent_id, sub_agent_name, seq DESC)
      INCLUDE (created_at) WHERE source = 'agent' AND sub_agent_name IS NOT NULL`,
    `DROP INDEX ledger_agent_seq_idx`,
    `CREATE INDEX threads_dashboard_order_idx ON threads
      (project_id, status DESC, last_message_at DESC NULLS LAST, created_at DESC)`,
  ]);
}
