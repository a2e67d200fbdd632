import type { Kysely } from "kysely";
import { runStatements } from "./run-statements.ts";

/**
 * Secrets at rest only as hashes. Pairing codes become `code_hash` (SHA-256 hex of the code, existing
 * codes hashed in place). `service_secrets` no longer keeps the demo user's `email:password` (it was
 * printed at first start); a clear `admin_token` row is moved out by bootstrap (its value to a 0600
 * file in DATA_DIR, its hash to `admin_token_hash`), since a migration cannot write files.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, [
    `ALTER TABLE pairing_codes RENAME COLUMN code TO code_hash`,
    `UPDATE pairing_codes SET code_hash = encode(sha256(convert_to(code_hash, 'UTF8')), 'hex')`,
    `DELETE FROM service_secrets WHERE name = 'demo_user'`,
  ]);
}
