/** Session token lifetimes (spec: Authentication; idle period is our documented design). */
export const SESSION_TOKEN_PREFIX = "svc_sess_";
export const SUBAGENT_TOKEN_PREFIX = "svc_sub_";
export const API_KEY_PREFIX = "svc_key_";
/** Random bytes after `API_KEY_PREFIX` (base64url, no padding). */
export const API_KEY_SECRET_BYTES = 32;
export const REFRESH_TOKEN_PREFIX = "svc_rt_";

export const SESSION_MAX_AGE_MS = 7 * 24 * 3600_000;
/** Idle window of a session token: 24 hours without an authenticated call. */
export const SESSION_IDLE_MS = 24 * 3600_000;
/** `GET /context` hands out a replacement within this window before the 7-day limit. */
export const SESSION_REFRESH_WINDOW_MS = 30 * 60_000;
/** `POST /session/refresh` accepts tokens expired at most this long ago (grace). */
export const SESSION_GRACE_MS = 7 * 24 * 3600_000;
/** More than this many requests in SESSION_BURST_WINDOW_MS on one session token answers 401. */
export const SESSION_BURST_LIMIT = 200;
export const SESSION_BURST_WINDOW_MS = 5 * 60_000;

/** Idle expiry after a use at `now`, never past the hard limit. */
export function nextIdleExpiry(now: Date, hardExpiry: Date | null): Date {
  const idle = new Date(now.getTime() + SESSION_IDLE_MS);
  return hardExpiry && hardExpiry < idle ? hardExpiry : idle;
}
