import type { Kysely } from "kysely";
import { runStatements } from "./run-statements.ts";

/**
 * Sessions area. `token_rotations` links a replacement session token handed out in
 * `meta.refreshedToken` to the token it replaces (refreshing the old token revokes unused replacements).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, [
    `CREATE TABLE token_rotations (
      new_token_id uuid PRIMARY KEY REFERENCES tokens(id) ON DELETE CASCADE,
      old_token_id uuid NOT NULL REFERENCES tokens(id) ON DELETE CASCADE,
      created_at timestamptz NOT NULL
    )`,
    `CREATE INDEX token_rotations_old_idx ON token_rotations (old_token_id)`,
    // Activities are ordered by their per-session ordinal, taken from sessions.activity_count.
    `ALTER TABLE session_activities ADD COLUMN seq integer NOT NULL`,
    `CREATE UNIQUE INDEX session_activities_seq_key ON session_activities (session_id, seq)`,
    // The organization a code was issued under, so a code whose organization is gone answers ORG_NOT_FOUND
    // (projects cascade with their organization, so the project alone cannot tell).
    `ALTER TABLE pairing_codes ADD COLUMN org_id uuid`,
    `CREATE INDEX tokens_sub_agent_idx ON tokens (agent_id, sub_agent_name) WHERE kind = 'subagent'`,
  ]);
}
