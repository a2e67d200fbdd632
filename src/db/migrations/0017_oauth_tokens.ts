import type { Kysely } from "kysely";
import { runStatements } from "./run-statements.ts";

/**
 * OAuth refresh tokens (`svc_rt_`, stored as SHA-256 hashes) and revoked access tokens.
 *
 * Every refresh token belongs to a family started by one code exchange (`code_id`); rotation inserts
 * the next token of the family with the same `family_expires_at` (30 days from the family's start, never
 * extended). A token is consumed by a conditional `UPDATE ... WHERE used_at IS NULL`, so two concurrent
 * refreshes of one token cannot both succeed. `access_jti` is the `jti` of the access token issued with
 * the row (revoked as well when the family is revoked for a replayed code).
 * `oauth_revoked_access_tokens` lists the `jti` of access tokens revoked through `POST /api/oauth/revoke`
 * (kept until the token would have expired).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, [
    `CREATE TABLE oauth_refresh_tokens (
      id uuid PRIMARY KEY,
      family_id uuid NOT NULL,
      code_id uuid NULL,
      token_hash text NOT NULL UNIQUE,
      client_id text NULL,
      user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      scope text NOT NULL CHECK (scope IN ('read', 'write')),
      access_jti text NULL,
      access_expires_at timestamptz NULL,
      created_at timestamptz NOT NULL,
      family_expires_at timestamptz NOT NULL,
      used_at timestamptz NULL,
      revoked_at timestamptz NULL
    )`,
    `CREATE INDEX oauth_refresh_tokens_family ON oauth_refresh_tokens (family_id)`,
    `CREATE INDEX oauth_refresh_tokens_code ON oauth_refresh_tokens (code_id)`,
    `CREATE TABLE oauth_revoked_access_tokens (
      jti text PRIMARY KEY,
      revoked_at timestamptz NOT NULL,
      expires_at timestamptz NOT NULL
    )`,
  ]);
}
