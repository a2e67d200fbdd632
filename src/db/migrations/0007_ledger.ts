import type { Kysely } from "kysely";
import { runStatements } from "./run-statements.ts";

/** Schema additions of the ledger area. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, [
    `ALTER TABLE ledger_entries ADD COLUMN blocked_by_file text`,
    // Latest entry per ticket (stale in-progress tickets) without scanning the ticket's history.
    `CREATE INDEX ledger_ticket_time_idx ON ledger_entries (ticket_id, created_at DESC)`,
  ]);
}
