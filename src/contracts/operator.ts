import { z } from "@hono/zod-openapi";
import { MEMBER_ROLES, ORG_STATUSES, PLANS, PROJECT_STATUSES } from "@/shared/vocabulary.ts";
import { AgentRoleSchema, ReviewModeSchema } from "./common.ts";

/**
 * An id as PostgreSQL's uuid type reads it in canonical form (any version). Anything else is malformed
 * (`400 VALIDATION_ERROR`); a well-formed id that names nothing is `404` (operator contract).
 */
export const ID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const Id = z.string().regex(ID_PATTERN, "Expected an id (UUID)").transform((v) => v.toLowerCase());

/** A path parameter naming a row by id (checked before the database sees it). */
export const IdParam = z.string().regex(ID_PATTERN, "Expected an id (UUID)").openapi({ format: "uuid" });

const Plan = z.enum(PLANS);
/**
 * (extension, issue 24) The MCP tool set of a project's agents: `spec`, the spec's 15 tools (the
 * default), or `coordination`, those plus the claim coordination tools (src/mcp/tools/coordination.ts).
 */
export const MCP_TOOL_SETS = ["spec", "coordination"] as const;
export type McpToolSet = typeof MCP_TOOL_SETS[number];
export const DEFAULT_MCP_TOOL_SET: McpToolSet = "spec";
const Settings = z.object({
  requireType: z.boolean().optional(),
  allowedTypes: z.array(z.string().min(1).max(50)).optional(),
  requireDescription: z.boolean().optional(),
  columns: z.array(z.string().min(1).max(30)).min(2).optional(),
  threadsEnabled: z.boolean().optional(),
  ledgerStaleMinutes: z.number().int().min(1).max(1440).optional(),
  mcpTools: z.enum(MCP_TOOL_SETS).optional().openapi({
    description: "Extension (issue 24): the MCP tools of the project's agents. `spec` (the default, shown " +
      "when unset): the spec's 15 tools; `coordination`: those plus svc_claim, svc_claim_check, svc_release, svc_claim_requests, " +
      "svc_release_request, svc_release_answer and svc_plan",
  }),
  requireClaimCoverage: z.boolean().optional().openapi({
    description:
      "(issue 25) When true, POST /handoff refuses `changedFiles` the session never held with 409 " +
      "COVERAGE_INCOMPLETE (session left open, ticket unmoved); default false: a handoff warning",
  }),
}).passthrough().openapi("OperatorProjectSettings");

export const OrgCreateBody = z.object({ name: z.string().min(1).max(200), plan: Plan.optional() })
  .openapi("OperatorOrgCreate");
export const OrgPatchBody = z.object({ plan: Plan.optional(), status: z.enum(ORG_STATUSES).optional() })
  .refine((v) => v.plan !== undefined || v.status !== undefined, "Provide plan or status")
  .openapi("OperatorOrgPatch");
export const UserCreateBody = z.object({
  email: z.string().email(),
  password: z.string().min(8).max(200),
  name: z.string().min(1).max(200),
}).openapi("OperatorUserCreate");
export const ProjectCreateBody = z.object({
  orgId: Id,
  name: z.string().min(1).max(200),
  ticketPrefix: z.string().regex(/^[A-Z]{2,10}$/, "2 to 10 upper-case letters"),
  reviewMode: ReviewModeSchema.optional(),
  password: z.string().min(1).max(200).optional(),
  settings: Settings.optional(),
}).openapi("OperatorProjectCreate");
export const ProjectPatchBody = z.object({
  name: z.string().min(1).max(200).optional(),
  reviewMode: ReviewModeSchema.optional(),
  password: z.string().max(200).nullable().optional(),
  settings: Settings.optional(),
  status: z.enum(PROJECT_STATUSES).optional(),
}).openapi("OperatorProjectPatch");
export const MemberAddBody = z.object({ userId: Id, role: z.enum(MEMBER_ROLES) }).openapi(
  "OperatorMemberAdd",
);
export const PairingCodeBody = z.object({
  agentName: z.string().min(1).max(64).optional(),
  role: AgentRoleSchema.optional(),
  platform: z.string().min(1).max(64).optional(),
  model: z.string().min(1).max(64).optional(),
}).openapi("OperatorPairingCode");
export const ApiKeyBody = z.object({
  name: z.string().min(1).max(100).optional(),
  agentName: z.string().min(1).max(64),
  role: AgentRoleSchema.optional(),
  scopes: z.array(z.string()).optional(),
}).openapi("OperatorApiKeyCreate");
export const ClockBody = z.object({ advanceMs: z.number().int().min(0) }).openapi("OperatorClockAdvance");
/** `limit` (1 to 100, default 50) and `cursor` of a list. */
export const PageQuery = z.object({
  limit: z.string().regex(/^\d+$/, "An integer from 1 to 100").transform(Number)
    .pipe(z.number().int().min(1).max(100)).optional(),
  cursor: z.string().min(1).max(300).optional(),
});

/** `{ data, meta }` of an operator answer (`meta.nextCursor` on lists: null on the last page). */
export const OperatorEnvelope = z.object({
  data: z.unknown(),
  meta: z.object({ nextCursor: z.string().nullable().optional() }).passthrough(),
}).openapi("OperatorEnvelope");

/** An event kind an endpoint subscribes to: exact (`ticket.moved`), a prefix with a wildcard (`claim.*`), or `*`. */
export const WEBHOOK_EVENT_PATTERN = /^(\*|[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*(\.\*)?)$/;
const WebhookEvents = z.array(
  z.string().max(100).regex(
    WEBHOOK_EVENT_PATTERN,
    "A kind (ticket.moved), a prefix with a wildcard (claim.*) or *",
  ),
).min(1).max(50).openapi({
  description:
    "Event kinds delivered: exact (`ticket.moved`), a prefix with a wildcard (`claim.*`) or `*` (all)",
  example: ["ticket.*", "claim.acquired"],
});
const WebhookUrl = z.string().min(1).max(2000).openapi({
  description:
    "`https` only; refused when it resolves to a loopback, private, link-local or cloud metadata " +
    "address (checked again before each delivery). `SVC_WEBHOOK_ALLOW_LOOPBACK=1` allows `http` and loopback.",
  example: "https://hooks.example.com/coordination",
});
export const WebhookCreateBody = z.object({
  url: WebhookUrl,
  events: WebhookEvents,
  description: z.string().max(500).optional(),
}).openapi("OperatorWebhookCreate");
export const WebhookPatchBody = z.object({
  url: WebhookUrl.optional(),
  events: WebhookEvents.optional(),
  description: z.string().max(500).optional(),
}).refine((v) => v.url !== undefined || v.events !== undefined || v.description !== undefined, {
  message: "Provide url, events or description",
}).openapi("OperatorWebhookPatch");
/** The operator's ledger exports (`ledger verify`): `afterSeq` (default 0) and `limit`. */
export const LedgerExportQuery = z.object({
  afterSeq: z.string().regex(/^\d+$/, "A ledger seq").transform(Number).optional(),
  limit: z.string().regex(/^\d+$/, "An integer from 1 to 1000").transform(Number)
    .pipe(z.number().int().min(1).max(1000)).optional(),
});
