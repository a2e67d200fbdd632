import { z } from "@hono/zod-openapi";
import { AGENT_ROLES, NEXT_ACTIONS, PROJECT_PHASES, REVIEW_MODES } from "@/shared/vocabulary.ts";

/** Largest request body of any REST endpoint (documented design); pairing allows less. */
export const MAX_BODY_BYTES = 1024 * 1024;
export const PAIRING_MAX_BODY_BYTES = 64 * 1024;

export const RecoverySchema = z.object({
  action: z.string().openapi({ example: "ADD_REQUIRED_FIELDS" }),
  endpoint: z.string().openapi({ example: "POST /ticket" }),
  payloadHint: z.record(z.string(), z.unknown()).nullable(),
  hint: z.string(),
}).openapi("Recovery");

export const FieldErrorSchema = z.object({
  path: z.string().openapi({ description: "Dotted path of the field; `(root)` for the whole body" }),
  message: z.string(),
  code: z.string().openapi({ description: "Zod issue code (too_small, invalid_type, ...)" }),
}).openapi("FieldError");

export const ErrorSchema = z.object({
  error: z.object({
    code: z.string().openapi({ example: "VALIDATION_ERROR" }),
    message: z.string(),
    details: z.object({
      recovery: RecoverySchema.optional(),
      fields: z.array(z.union([FieldErrorSchema, z.string()])).optional().openapi({
        description:
          "Validation failures: one `{ path, message, code }` per field. 400 REVIEW_HANDOFF_MISSING: " +
          "the names of the missing `reviewHandoff` fields (`summary`, `changedFiles`, `branch`)",
      }),
      requestId: z.string().optional().openapi({ description: "On 500 INTERNAL: equals X-Request-Id" }),
    }).catchall(z.unknown()).optional(),
  }),
}).openapi("Error");

export const MetaSchema = z.object({
  callsRemaining: z.number().optional().openapi({
    description: "Rate-limit units left in the hourly window; omitted on unlimited plans",
  }),
  context: z.record(z.string(), z.unknown()).optional().openapi({
    description:
      "Compact update about the caller's own situation, present only when there is something to report",
  }),
  responseBytes: z.number().optional().openapi({ description: "GET /context only: serialized size of data" }),
  refreshedToken: z.string().optional().openapi({
    description: "GET /context only: replacement session token near the 7-day limit",
  }),
}).openapi("Meta");

/** `{ data, meta }` around a data schema. */
export function envelope<T extends z.ZodType>(data: T) {
  return z.object({ data, meta: MetaSchema });
}

/**
 * A realistic answer per error status, published once under `components/examples` (`Error<status>`) and
 * shown on every operation that documents the status; operations show their own commonest error inline
 * (src/contracts/examples/).
 */
export const ERROR_EXAMPLES: Record<number, { summary: string; value: z.input<typeof ErrorSchema> }> = {
  400: {
    summary: "VALIDATION_ERROR",
    value: {
      error: {
        code: "VALIDATION_ERROR",
        message: "Invalid title: Too small: expected string to have >=1 characters",
        details: {
          fields: [{
            path: "title",
            message: "Too small: expected string to have >=1 characters",
            code: "too_small",
          }],
        },
      },
    },
  },
  401: {
    summary: "UNAUTHORIZED",
    value: { error: { code: "UNAUTHORIZED", message: "Missing bearer token" } },
  },
  403: {
    summary: "FORBIDDEN",
    value: {
      error: {
        code: "FORBIDDEN",
        message: 'Cannot call POST /ticket: missing scope "write:ticket"',
        details: {
          requiredScope: "write:ticket",
          recovery: {
            action: "REPAIR_OR_REFRESH",
            endpoint: "POST /pair/connect",
            payloadHint: { code: "<pairing code>" },
            hint: 'Pair again with a role whose token carries "write:ticket", or use a key that has it',
          },
        },
      },
    },
  },
  404: {
    summary: "NOT_FOUND",
    value: {
      error: {
        code: "NOT_FOUND",
        message: 'Cannot find sprint "9b3e2c71-5d0a-4f8e-a6c4-2e7d1f9b0a53" in this project',
      },
    },
  },
  409: {
    summary: "CONFLICT",
    value: {
      error: {
        code: "CONFLICT",
        message: "The ticket moved meanwhile: expected review, found done",
        details: { expectedStatus: "review", observedStatus: "done" },
      },
    },
  },
  413: {
    summary: "PAYLOAD_TOO_LARGE",
    value: {
      error: {
        code: "PAYLOAD_TOO_LARGE",
        message: "Request body exceeds 1048576 bytes",
        details: { maxBytes: 1048576 },
      },
    },
  },
  415: {
    summary: "VALIDATION_ERROR (content type)",
    value: { error: { code: "VALIDATION_ERROR", message: "Content-Type must be application/json" } },
  },
  422: {
    summary: "INVALID_TRANSITION",
    value: {
      error: {
        code: "INVALID_TRANSITION",
        message: 'Cannot move WEB-12 from "backlog" to "done"',
        details: { from: "backlog", to: "done", validTransitions: ["claimed", "in_progress", "cancelled"] },
      },
    },
  },
  429: {
    summary: "RATE_LIMITED",
    value: { error: { code: "RATE_LIMITED", message: "Rate limit exceeded; retry after the window resets" } },
  },
  500: {
    summary: "INTERNAL",
    value: {
      error: {
        code: "INTERNAL",
        message: "Unexpected failure",
        details: { requestId: "6f1d2c3b-8a4e-4b7f-9c0d-1e2f3a4b5c6d" },
      },
    },
  },
  503: {
    summary: "SERVICE_UNAVAILABLE",
    value: {
      error: {
        code: "SERVICE_UNAVAILABLE",
        message: "The service cannot reach its database right now; retry later",
        details: {
          requestId: "6f1d2c3b-8a4e-4b7f-9c0d-1e2f3a4b5c6d",
          recovery: {
            action: "RETRY_LATER",
            endpoint: "POST /ledger",
            payloadHint: null,
            hint: "Send the same request again after 5 seconds (Retry-After)",
          },
        },
      },
    },
  },
};

