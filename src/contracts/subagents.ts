import { z } from "@hono/zod-openapi";
import { AgentRoleSchema, envelope } from "./common.ts";

export const SUBAGENT_MAX_TTL_HOURS = 72;
export const SUBAGENT_DEFAULT_TTL_HOURS = 24;

const SubAgentName = z.string().regex(
  /^[A-Za-z0-9_-]{1,64}$/,
  "1 to 64 letters, digits, underscores or dashes",
)
  .openapi({ example: "worker-1" });

export const SubAgentMintRequest = z.object({
  name: SubAgentName,
  role: AgentRoleSchema.extract(["generator", "evaluator", "orchestrator"]).openapi({
    description: "generator or evaluator; orchestrator is refused with 422",
  }),
  ttlHours: z.number().int().min(1).max(SUBAGENT_MAX_TTL_HOURS).default(SUBAGENT_DEFAULT_TTL_HOURS).openapi({
    description: `1 to ${SUBAGENT_MAX_TTL_HOURS}, default ${SUBAGENT_DEFAULT_TTL_HOURS}`,
  }),
}).strict().openapi("SubAgentMintRequest");

export const SubAgentMintResult = z.object({
  subAgentToken: z.string().openapi({ example: "svc_sub_Hn4Tq8Wz1Lc6Rv3Bx9Mk2Pf7Yd5Gs0Ja8Ue4Io1Kt6Nw" }),
  sessionId: z.string().uuid(),
  name: z.string(),
  expiresAt: z.string().openapi({ description: "ttlHours after minting" }),
  role: AgentRoleSchema.extract(["generator", "evaluator"]),
  scopes: z.array(z.string()),
}).openapi("SubAgentMintResult");

export const SubAgentDeleteRequest = z.object({ name: SubAgentName }).strict().openapi(
  "SubAgentDeleteRequest",
);

export const SubAgentDeleteResult = z.object({
  ok: z.literal(true),
  name: z.string(),
  completedSessionIds: z.array(z.string()),
  revokedTokens: z.number().int(),
}).openapi("SubAgentDeleteResult");

export const SubAgentMintResponse = envelope(SubAgentMintResult);
export const SubAgentDeleteResponse = envelope(SubAgentDeleteResult);
