import type { Kysely } from "kysely";
import { runStatements } from "./run-statements.ts";

/**
 * `tickets.last_ledger_at`: the time of the ticket's latest ledger entry, kept by a trigger on every
 * insert, so that "in-progress tickets silent for 30 minutes" is a range read of the board index
 * instead of one ledger probe per in-progress ticket.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, [
    `ALTER TABLE tickets ADD COLUMN last_ledger_at timestamptz`,
    `UPDATE tickets t SET last_ledger_at = l.m
      FROM (SELECT ticket_id, max(created_at) AS m FROM ledger_entries WHERE ticket_id IS NOT NULL
        GROUP BY ticket_id) l
      WHERE l.ticket_id = t.id`,
    `CREATE FUNCTION ledger_touch_ticket() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE tickets SET last_ledger_at = NEW.created_at
          WHERE id = NEW.ticket_id AND (last_ledger_at IS NULL OR last_ledger_at < NEW.created_at);
        RETURN NULL;
      END
    $$`,
    `CREATE TRIGGER ledger_touch_ticket AFTER INSERT ON ledger_entries
      FOR EACH ROW WHEN (NEW.ticket_id IS NOT NULL) EXECUTE FUNCTION ledger_touch_ticket()`,
  ]);
}
