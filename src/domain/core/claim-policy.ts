/** Claim timing rules (spec: Claim, Limits; the grace period and first-claim expiry are designed). */

/** A claim older than this is reported stale; it is still never taken over by another agent. */
export const STALE_CLAIM_MS = 10 * 60_000;
/** Expiry of a re-claim without `estimatedSeconds`, and (design) of a first claim without it. */
export const DEFAULT_CLAIM_MS = 30 * 60_000;
/**
 * (design) Grace period: when the session that made a claim ends without releasing it, the claim keeps
 * its files for this long so the agent can reconnect and restore it; then it stops counting.
 */
export const CLAIM_GRACE_MS = 5 * 60_000;

export function isStale(claimedAt: Date, now: Date): boolean {
  return now.getTime() - claimedAt.getTime() > STALE_CLAIM_MS;
}

export function ageMinutes(claimedAt: Date, now: Date): number {
  return Math.max(0, Math.floor((now.getTime() - claimedAt.getTime()) / 60_000));
}
