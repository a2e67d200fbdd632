/**
 * Whether an error means the database cannot be reached right now (down, restarting, refusing
 * connections), as opposed to a query the database refused. Such failures are transient: the HTTP
 * layer answers them with `503 SERVICE_UNAVAILABLE` and `Retry-After`, and postgres.js reconnects by
 * itself on the next query once the server is back.
 *
 * Recognised, on the error or anywhere in its `cause` chain:
 * - socket errors (`ECONNREFUSED`, `ECONNRESET`, `EPIPE`, `ETIMEDOUT`, `EHOSTUNREACH`, ...) and the
 *   connection errors postgres.js raises itself (`CONNECTION_CLOSED`, `CONNECTION_ENDED`,
 *   `CONNECTION_DESTROYED`, `CONNECT_TIMEOUT`);
 * - SQLSTATE class 08 (connection exception), 57P01..57P03 (admin shutdown, crash shutdown, cannot
 *   connect now: the server is starting or stopping) and 53300 (too many connections);
 * - a closed embedded database or destroyed pool (during shutdown).
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  const seen = new Set<unknown>();
  let current: unknown = error;
  while (typeof current === "object" && current !== null && !seen.has(current)) {
    seen.add(current);
    if (matches(current)) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

const SOCKET_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EADDRNOTAVAIL",
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "CONNECT_TIMEOUT",
]);

const SQLSTATES = new Set(["57P01", "57P02", "57P03", "53300"]);

/** Deno's own network errors, when they surface without a Node-style code. */
const ERROR_NAMES = new Set(["ConnectionRefused", "ConnectionReset", "ConnectionAborted", "BrokenPipe"]);

const MESSAGES = [
  /PGlite is closed/i,
  /driver has already been destroyed/i,
  /connection terminated/i,
  /terminating connection due to administrator command/i,
  /the database system is (starting up|shutting down|in recovery mode)/i,
];

function matches(error: object): boolean {
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string") {
    if (SOCKET_CODES.has(code) || SQLSTATES.has(code) || /^08[0-9A-Z]{3}$/.test(code)) return true;
  }
  const name = (error as { name?: unknown }).name;
  if (typeof name === "string" && ERROR_NAMES.has(name)) return true;
  const message = (error as { message?: unknown }).message;
  return typeof message === "string" && MESSAGES.some((re) => re.test(message));
}
