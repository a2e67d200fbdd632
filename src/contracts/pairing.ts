import { z } from "@hono/zod-openapi";
import { AgentRoleSchema, envelope, ProjectPhaseSchema } from "./common.ts";

export const ConnectBody = z.object({
  code: z.string().min(1).max(64).openapi({
    description: "Case and punctuation ignored",
    example: "ABCD-1234",
  }),
  password: z.string().max(200).optional(),
  agentName: z.string().min(1).max(64).optional().openapi({
    description: "Ignored when the code was issued for an existing agent or names one",
  }),
  platform: z.string().min(1).max(100).optional(),
  model: z.string().min(1).max(100).optional(),
  company: z.string().min(1).max(100).optional().openapi({
    description:
      "Inferred from platform when omitted (claude→Anthropic, codex/openai→OpenAI, gemini→Google, " +
      "copilot→GitHub, cursor→Anysphere, windsurf→Codeium, devin→Cognition)",
  }),
  capabilities: z.array(z.string().max(100)).max(50).optional(),
  compact: z.boolean().optional(),
  partnerManagedSessionId: z.string().min(1).max(200).optional(),
}).openapi("PairConnectRequest");

const Brief = z.object({ version: z.number().int(), content: z.string() }).nullable();
const IdList = z.object({ count: z.number().int(), ids: z.array(z.string()) });

export const WorkqueueItem = z.object({
  id: z.string(),
  number: z.number().int(),
  ticketRef: z.string(),
  title: z.string(),
  status: z.string(),
  type: z.string().nullable(),
}).openapi("WorkqueueItem");

export const ProjectSummary = z.object({
  id: z.string(),
  name: z.string(),
  phase: ProjectPhaseSchema,
  subphase: z.string().openapi({
    description: "brief_missing, tickets_missing, ready, in_progress, in_review or all_done",
  }),
}).openapi("ProjectSummary");

export const ConnectData = z.object({
  status: z.enum(["connected", "reconnected"]),
  sessionToken: z.string().openapi({ example: "svc_sess_q7Vb2LxR9mTz4KpW1nYc8HdF3sJ6gA0eUo5iZrN2tQk" }),
  sessionId: z.string().uuid(),
  agent: z.object({ id: z.string(), name: z.string(), platform: z.string().nullable() }),
  project: ProjectSummary,
  docsUrl: z.string().openapi({ description: "{origin}/docs" }),
  issuesUrl: z.string().openapi({
    description: "{origin}/api/issue: the project's open tickets (GET /issue)",
  }),
  schemaUrl: z.string().openapi({ description: "{origin}/openapi.json" }),
  mcpUrl: z.string(),
  ticketPrefix: z.string(),
  context: z.object({
    brief: Brief,
    claims: IdList,
    threads: IdList,
    skill: z.string().optional(),
    ledger: z.array(z.record(z.string(), z.unknown())).optional(),
    conflictZones: z.array(z.object({ file: z.string(), claimant: z.string(), expiresAt: z.string() }))
      .optional(),
    cursors: z.object({ events: z.string(), ledger: z.string().nullable() }).optional(),
  }).openapi({
    description: "Compact: brief, claims, threads. Full adds skill, ledger, conflictZones, cursors",
  }),
  workqueue: z.array(WorkqueueItem),
  message: z.string(),
}).openapi("PairConnectResponse");

export const ConnectResponse = envelope(ConnectData);

export const PairCodeRequest = z.object({
  agentName: z.string().min(1).max(64).openapi({ description: "Name of the agent the code pairs (1 to 64)" }),
  platform: z.string().min(1).max(64).optional().openapi({
    description: "1 to 64; when set, the paired agent records it",
  }),
  model: z.string().min(1).max(64).optional().openapi({ description: "1 to 64; when set, recorded" }),
  role: AgentRoleSchema.extract(["generator", "evaluator", "observer"]).default("generator"),
}).strict().openapi("PairCodeRequest");

export const PairCodeData = z.object({
  code: z.string().openapi({ example: "K7QMX2PA" }),
  expiresAt: z.string(),
  ttlSeconds: z.literal(3600),
  instructions: z.string(),
}).openapi("PairCodeResult");

export const PairCodeResponse = envelope(PairCodeData);

export const PairPromptQuery = z.object({
  code: z.string().optional().openapi({
    description: "Required: the pairing code (case and punctuation ignored)",
  }),
});
