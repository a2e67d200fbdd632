/** Recovery hint carried by validation and permission refusals (spec: Errors). */
export interface Recovery {
  action: RecoveryAction;
  endpoint: string;
  payloadHint: Record<string, unknown> | null;
  hint: string;
}

/**
 * What kind of refusal an error is. The domain says what went wrong; each surface maps the kind once
 * (REST: an HTTP status in src/http/errors.ts; MCP forwards REST's answer).
 */
export type RefusalKind =
  | "invalid" // malformed or missing input
  | "unauthenticated" // no valid credentials
  | "forbidden" // valid credentials, not allowed
  | "not_found"
  | "conflict" // the state changed or is held by someone else
  | "too_large"
  | "unsupported_media"
  | "unprocessable" // well-formed, refused by a rule
  | "limited" // over a rate, burst or backpressure budget
  | "internal"
  | "unavailable"; // the database (or another dependency) is unreachable

/** What a limit refusal knows about the caller's budget; REST turns it into its rate headers. */
export interface RefusalLimits {
  /** Seconds until a retry can succeed (REST: Retry-After). */
  retryAfterSeconds?: number | undefined;
  /** The plan window at refusal time (REST: X-RateLimit-Limit/Remaining/Reset, X-Burst-Remaining). */
  rate?: { limit: number | null; resetAt: Date; burstRemaining: number } | undefined;
  /** A per-endpoint limit (REST: X-RateLimit-Endpoint, X-RateLimit-Window). */
  endpoint?: { name: string; window: string } | undefined;
  /** Why the caller's ledger counts as stale (REST: X-Ledger-Stale-Reason). */
  staleReason?: string | undefined;
}

/**
 * A refusal with a code from the spec. Domain verbs throw it; every surface maps it once. It carries
 * no transport detail: `kind` says what went wrong, `details` (with `recovery`) what to do, `limits`
 * when to retry.
 */
export class DomainError extends Error {
  readonly kind: RefusalKind;
  readonly code: string;
  readonly details: Record<string, unknown> | undefined;
  readonly limits: RefusalLimits;

  constructor(
    kind: RefusalKind,
    code: string,
    message: string,
    details?: Record<string, unknown>,
    limits: RefusalLimits = {},
  ) {
    super(message);
    this.name = "DomainError";
    this.kind = kind;
    this.code = code;
    this.details = details;
    this.limits = limits;
  }

  /** `details.recovery`, when the refusal names one. */
  get recovery(): Recovery | undefined {
    return this.details?.recovery as Recovery | undefined;
  }

  /** Seconds until a retry can succeed, when the refusal knows. */
  get retryAfterSeconds(): number | undefined {
    return this.limits.retryAfterSeconds;
  }
}

/** The recovery actions the spec lists (CONV-034; interface spec, Errors: special cases). */
export const SPEC_RECOVERY_ACTIONS = [
  "REPAIR_OR_REFRESH",
  "REPAIR",
  "LOG_TESTED_ENTRY",
  "SPLIT_BATCH",
  "RESOLVE_TICKET_REF",
  "ACKNOWLEDGE_CRITERIA",
  "ADD_CRITERIA",
  "USE_VALID_STATUS",
  "USE_VALID_TRANSITION",
  "APPROVE_VIA_ENDPOINT",
  "REQUEST_REVIEW",
  "REFRESH_TICKET_STATE",
  "ATTACH_REVIEW_HANDOFF",
  "ADD_REQUIRED_FIELDS",
  "WRITE_PROJECT_BRIEF",
  "LIST_SPRINTS",
  "FIX_SPRINT_FIELDS",
  "RETRY",
  "RESTART_PAGINATION",
  "PROVIDE_SESSION_ID",
  "SCOPE_BULK_CLOSE",
  "MINT_SUBAGENT_SESSION",
  "BEGIN_TICKET",
  "HANDOFF_WITHOUT_TICKET",
  "RETRY_WITH_PASSWORD",
  "REQUEST_NEW_PAIRING_CODE",
  "RETRY_LATER",
] as const;

/**
 * Actions the spec names for one endpoint outside that list, in its own words: PATCH /session's
 * `use_closeout_path` (SESS-057) and the per-file claim conflict actions of POST /claim.
 */
export const SPEC_ENDPOINT_RECOVERY_ACTIONS = [
  "use_closeout_path",
  "wait",
  "wait_or_contact",
  "release",
] as const;

/**
 * Extension actions. One added here must also be documented as an extension of the spec's list in the
 * OpenAPI description of each route that answers it. RELEASE_HELD_FILES: POST /claim's 409 DEADLOCK
 * (issue 24 point 4). Issue 25: RECLAIM_FILES (409 FENCE_STALE: a write named a fence no longer current),
 * CLAIM_FILES (409 COVERAGE_INCOMPLETE: a handoff changed files the session never held).
 */
export const EXTENSION_RECOVERY_ACTIONS = ["RELEASE_HELD_FILES", "RECLAIM_FILES", "CLAIM_FILES"] as const;

/**
 * Actions of the operator API only (outside the spec's agent-facing interface, documented with the operator
 * routes in the README): removing a project's last admin answers ADD_ANOTHER_ADMIN.
 */
export const OPERATOR_RECOVERY_ACTIONS = ["ADD_ANOTHER_ADMIN"] as const;

export type RecoveryAction =
  | typeof SPEC_RECOVERY_ACTIONS[number]
  | typeof SPEC_ENDPOINT_RECOVERY_ACTIONS[number]
  | typeof EXTENSION_RECOVERY_ACTIONS[number]
  | typeof OPERATOR_RECOVERY_ACTIONS[number];

/** Every action a `details.recovery` or a closeout remediation may carry. */
export const RECOVERY_ACTIONS: readonly RecoveryAction[] = [
  ...SPEC_RECOVERY_ACTIONS,
  ...SPEC_ENDPOINT_RECOVERY_ACTIONS,
  ...EXTENSION_RECOVERY_ACTIONS,
  ...OPERATOR_RECOVERY_ACTIONS,
];

export function recovery(
  action: RecoveryAction,
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
    new DomainError("invalid", "VALIDATION_ERROR", message, details),
  unprocessable: (message: string, details?: Details, code = "VALIDATION_ERROR") =>
    new DomainError("unprocessable", code, message, details),
  unauthorized: (message = "Missing or invalid credentials", details?: Details) =>
    new DomainError("unauthenticated", "UNAUTHORIZED", message, details),
  forbidden: (message: string, details?: Details) =>
    new DomainError("forbidden", "FORBIDDEN", message, details),
  notFound: (message: string, details?: Details, code = "NOT_FOUND") =>
    new DomainError("not_found", code, message, details),
  conflict: (message: string, details?: Details, code = "CONFLICT") =>
    new DomainError("conflict", code, message, details),
};
