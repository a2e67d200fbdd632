import { z } from "@hono/zod-openapi";
import { AgentRoleSchema, envelope } from "./common.ts";

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
  ttlHours: z.number().int().min(1).max(72).default(24).openapi({ description: "1 to 72, default 24" }),
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
