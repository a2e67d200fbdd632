import type { OpenAPIHono } from "@hono/zod-openapi";
import { getConnInfo } from "hono/deno";
import { ConnectBody, ConnectResponse } from "@/contracts/pairing.ts";
import { errorResponses } from "@/contracts/common.ts";
import { connect } from "@/domain/pairing/connect.ts";
import type { AppEnv } from "@/http/env.ts";
import { serviceCtx } from "@/http/env.ts";
import { ok } from "@/http/envelope.ts";
import { defineRoute, handlePublic } from "@/http/route.ts";
import type { Context } from "hono";

export const pairConnectRoute = defineRoute({
  method: "post",
  path: "/pair/connect",
  tags: ["Pairing and sessions"],
  summary: "Pair an agent with a code and get a session token",
  description:
    "No Authorization header. Body at most 64 KB (413 PAYLOAD_TOO_LARGE). Errors: 400 BAD_REQUEST; " +
    "401 INVALID_CODE, PASSWORD_REQUIRED; 403 INVALID_PASSWORD (code not consumed), PROJECT_INACTIVE, " +
    "ORG_SUSPENDED, AGENT_REVOKED, AGENT_LIMIT; 404 PROJECT_NOT_FOUND, ORG_NOT_FOUND, AGENT_NOT_FOUND; " +
    "429 RATE_LIMITED (10 attempts per 5 minutes per IP); 503 SERVICE_UNAVAILABLE. A wrong password or a used " +
    "code presented by another agent is a strike; three strikes invalidate the code. The agent that consumed a " +
    "code may present it again within one hour of first use (status reconnected); it is recognised by name. " +
    "INVALID_CODE and AGENT_REVOKED carry recovery REQUEST_NEW_PAIRING_CODE. Agent limits per project: free 10, " +
    "builder 25, growth 100, team 500, enterprise unlimited. Pairing completes the agent's open sessions.",
  request: { body: { required: true, content: { "application/json": { schema: ConnectBody } } } },
  responses: {
    200: { description: "Paired", content: { "application/json": { schema: ConnectResponse } } },
    ...errorResponses(401, 403, 404, 503),
  },
}, { auth: "none", cost: 2, invalidCode: "BAD_REQUEST" });

/** The client address for per-IP limits; falls back to a constant in-process (tests, app.request). */
export function clientIp(c: Context<AppEnv>): string {
  if (c.get("deps").config.trustProxy) {
    const forwarded = c.req.header("x-forwarded-for")?.split(",")[0]?.trim();
    if (forwarded) return forwarded;
  }
  try {
    return getConnInfo(c).remote.address ?? "local";
  } catch {
    return "local";
  }
}

export function registerPairing(api: OpenAPIHono<AppEnv>): void {
  handlePublic(api, pairConnectRoute, async ({ c, body }) => {
    return ok(c, await connect(serviceCtx(c.get("deps")), body, clientIp(c)));
  });
}
