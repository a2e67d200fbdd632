import { z } from "@hono/zod-openapi";
import { envelope, PaginationSchema } from "./common.ts";
import { PLAN_ITEM_STATUSES } from "@/shared/vocabulary.ts";

export const SESSION_STATUSES = ["active", "awaiting_input", "error", "complete", "canceled"] as const;
export const ACTIVITY_TYPES = ["thought", "action", "elicitation", "response", "error"] as const;
export const MAX_PLAN_ITEMS = 50;
export const ACTIVITY_BODY_MAX = 4000;
export const RESPONSE_BODY_MAX = 8000;
export const ACTIVITY_RESULT_MAX = 4000;

export const SessionIdParam = z.object({
  sessionId: z.string().openapi({
    param: { name: "sessionId", in: "path" },
    example: "3f6c2a1e-8b4d-4e7f-9a0c-5d2b1e8f7a64",
  }),
});

export const PlanItem = z.object({
  content: z.string().min(1).max(1000).openapi({ description: "1 to 1000 characters" }),
  status: z.enum(PLAN_ITEM_STATUSES),
}).strict().openapi("SessionPlanItem");

export const EnvironmentReport = z.object({
  model: z.string().max(100).optional(),
  company: z.string().max(100).optional(),
  platform: z.string().max(100).optional(),
  git_branch: z.string().max(500).optional(),
  git_remote: z.string().max(500).optional(),
  working_dir: z.string().max(500).optional(),
  git_head: z.string().max(100).optional(),
  skill_hash: z.string().max(100).optional(),
  uncommitted_files: z.array(z.string().max(1000)).max(200).optional().openapi({
    description: "Up to 200 paths, each up to 1000 characters",
  }),
}).catchall(z.unknown()).openapi("EnvironmentReport", {
  description: "Every field optional; unknown fields are kept and returned as sent. Posting again replaces " +
    "the whole report (no merge).",
});

export const Session = z.object({
  id: z.string().uuid(),
  status: z.enum(SESSION_STATUSES),
  startedAt: z.string(),
  endedAt: z.string().nullable().openapi({ description: "When the session completed or was canceled" }),
  plan: z.array(PlanItem).max(MAX_PLAN_ITEMS),
  planVersion: z.number().int().openapi({ description: "0 before any plan; +1 on each plan replacement" }),
  agent: z.object({ id: z.string(), name: z.string(), subAgentName: z.string().nullable() }),
  source: z.enum(["pairing", "subagent", "oauth", "api_key"]),
  ticketId: z.string().nullable().openapi({ description: "Ticket linked by POST /begin" }),
  environmentReport: z.record(z.string(), z.unknown()).nullable().openapi({
    description: "Last POST /session/{sessionId}/report body, or null",
  }),
  reportedAt: z.string().nullable(),
  activityCount: z.number().int().openapi({ description: "Activities ever posted, ephemeral ones included" }),
}).openapi("Session");

export const Activity = z.object({
  id: z.string().uuid(),
  type: z.enum(ACTIVITY_TYPES),
  body: z.string().nullable(),
  action: z.string().nullable(),
  parameter: z.string().nullable(),
  result: z.string().nullable(),
  ephemeral: z.boolean(),
  createdAt: z.string(),
}).openapi("SessionActivity");

export const SessionQuery = z.object({
  limit: z.coerce.number().int().min(1).max(500).default(100).openapi({
    description: "Activities per page, 1 to 500 (default 100)",
  }),
  offset: z.coerce.number().int().min(0).default(0),
});

export const SessionDetail = z.object({
  session: Session,
  activities: z.array(Activity).openapi({ description: "Oldest first" }),
  pagination: PaginationSchema,
}).openapi("SessionDetail");

