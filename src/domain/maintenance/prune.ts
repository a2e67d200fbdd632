import { type RawBuilder, sql } from "kysely";
import type { Clock } from "@/clock.ts";
import type { Db } from "@/db/database.ts";
import { CODE_REUSE_WINDOW_MS } from "@/domain/pairing/codes.ts";
import { SESSION_GRACE_MS } from "@/domain/auth/token-policy.ts";
import { ME_CACHE_MS } from "@/domain/sessions/me.ts";
import { MAX_JOB_ATTEMPTS } from "@/domain/jobs/run.ts";

const MINUTE = 60_000;
const HOUR = 3600_000;
const DAY = 24 * HOUR;

/**
 * How long each kind of row is kept once nothing reads it any more. Every margin is generous on purpose:
 * instances' clocks may differ by a little, and a row kept a bit longer costs nothing.
 */
export const RETENTION = {
  /** A counter window that ended is never read again (every limit reads its current window only). */
  counterAfterWindowMs: 5 * MINUTE,
  /** Finished jobs (done) are kept a day for inspection. */
  doneJobMs: DAY,
  /** Jobs that gave up after their last attempt are kept a week. */
  deadJobMs: 7 * DAY,
  /** A pairing code is usable until it expires or, once used, until its reuse window ends; then a day. */
  codeMs: DAY,
  /**
   * A token is kept while it can still be refreshed (expired at most 7 days ago, SESS-028) and a day
   * more; a revoked token a week after its revocation.
   */
  tokenAfterGraceMs: DAY,
  revokedTokenMs: 7 * DAY,
  /** A `/me` cache entry is only read for 30 seconds. */
  meCacheMs: HOUR,
  /**
   * OAuth refresh tokens are kept (revoked and used ones too, for reuse detection) until their family's
   * 30 days are over, then a day; a revoked access token's `jti` until the token expired, then a day.
   */
  oauthAfterExpiryMs: DAY,
  /** Authorization codes (60 s) and consent-page browser sessions (12 h): a day after they expired. */
  oauthCodeAndWebSessionMs: DAY,
  /** Webhook deliveries that went out (or were given up) are listed for a week (operator API, dashboard). */
  webhookDeliveryMs: 7 * DAY,
};

export const PRUNE_BATCH = 500;
export const PRUNE_MAX_BATCHES = 20;

export type PruneCounts = Record<
  | "rateCounters"
  | "jobs"
  | "pairingCodes"
  | "tokens"
  | "meCache"
  | "oauthRefreshTokens"
  | "oauthRevokedAccess"
  | "oauthCodes"
  | "webSessions"
  | "webhookDeliveries",
  number
>;

/** The instant before which each kind of row is dead, as `RETENTION` and the rules it cites decide. */
export function pruneCutoffs(now: Date) {
  const at = (ms: number) => new Date(now.getTime() - ms);
  return {
    counter: at(RETENTION.counterAfterWindowMs),
    doneJob: at(RETENTION.doneJobMs),
    deadJob: at(RETENTION.deadJobMs),
    code: at(RETENTION.codeMs),
    codeUsed: at(RETENTION.codeMs + CODE_REUSE_WINDOW_MS),
    token: at(SESSION_GRACE_MS + RETENTION.tokenAfterGraceMs),
    revokedToken: at(RETENTION.revokedTokenMs),
    me: at(Math.max(RETENTION.meCacheMs, 2 * ME_CACHE_MS)),
    oauth: at(RETENTION.oauthAfterExpiryMs),
    consent: at(RETENTION.oauthCodeAndWebSessionMs),
    webhookDelivery: at(RETENTION.webhookDeliveryMs),
  };
}

type Cutoffs = ReturnType<typeof pruneCutoffs>;

