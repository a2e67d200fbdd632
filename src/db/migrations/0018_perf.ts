import type { Kysely } from "kysely";
import { runStatements } from "./run-statements.ts";

/**
 * Performance (issue 12). The admission statement reads, on every authenticated call, the caller's last
 * agent-written ledger entry (`WHERE agent_id = ? ... ORDER BY seq DESC LIMIT 1`, meta.context silence):
 * without this index a planner may walk the whole ledger backwards by `seq` for an agent with few entries.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, [
    `CREATE INDEX ledger_agent_seq_idx ON ledger_entries (agent_id, seq DESC) WHERE source = 'agent'`,
  ]);
}
