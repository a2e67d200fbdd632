import type { Kysely } from "kysely";
import { runStatements } from "./run-statements.ts";

/**
 * OAuth clients (dynamic registration, public clients only), authorization codes (stored only as their
 * SHA-256 hash, 60 seconds, single use: `used_at` is set by the token exchange) and browser sign-in
 * sessions of the consent page (the cookie value is stored only as its hash).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, [
    `CREATE TABLE oauth_clients (
      client_id text PRIMARY KEY,
      client_name text NOT NULL,
      redirect_uris jsonb NOT NULL,
      created_at timestamptz NOT NULL
    )`,
    `CREATE TABLE oauth_codes (
      id uuid PRIMARY KEY,
      code_hash text NOT NULL UNIQUE,
      client_id text NULL REFERENCES oauth_clients(client_id) ON DELETE CASCADE,
      redirect_uri text NOT NULL,
      code_challenge text NOT NULL,
      user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      scope text NOT NULL CHECK (scope IN ('read', 'write')),
      created_at timestamptz NOT NULL,
      expires_at timestamptz NOT NULL,
      used_at timestamptz NULL
    )`,
    `CREATE INDEX oauth_codes_expires ON oauth_codes (expires_at)`,
    `CREATE TABLE web_sessions (
      id_hash text PRIMARY KEY,
      user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      created_at timestamptz NOT NULL,
      expires_at timestamptz NOT NULL
    )`,
    `CREATE INDEX web_sessions_expires ON web_sessions (expires_at)`,
  ]);
}
