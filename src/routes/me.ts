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
    "Cached 30 seconds per token (same body and cachedAt), except plan.callsRemaining, which is current.",
  responses: { 200: { description: "The caller", content: { "application/json": { schema: MeResponse } } } },
}, { cost: 1 });

export function registerMe(api: OpenAPIHono<AppEnv>): void {
  handle(api, meRoute, async ({ c, ctx }) => ok(c, await describeMe(ctx)));
}