/** One DELETE per table, each of at most `batch` dead rows locked with `FOR UPDATE SKIP LOCKED`. */
function pruneStatements(c: Cutoffs, batch: number): Record<keyof PruneCounts, RawBuilder<unknown>> {
  // A token is dead when revoked long ago, or when its hard or idle expiry passed beyond the refresh grace.
  // Never NULL (NOT of it must be true for a live token): api keys without expiry are not dead.
  const deadToken = (t: string) => {
    const revoked = sql.ref(`${t}.revoked_at`);
    const expiry = sql`LEAST(${sql.ref(`${t}.expires_at`)}, ${sql.ref(`${t}.idle_expires_at`)})`;
    return sql`((${revoked} IS NOT NULL AND ${revoked} < ${c.revokedToken})
      OR (${expiry} IS NOT NULL AND ${expiry} < ${c.token}))`;
  };
  return {
    rateCounters: sql`DELETE FROM rate_counters WHERE (key, window_start) IN (
        SELECT key, window_start FROM rate_counters WHERE expires_at < ${c.counter}
        LIMIT ${batch} FOR UPDATE SKIP LOCKED)`,
    jobs: sql`DELETE FROM pending_jobs WHERE id IN (
        SELECT id FROM pending_jobs WHERE done_at < ${c.doneJob}
          OR (done_at IS NULL AND attempts >= ${MAX_JOB_ATTEMPTS} AND created_at < ${c.deadJob})
        LIMIT ${batch} FOR UPDATE SKIP LOCKED)`,
    pairingCodes: sql`DELETE FROM pairing_codes WHERE id IN (
        SELECT id FROM pairing_codes WHERE expires_at < ${c.code}
          AND (first_used_at IS NULL OR first_used_at < ${c.codeUsed})
        LIMIT ${batch} FOR UPDATE SKIP LOCKED)`,
    // A token whose sub-agent tokens still live is kept: deleting it would cascade to them.
    tokens: sql`DELETE FROM tokens WHERE id IN (
        SELECT t.id FROM tokens t WHERE t.kind <> 'oauth_refresh' AND ${deadToken("t")}
          AND NOT EXISTS (SELECT 1 FROM tokens c WHERE c.parent_token_id = t.id AND NOT ${deadToken("c")})
        LIMIT ${batch} FOR UPDATE SKIP LOCKED)`,
    meCache: sql`DELETE FROM me_cache WHERE (token_id, sub_agent_name) IN (
        SELECT token_id, sub_agent_name FROM me_cache WHERE cached_at < ${c.me}
        LIMIT ${batch} FOR UPDATE SKIP LOCKED)`,
    oauthRefreshTokens: sql`DELETE FROM oauth_refresh_tokens WHERE id IN (
        SELECT id FROM oauth_refresh_tokens WHERE family_expires_at < ${c.oauth}
        LIMIT ${batch} FOR UPDATE SKIP LOCKED)`,
    oauthRevokedAccess: sql`DELETE FROM oauth_revoked_access_tokens WHERE jti IN (
        SELECT jti FROM oauth_revoked_access_tokens WHERE expires_at < ${c.oauth}
        LIMIT ${batch} FOR UPDATE SKIP LOCKED)`,
    oauthCodes: sql`DELETE FROM oauth_codes WHERE id IN (
        SELECT id FROM oauth_codes WHERE expires_at < ${c.consent}
        LIMIT ${batch} FOR UPDATE SKIP LOCKED)`,
    webSessions: sql`DELETE FROM web_sessions WHERE id_hash IN (
        SELECT id_hash FROM web_sessions WHERE expires_at < ${c.consent}
        LIMIT ${batch} FOR UPDATE SKIP LOCKED)`,
    // The outbox: pending deliveries are never pruned (they are still owed).
    webhookDeliveries: sql`DELETE FROM webhook_deliveries WHERE id IN (
        SELECT id FROM webhook_deliveries WHERE status <> 'pending' AND created_at < ${c.webhookDelivery}
        LIMIT ${batch} FOR UPDATE SKIP LOCKED)`,
  };
}

/**
 * Deletes rows that no rule reads any more, in batches of `batch` rows (at most `maxBatches` per table
 * and run, so one run is bounded). Each batch locks its rows with `FOR UPDATE SKIP LOCKED`, so several
 * instances may prune at once without waiting on each other or on live traffic. Rows of the `tokens`
 * table of kind `oauth_refresh` are left alone; OAuth refresh tokens live in `oauth_refresh_tokens` and
 * go once their family's 30 days are over (reuse detection needs the used and revoked rows until then).
 */
export async function pruneTables(
  deps: { db: Db; clock: Clock },
  options: { batch?: number; maxBatches?: number } = {},
): Promise<PruneCounts> {
  const batch = options.batch ?? PRUNE_BATCH;
  const maxBatches = options.maxBatches ?? PRUNE_MAX_BATCHES;
  const statements = pruneStatements(pruneCutoffs(deps.clock.now()), batch);
  const counts = Object.fromEntries(Object.keys(statements).map((name) => [name, 0])) as PruneCounts;
  for (const [name, statement] of Object.entries(statements) as [keyof PruneCounts, RawBuilder<unknown>][]) {
    for (let i = 0; i < maxBatches; i++) {
      const result = await statement.execute(deps.db);
      const deleted = Number(result.numAffectedRows ?? 0);
      counts[name] += deleted;
      if (deleted < batch) break;
    }
  }
  return counts;
}
