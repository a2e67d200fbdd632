import type { Kysely } from "kysely";
import { runStatements } from "./run-statements.ts";

/** Schema additions of the tickets area (statements appended by that area; empty until it needs one). */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, []);
}
