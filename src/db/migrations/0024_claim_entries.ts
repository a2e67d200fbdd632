import type { Kysely } from "kysely";
import { runStatements } from "./run-statements.ts";

/**
 * Directory and symbol claims (issue 24 point 5): a claimed entry is a file, a directory (`src/auth/**`) or
 * a symbol (`src/auth/token.ts#parseToken`). Symbol names are case-sensitive while paths are not, so the
 * one-holder index moves from `lower(file)` to the entry key: the path part before `#` folded, the symbol
 * kept (the same expression as `entryKeySql` in src/domain/core/claim-holders.ts). It stays a backstop:
 * overlaps between different keys (a directory and a file under it) are refused by the claim writes,
 * which serialise per project (`lockProjectClaims`). Every key the old index kept unique stays unique.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, [
    `DROP INDEX claim_files_one_holder`,
    `CREATE UNIQUE INDEX claim_files_one_holder ON claim_files (project_id, (CASE WHEN strpos(file, '#') = 0
      THEN lower(file) ELSE lower(split_part(file, '#', 1)) || substr(file, strpos(file, '#')) END))
      WHERE released_at IS NULL`,
  ]);
}
