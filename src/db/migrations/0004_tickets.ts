import type { Kysely } from "kysely";
import { runStatements } from "./run-statements.ts";

/**
 * Schema additions of the tickets area: GIN indexes so that the board's tag filter (`tags @> ...`) and
 * its collision warnings (`expected_files ?| ...`) stay index-served on large boards.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, [
    `CREATE INDEX tickets_tags_idx ON tickets USING gin (tags)`,
    `CREATE INDEX tickets_expected_files_idx ON tickets USING gin (expected_files)`,
  ]);
}
