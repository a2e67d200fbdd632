import type { Kysely } from "kysely";
import { runStatements } from "./run-statements.ts";

/**
 * Many instances on one database: no per-process state that changes an answer, and bounded tables.
 * - `service_clock`: the test clock's offset (one row, written by `POST /admin/clock`, read by every
 *   instance at the start of each request when `SVC_TEST_CLOCK=1`).
 * - `me_cache`: the 30-second `GET /me` body per token and sub-agent name (SESS-033..035); no foreign
 *   key (credentials that are not rows of `tokens` may call /me too): old entries are pruned by age.
 * - Indexes behind the background pruning of finished jobs, expired pairing codes and dead tokens
 *   (`rate_counters` already has its `expires_at` index).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, [
    `CREATE TABLE service_clock (
      id boolean PRIMARY KEY DEFAULT true CHECK (id),
      offset_ms bigint NOT NULL DEFAULT 0
    )`,
    `CREATE TABLE me_cache (
      token_id uuid NOT NULL,
      sub_agent_name text NOT NULL DEFAULT '',
      body json NOT NULL,
      cached_at timestamptz NOT NULL,
      PRIMARY KEY (token_id, sub_agent_name)
    )`,
    `CREATE INDEX me_cache_cached_at_idx ON me_cache (cached_at)`,
    `CREATE INDEX pending_jobs_done_idx ON pending_jobs (done_at) WHERE done_at IS NOT NULL`,
    `CREATE INDEX pairing_codes_expires_idx ON pairing_codes (expires_at)`,
    `CREATE INDEX tokens_dead_after_idx ON tokens ((LEAST(expires_at, idle_expires_at)))
      WHERE kind <> 'oauth_refresh'`,
    `CREATE INDEX tokens_revoked_idx ON tokens (revoked_at) WHERE revoked_at IS NOT NULL`,
  ]);
}