const errorContent = (status: number) => ({
  "application/json": {
    schema: ErrorSchema,
    ...(ERROR_EXAMPLES[status]
      ? { examples: { [ERROR_EXAMPLES[status].summary]: { $ref: `#/components/examples/Error${status}` } } }
      : {}),
  },
});

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400:
    "VALIDATION_ERROR: body or query failed validation (`details.fields`), or a gate with `details.recovery`",
  401: "UNAUTHORIZED: missing, malformed, expired or revoked credentials",
  403: "FORBIDDEN: missing scope or wrong role (`details.recovery`)",
  404: "NOT_FOUND or a more specific not-found code",
  409: "CONFLICT, VERSION_CONFLICT or IDENTITY_MISMATCH: state changed",
  413: `PAYLOAD_TOO_LARGE: body over the limit (${PAIRING_MAX_BODY_BYTES / 1024} KB for pairing, ${
    MAX_BODY_BYTES / 1024 / 1024
  } MiB elsewhere)`,
  415: "VALIDATION_ERROR: body without a JSON content type",
  422: "VALIDATION_ERROR, INVALID, INVALID_TRANSITION or BRIEF_REQUIRED: well-formed but refused by a rule",
  429: "RATE_LIMITED, BACKPRESSURE, LEDGER_STALE or ENDPOINT_RATE_LIMITED; read Retry-After",
  500: "INTERNAL: unexpected failure; `details.requestId` equals X-Request-Id",
  503: "SERVICE_UNAVAILABLE: try again later",
};

/** Error responses for a route, spread into its `responses`. */
export function errorResponses(...statuses: number[]) {
  const out: Record<number, { description: string; content: ReturnType<typeof errorContent> }> = {};
  for (const s of statuses) {
    out[s] = { description: ERROR_DESCRIPTIONS[s] ?? "Error", content: errorContent(s) };
  }
  return out;
}

/** The errors every JSON route without a bearer can answer (503: the database is unreachable). */
export const PUBLIC_ERRORS = [400, 413, 415, 429, 500, 503] as const;

/** The errors every authenticated JSON route can answer. */
export const COMMON_ERRORS = [...PUBLIC_ERRORS, 401, 403] as const;

/** `{ content: { "application/json": { schema } } }`: spread into a request body or a response. */
export const json = <T>(schema: T) => ({ content: { "application/json": { schema } } });

/** A JSON response: `{ description, content }`. */
export const jsonResponse = <T>(schema: T, description: string) => ({ description, ...json(schema) });

/** What the agent should do next, as context and handoff return it. */
export const NextActionSchema = z.object({
  action: z.enum(NEXT_ACTIONS),
  message: z.string(),
}).openapi("NextWorkAction");

/** Offset pagination of a list: `hasMore` when rows remain after this page. */
export const PaginationSchema = z.object({
  total: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
  hasMore: z.boolean(),
});

/** A project's review mode. */
export const ReviewModeSchema = z.enum(REVIEW_MODES);

/** Where a project stands (pairing, context). */
export const ProjectPhaseSchema = z.enum(PROJECT_PHASES);

/** An agent's role; narrower fields `.extract` from it. */
export const AgentRoleSchema = z.enum(AGENT_ROLES);

/** Who an agent is, as /me and context show it. */
export const AgentIdentity = z.object({
  id: z.string(),
  name: z.string(),
  platform: z.string().nullable(),
  model: z.string().nullable(),
  company: z.string().nullable(),
});
