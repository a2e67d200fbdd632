import type { Kysely } from "kysely";
import { runStatements } from "./run-statements.ts";

/**
 * Handoff area. Its records live in the shared work model (ticket_artifacts, qa_runs, qa_tests,
 * ledger_entries, pending_jobs); it only adds the index behind `modulesDone` (DONE entries per project).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, [
    `CREATE INDEX ledger_done_idx ON ledger_entries (project_id) WHERE type = 'DONE'`,
  ]);
}
