import { z } from "@hono/zod-openapi";
import { PLANS } from "@/shared/vocabulary.ts";
import { AgentIdentity, AgentRoleSchema, envelope } from "./common.ts";
import { ProjectSummary } from "./pairing.ts";

export const MeData = z.object({
  agent: AgentIdentity.extend({
    subAgentName: z.string().optional(),
  }),
  project: ProjectSummary,
  org: z.object({ id: z.string(), plan: z.enum(PLANS) }),
  scopes: z.array(z.string()).openapi({ description: "Empty array means unrestricted" }),
  sessionId: z.string().nullable(),
  session: z.object({ id: z.string(), status: z.string(), startedAt: z.string() }).nullable(),
  plan: z.object({
    tier: z.string(),
    callsRemaining: z.number().nullable().openapi({ description: "Never cached; null on unlimited plans" }),
    callsLimit: z.number().nullable(),
  }),
  role: AgentRoleSchema,
  cachedAt: z.number().int().openapi({ description: "Epoch milliseconds when the cached body was built" }),
}).openapi("Me");

export const MeResponse = envelope(MeData);
