/** Recovery hint carried by validation and permission refusals (spec: Errors). */
export interface Recovery {
  action: string;
  endpoint: string;
  payloadHint: Record<string, unknown> | null;
  hint: string;
}

export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 413 | 415 | 422 | 429 | 500 | 503;

/**
 * A refusal with a code from the spec. Domain verbs throw it; every surface maps it once.
 * `headers` carries response headers the spec ties to the refusal (Retry-After, X-Ledger-Stale-Reason...).
 */
export class DomainError extends Error {
  readonly status: ErrorStatus;
  readonly code: string;
  readonly details: Record<string, unknown> | undefined;
  readonly headers: Record<string, string>;

  constructor(
    status: ErrorStatus,
    code: string,
    message: string,
    details?: Record<string, unknown>,
    headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = "DomainError";
    this.status = status;
    this.code = code;
    this.details = details;
    this.headers = headers;
  }
}

export function recovery(
  action: string,
  endpoint: string,
  hint: string,
  payloadHint: Record<string, unknown> | null = null,
): Recovery {
  return { action, endpoint, payloadHint, hint };
}

type Details = Record<string, unknown>;

/** Shorthands for the common refusals. `details` may include `recovery`. */
export const fail = {
  validation: (message: string, details?: Details) =>
    new DomainError(400, "VALIDATION_ERROR", message, details),
  unprocessable: (message: string, details?: Details, code = "VALIDATION_ERROR") =>
    new DomainError(422, code, message, details),
  unauthorized: (message = "Missing or invalid credentials", details?: Details) =>
    new DomainError(401, "UNAUTHORIZED", message, details),
  forbidden: (message: string, details?: Details) => new DomainError(403, "FORBIDDEN", message, details),
  notFound: (message: string, details?: Details, code = "NOT_FOUND") =>
    new DomainError(404, code, message, details),
  conflict: (message: string, details?: Details, code = "CONFLICT") =>
    new DomainError(409, code, message, details),
};
