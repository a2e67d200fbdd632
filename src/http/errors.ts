import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { isDatabaseUnavailable } from "@/db/unavailable.ts";
import { DomainError, recovery, type RefusalKind } from "@/domain/core/errors.ts";
import type { AppEnv } from "./env.ts";
import { loggableError, redactSecrets } from "@/shared/log-safe.ts";

export { type FieldError, fieldErrors } from "@/shared/field-errors.ts";

export function errorBody(code: string, message: string, details?: Record<string, unknown>) {
  return { error: details === undefined ? { code, message } : { code, message, details } };
}

/** The HTTP status of each kind of refusal: the REST surface's one mapping. */
const STATUS_OF = {
  invalid: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  too_large: 413,
  unsupported_media: 415,
  unprocessable: 422,
  limited: 429,
  internal: 500,
  unavailable: 503,
} as const satisfies Record<RefusalKind, number>;

/** The HTTP status of a refusal. */
export function statusOf(err: DomainError): (typeof STATUS_OF)[RefusalKind] {
  return STATUS_OF[err.kind];
}

/** The response headers the spec ties to a refusal: Retry-After, rate and ledger-stale headers. */
export function refusalHeaders(err: DomainError): Record<string, string> {
  const { retryAfterSeconds, rate, endpoint, staleReason } = err.limits;
  const headers: Record<string, string> = {};
  if (retryAfterSeconds !== undefined) headers["Retry-After"] = String(retryAfterSeconds);
  if (rate) {
    headers["X-RateLimit-Limit"] = rate.limit === null ? "unlimited" : String(rate.limit);
    headers["X-RateLimit-Remaining"] = "0";
    headers["X-RateLimit-Reset"] = String(Math.ceil(rate.resetAt.getTime() / 1000));
    headers["X-Burst-Remaining"] = String(rate.burstRemaining);
  }
  if (endpoint) {
    headers["X-RateLimit-Endpoint"] = endpoint.name;
    headers["X-RateLimit-Window"] = endpoint.window;
  }
  if (staleReason !== undefined) headers["X-Ledger-Stale-Reason"] = staleReason;
  return headers;
}

/** A refusal's `error` object: `{ code, message, details? }`. */
export function errorObject(err: DomainError) {
  return errorBody(err.code, err.message, err.details).error;
}

/**
 * The OAuth endpoints answer every refusal flat, `{ error, error_description }` (OAUTH-001/002), also the
 * ones the shared body guards make before the route runs (size, depth, malformed JSON): registration as
 * `invalid_client_metadata`, the token and revocation endpoints as `invalid_request`.
 */
const OAUTH_FLAT_ERRORS: Record<string, string> = {
  "/api/oauth/register": "invalid_client_metadata",
  "/api/oauth/token": "invalid_request",
  "/api/oauth/revoke": "invalid_request",
};

function oauthRefusal(err: unknown, c: Context<AppEnv>): Response | null {
  const error = OAUTH_FLAT_ERRORS[c.req.path];
  if (!error) return null;
  if (err instanceof DomainError && statusOf(err) < 500) {
    return c.json({ error, error_description: err.message }, statusOf(err), { "Cache-Control": "no-store" });
  }
  if (err instanceof HTTPException && err.status < 500) {
    const description = err.status === 413 ? "Request body too large" : "Malformed request body";
    return c.json({ error, error_description: description }, err.status, { "Cache-Control": "no-store" });
  }
  return null;
}

/** The one place that turns a thrown error into the spec's error shape. */
export function errorResponse(err: unknown, c: Context<AppEnv>): Response {
  const flat = oauthRefusal(err, c);
  if (flat) return flat;
  if (err instanceof DomainError) {
    for (const [name, value] of Object.entries(refusalHeaders(err))) c.header(name, value);
    return c.json(errorBody(err.code, err.message, err.details), statusOf(err));
  }
  if (err instanceof HTTPException) {
    const status = err.status;
    if (status === 400) {
      return c.json(
        errorBody("VALIDATION_ERROR", "Malformed JSON in request body", { fields: [] }),
        400,
      );
    }
    if (status === 413) return c.json(errorBody("PAYLOAD_TOO_LARGE", "Request body too large"), 413);
    return c.json(errorBody(status === 401 ? "UNAUTHORIZED" : "INTERNAL", err.message), status);
  }
  const requestId = c.get("requestId");
  if (isDatabaseUnavailable(err)) return unavailable(err, c, requestId);
  console.error(`[${requestId}] unexpected error:`, loggableError(err));
  return c.json(errorBody("INTERNAL", "Unexpected failure", { requestId }), 500);
}

/** Seconds a client waits before retrying while the database is unreachable. */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

/**
 * The database is down, restarting or refusing connections: a transient `503 SERVICE_UNAVAILABLE`
 * with `Retry-After` and recovery `RETRY_LATER` (the same request may be sent again), logged in one line.
 */
function unavailable(err: unknown, c: Context<AppEnv>, requestId: string | undefined): Response {
  const reason = redactSecrets(err instanceof Error ? err.message : String(err));
  console.error(`[${requestId}] database unavailable: ${reason}`);
  c.header("Retry-After", String(UNAVAILABLE_RETRY_AFTER_SECONDS));
  const endpoint = `${c.req.method} ${c.req.path.replace(/^\/(api|svc)(?=\/)/, "")}`;
  return c.json(
    errorBody("SERVICE_UNAVAILABLE", "The service cannot reach its database right now; retry later", {
      requestId,
      recovery: recovery(
        "RETRY_LATER",
        endpoint,
        `Send the same request again after ${UNAVAILABLE_RETRY_AFTER_SECONDS} seconds (Retry-After)`,
      ),
    }),
    503,
  );
}
