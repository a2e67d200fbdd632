import type { Kysely } from "kysely";
import { runStatements } from "./run-statements.ts";

/**
 * OAuth signing keys (issue 9). Each row is one RS256 key pair as JWKs, the private half kept in the
 * database. `retired_at` is set when a newer key replaces it: a retired key keeps verifying (and stays
 * in the JWKS) until the last access token it signed has expired (one hour after retirement). At most
 * one key is current (`retired_at IS NULL`), enforced by a partial unique index so that two instances
 * creating the first key, or two rotations at once, never leave two signing keys.
 *
 * Also: one OAuth agent per user and project (`agents_oauth_user_key`), so concurrent first calls with
 * OAuth tokens of one user create a single agent.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, [
    `CREATE TABLE oauth_signing_keys (
      kid text PRIMARY KEY,
      alg text NOT NULL CHECK (alg IN ('RS256')),
      public_jwk jsonb NOT NULL,
      private_jwk jsonb NOT NULL,
      created_at timestamptz NOT NULL,
      retired_at timestamptz
    )`,
    `CREATE UNIQUE INDEX oauth_signing_keys_one_current ON oauth_signing_keys ((true)) WHERE retired_at IS NULL`,
    `CREATE INDEX oauth_signing_keys_retired_idx ON oauth_signing_keys (retired_at)`,
    `CREATE UNIQUE INDEX agents_oauth_user_key ON agents (project_id, user_id)
      WHERE platform = 'oauth' AND user_id IS NOT NULL`,
  ]);
}
