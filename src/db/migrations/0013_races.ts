import type { Kysely } from "kysely";
import { runStatements } from "./run-statements.ts";

/**
 * Issue 8 (races): one artifact per ticket, type and URL, enforced by the database so that two
 * concurrent records of the same artifact (POST /ticket/{id}/artifacts, POST /handoff) leave one row;
 * both writers use one `INSERT ... ON CONFLICT DO UPDATE` on this index. The key holds `md5(url)`, not
 * the URL itself: a URL may have 2,000 characters of up to 4 bytes each, more than a btree entry holds.
 * Rows duplicated by the earlier read-then-write are removed first, keeping the oldest of each (the one
 * that read-then-write kept updating). The new index leads with `ticket_id`, so it also serves the
 * per-ticket reads the old `ticket_artifacts_ticket_idx` served.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, [
    `DELETE FROM ticket_artifacts a USING ticket_artifacts b
      WHERE a.ticket_id = b.ticket_id AND a.type = b.type AND a.url = b.url
        AND (b.created_at < a.created_at OR (b.created_at = a.created_at AND b.id < a.id))`,
    `CREATE UNIQUE INDEX ticket_artifacts_key ON ticket_artifacts (ticket_id, type, md5(url))`,
    `DROP INDEX ticket_artifacts_ticket_idx`,
  ]);
}
