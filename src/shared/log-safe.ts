/** Secret-bearing parameter names: their values never reach a log (query strings, forms, JSON). */
const SECRET_NAMES =
  "code|code_verifier|access_token|refresh_token|id_token|token|client_secret|password|passwd|secret|csrf_token";
const SECRET_PARAM = new RegExp(`\\b(${SECRET_NAMES})=[^&\\s"'<>]*`, "gi");
const SECRET_JSON = new RegExp(`"(${SECRET_NAMES})"(\\s*:\\s*)"(?:[^"\\\\]|\\\\.)*"`, "gi");
/** The service's own credentials by prefix: codes, refresh tokens, session, sub-agent and API keys. */
const SERVICE_SECRET = /\b(svc_(?:ac|rt|sess|sub|key)_)[A-Za-z0-9_-]+/g;
/** A compact JWS (an access token). */
const JWT = /\beyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g;
const BEARER = /\b(Bearer)\s+[^\s"',]+/gi;

/**
 * `text` with every secret it may carry replaced by `[redacted]`: values of `code=`, `access_token=`,
 * `refresh_token=`, `token=`, `password=` (and the like) in query strings, forms and JSON, the service's
 * prefixed credentials (`svc_ac_...`, `svc_rt_...`), JWTs and bearer values. Applied to every error that
 * is logged, so a URL or body quoted in an error message (a `Location` header refused for a control
 * character quotes the whole redirect, code included) cannot leak one.
 */
export function redactSecrets(text: string): string {
  return text
    .replace(SECRET_PARAM, "$1=[redacted]")
    .replace(SECRET_JSON, '"$1"$2"[redacted]"')
    .replace(SERVICE_SECRET, "$1[redacted]")
    .replace(JWT, "[redacted-jwt]")
    .replace(BEARER, "$1 [redacted]");
}

/**
 * What may be logged of an unexpected error: its name, message, stack and SQLSTATE code, never the other
 * properties a driver attaches (postgres.js adds the query and its `parameters`, which may hold token
 * hashes or user text), and with secrets redacted (`redactSecrets`).
 */
export function loggableError(err: unknown): string {
  if (!(err instanceof Error)) {
    return redactSecrets(typeof err === "string" ? err : Object.prototype.toString.call(err));
  }
  const code = (err as { code?: unknown }).code;
  const head = err.stack ?? `${err.name}: ${err.message}`;
  return redactSecrets(typeof code === "string" ? `${head} (code ${code})` : head);
}
