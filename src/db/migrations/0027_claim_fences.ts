import type { Kysely } from "kysely";
import { runStatements } from "./run-statements.ts";

/**
 * Fencing tokens (issue 25): every claimed file row gets a `fence` from one sequence, so a new grant is
 * strictly greater than every fence given before in the database (hence in the project, overlapping or
 * not). A renewal keeps its row and so its fence; a new grant is a new row. Existing rows are numbered in
 * the order they were claimed, and the sequence goes on after them.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, [
    `CREATE SEQUENCE claim_fence_seq AS bigint`,
    `ALTER TABLE claim_files ADD COLUMN fence bigint`,
    `WITH ordered AS (
      SELECT f.claim_id, f.file, row_number() OVER (
        ORDER BY c.claimed_at, f.claim_id, f.file COLLATE "C"
      ) AS n
      FROM claim_files AS f JOIN claims AS c ON c.id = f.claim_id
    )
    UPDATE claim_files SET fence = ordered.n
    FROM ordered WHERE claim_files.claim_id = ordered.claim_id AND claim_files.file = ordered.file`,
    `SELECT setval('claim_fence_seq', (SELECT coalesce(max(fence), 0) + 1 FROM claim_files), false)`,
    `ALTER TABLE claim_files ALTER COLUMN fence SET DEFAULT nextval('claim_fence_seq')`,
    `ALTER TABLE claim_files ALTER COLUMN fence SET NOT NULL`,
    `ALTER SEQUENCE claim_fence_seq OWNED BY claim_files.fence`,
  ]);
}