export const SessionPatch = z.object({
  status: z.enum(["canceled", "complete"]).optional(),
  plan: z.array(PlanItem).max(MAX_PLAN_ITEMS).optional().openapi({ description: "Replaces the whole plan" }),
  expectedPlanVersion: z.number().int().min(0).optional().openapi({
    description: "Optimistic lock: refused with 409 CONFLICT (details.currentPlanVersion) when stale",
  }),
}).strict().refine((v) => v.status !== undefined || v.plan !== undefined, {
  message: "Provide status or plan",
  path: ["status"],
}).openapi("SessionPatchRequest");

export const ActivityInput = z.object({
  type: z.enum(ACTIVITY_TYPES),
  body: z.string().min(1).max(RESPONSE_BODY_MAX).optional().openapi({
    description:
      `Required except for type action; up to ${ACTIVITY_BODY_MAX} characters (${RESPONSE_BODY_MAX} for response)`,
  }),
  action: z.string().min(1).max(200).optional().openapi({ description: "Type action only; required there" }),
  parameter: z.string().min(1).max(4000).optional().openapi({
    description: "Type action only; required there",
  }),
  result: z.string().max(ACTIVITY_RESULT_MAX).optional().openapi({
    description: "Type action only; optional",
  }),
  ephemeral: z.boolean().default(false).openapi({
    description:
      "thought and action only. An ephemeral activity is replaced (removed) by the next activity " +
      "posted to the session",
  }),
}).strict().superRefine((v, ctx) => {
  const issue = (path: string, message: string) => ctx.addIssue({ code: "custom", path: [path], message });
  if (v.type !== "action" && v.body === undefined) issue("body", `body is required for type ${v.type}`);
  if (v.body !== undefined && v.type !== "response" && v.body.length > ACTIVITY_BODY_MAX) {
    issue("body", `body is at most ${ACTIVITY_BODY_MAX} characters (${RESPONSE_BODY_MAX} for response)`);
  }
  if (v.type === "action") {
    if (v.action === undefined) issue("action", "action is required for type action");
    if (v.parameter === undefined) issue("parameter", "parameter is required for type action");
  } else {
    for (const field of ["action", "parameter", "result"] as const) {
      if (v[field] !== undefined) issue(field, `${field} is only accepted on type action`);
    }
  }
  if (v.ephemeral && v.type !== "thought" && v.type !== "action") {
    issue("ephemeral", "ephemeral is only allowed on thought and action activities");
  }
}).openapi("SessionActivityRequest");

export const ActivityResult = z.object({
  activityId: z.string().uuid(),
  sessionId: z.string().uuid(),
  status: z.enum(SESSION_STATUSES).openapi({ description: "Session status after the post" }),
}).openapi("SessionActivityResult");

export const ReportResult = z.object({ ok: z.literal(true), sessionId: z.string().uuid() })
  .openapi("SessionReportResult");

export const RefreshRequest = z.object({
  token: z.string().min(1).max(500).openapi({ description: "The session token (svc_sess_...) to rotate" }),
}).strict().openapi("SessionRefreshRequest");

export const RefreshResult = z.object({
  sessionToken: z.string().openapi({ example: "svc_sess_q7Vb2LxR9mTz4KpW1nYc8HdF3sJ6gA0eUo5iZrN2tQk" }),
  sessionId: z.string().uuid(),
  agent: z.object({ id: z.string(), name: z.string() }),
  expiresAt: z.string().openapi({ description: "Hard limit of the new token: 7 days after the refresh" }),
  refreshMode: z.enum(["live", "grace"]).openapi({
    description: "live: the old token was still valid; grace: it had expired (at most 7 days ago)",
  }),
  nextAction: z.object({
    action: z.literal("RELOAD_CONTEXT"),
    endpoint: z.literal("GET /context"),
    message: z.string(),
  }).openapi("SessionRefreshNextAction"),
}).openapi("SessionRefreshResult");

export const SessionDetailResponse = envelope(SessionDetail);
export const SessionResponse = envelope(Session);
export const ActivityResponse = envelope(ActivityResult);
export const ReportResponse = envelope(ReportResult);
export const RefreshResponse = envelope(RefreshResult);
