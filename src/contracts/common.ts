import { z } from "@hono/zod-openapi";
import { AGENT_ROLES, NEXT_ACTIONS, PROJECT_PHASES, REVIEW_MODES } from "@/shared/vocabulary.ts";

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

const errorContent = { "application/json": { schema: ErrorSchema } };

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400:
    "VALIDATION_ERROR: body or query failed validation (`details.fields`), or a gate with `details.recovery`",
  401: "UNAUTHORIZED: missing, malformed, expired or revoked credentials",
  403: "FORBIDDEN: missing scope or wrong role (`details.recovery`)",
  404: "NOT_FOUND or a more specific not-found code",
  409: "CONFLICT, VERSION_CONFLICT or IDENTITY_MISMATCH: state changed",
  413: "PAYLOAD_TOO_LARGE: body over the limit (64 KB for pairing, 1 MiB elsewhere)",
  415: "VALIDATION_ERROR: body without a JSON content type",
  422: "VALIDATION_ERROR, INVALID, INVALID_TRANSITION or BRIEF_REQUIRED: well-formed but refused by a rule",
  429: "RATE_LIMITED, BACKPRESSURE, LEDGER_STALE or ENDPOINT_RATE_LIMITED; read Retry-After",
  500: "INTERNAL: unexpected failure; `details.requestId` equals X-Request-Id",
  503: "SERVICE_UNAVAILABLE: try again later",
};

/** Error responses for a route, spread into its `responses`. */
export function errorResponses(...statuses: number[]) {
  const out: Record<number, { description: string; content: typeof errorContent }> = {};
  for (const s of statuses) out[s] = { description: ERROR_DESCRIPTIONS[s] ?? "Error", content: errorContent };
  return out;
}

/** The errors every JSON route without a bearer can answer (503: the database is unreachable). */
export const PUBLIC_ERRORS = [400, 413, 415, 429, 500, 503] as const;

/** The errors every authenticated JSON route can answer. */
export const COMMON_ERRORS = [...PUBLIC_ERRORS, 401, 403] as const;

export const UuidSchema = z.string().uuid();
export const IsoDateTime = z.string().datetime({ offset: true });

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
