import type { Kysely } from "kysely";
import { runStatements } from "./run-statements.ts";

/** Schema additions of the shared area: brief, threads and sprints. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, [
    // Messages written in the same millisecond still read back in the order they were written.
    `ALTER TABLE thread_messages ADD COLUMN seq bigserial`,
    `CREATE INDEX thread_messages_order_idx ON thread_messages (thread_id, seq)`,
    // Bulk close and context read open threads by author.
    `CREATE INDEX threads_agent_open_idx ON threads (project_id, agent_id) WHERE status = 'open'`,
    `CREATE INDEX notifications_user_idx ON notifications (recipient_user_id) WHERE read_at IS NULL`,
  ]);
}
