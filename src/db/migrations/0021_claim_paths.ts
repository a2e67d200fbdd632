import type { Kysely } from "kysely";
import { runStatements } from "./run-statements.ts";

/**
 * Paths that differ only in letter case are one file for claims (issue 22): agents on case-insensitive
 * file systems (macOS, Windows) share repositories with Linux agents, where `SRC/A.ts` and `src/a.ts` are
 * one file. The one-holder index moves to the case-folded key `lower(file)`; the stored path keeps the
 * spelling the claimant gave.
 *
 * Live rows that collide once folded (possible before this migration) are settled first: in each group
 * the file stays with the holder whose claim is still live (not expired) and oldest (claimed first, then
 * the smaller claim id); the other rows of the group are released (`released_at` = now, their claims keep
 * their other files). A claim left without any held file is released too.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, [
    `WITH ranked AS (
      SELECT f.claim_id, f.file, row_number() OVER (
        PARTITION BY f.project_id, lower(f.file)
        ORDER BY (c.expires_at > now()) DESC, c.claimed_at, f.claim_id, f.file COLLATE "C"
      ) AS r
      FROM claim_files AS f JOIN claims AS c ON c.id = f.claim_id
      WHERE f.released_at IS NULL
    )
    UPDATE claim_files SET released_at = now()
    FROM ranked
    WHERE claim_files.claim_id = ranked.claim_id AND claim_files.file = ranked.file AND ranked.r > 1`,
    `UPDATE claims SET released_at = now()
    WHERE released_at IS NULL
      AND NOT EXISTS (SELECT 1 FROM claim_files AS f WHERE f.claim_id = claims.id AND f.released_at IS NULL)`,
    `DROP INDEX claim_files_one_holder`,
    `CREATE UNIQUE INDEX claim_files_one_holder ON claim_files (project_id, lower(file))
      WHERE released_at IS NULL`,
  ]);
}
