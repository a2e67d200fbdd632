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
const Settings = z.object({
  requireType: z.boolean().optional(),
  allowedTypes: z.array(z.string().min(1).max(50)).optional(),
  requireDescription: z.boolean().optional(),
  columns: z.array(z.string().min(1).max(30)).min(2).optional(),
  threadsEnabled: z.boolean().optional(),
  ledgerStaleMinutes: z.number().int().min(1).max(1440).optional(),
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
