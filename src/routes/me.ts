import type { OpenAPIHono } from "@hono/zod-openapi";
import { MeResponse } from "@/contracts/me.ts";
import {
  SESSION_BURST_LIMIT,
  SESSION_BURST_WINDOW_MS,
  SESSION_IDLE_MS,
  SESSION_MAX_AGE_MS,
  SESSION_TOKEN_PREFIX,
} from "@/domain/auth/token-policy.ts";
import { describeMe, ME_CACHE_MS, ME_CACHE_PREFETCH } from "@/domain/sessions/me.ts";
import type { AppEnv } from "@/http/env.ts";
import { ok } from "@/http/envelope.ts";
import { defineRoute, handle } from "@/http/route.ts";

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

export const meRoute = defineRoute({
  method: "get",
  path: "/me",
  tags: ["Pairing and sessions"],
  summary: "Who the caller is",
  description:
    `Any valid token, no scope (every token type and role). Cached ${
      ME_CACHE_MS / SECOND
    } seconds per token ` +
    "(same body and cachedAt), except plan.callsRemaining, which is current " +
    "(the lower of the agent's and the project's hourly windows, as meta.callsRemaining; null on unlimited " +
    "plans). session is null for API keys, which have no session. With X-Svc-SubAgent (session tokens) the " +
    "body describes the sub-agent: agent.subAgentName, its role, its own session and the sub-agent scopes. " +
    `Session token lifetime (${SESSION_TOKEN_PREFIX}): ${
      SESSION_MAX_AGE_MS / DAY
    } days from issue (hard limit, ` +
    `not extended by use) and a ${SESSION_IDLE_MS / HOUR}-hour ` +
    `idle window that every authenticated call restarts; more than ${SESSION_BURST_LIMIT} requests in ` +
    `${SESSION_BURST_WINDOW_MS / MINUTE} minutes on one ` +
    "session token answer 401; the token stops working when its session completes or is canceled. " +
    "Rotate with POST /session/refresh (or take meta.refreshedToken from GET /context near the limit).",
  responses: { 200: { description: "The caller", content: { "application/json": { schema: MeResponse } } } },
}, { cost: 1, prefetch: ME_CACHE_PREFETCH });

export function registerMe(api: OpenAPIHono<AppEnv>): void {
  handle(api, meRoute, async ({ c, ctx }) => ok(c, await describeMe(ctx, c.get("prefetched"))));
}
