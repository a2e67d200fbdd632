import type { OpenAPIHono } from "@hono/zod-openapi";
import { MeResponse } from "@/contracts/me.ts";
import { describeMe } from "@/domain/sessions/me.ts";
import type { AppEnv } from "@/http/env.ts";
import { ok } from "@/http/envelope.ts";
import { defineRoute, handle } from "@/http/route.ts";

export const meRoute = defineRoute({
  method: "get",
  path: "/me",
  tags: ["Pairing and sessions"],
  summary: "Who the caller is",
  description:
    "Any valid token, no scope (every token type and role). Cached 30 seconds per token (same body and cachedAt), except plan.callsRemaining, which is current " +
    "(the lower of the agent's and the project's hourly windows, as meta.callsRemaining; null on unlimited " +
    "plans). session is null for API keys, which have no session. With X-Svc-SubAgent (session tokens) the " +
    "body describes the sub-agent: agent.subAgentName, its role, its own session and the sub-agent scopes. " +
    "Session token lifetime (svc_sess_): 7 days from issue (hard limit, not extended by use) and a 24-hour " +
    "idle window that every authenticated call restarts; more than 200 requests in 5 minutes on one " +
    "session token answer 401; the token stops working when its session completes or is canceled. " +
    "Rotate with POST /session/refresh (or take meta.refreshedToken from GET /context near the limit).",
  responses: { 200: { description: "The caller", content: { "application/json": { schema: MeResponse } } } },
}, { cost: 1 });

export function registerMe(api: OpenAPIHono<AppEnv>): void {
  handle(api, meRoute, async ({ c, ctx }) => ok(c, await describeMe(ctx)));
}
