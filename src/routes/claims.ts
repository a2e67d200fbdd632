import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "@/http/env.ts";

/** Claims routes. */
export function registerClaims(_api: OpenAPIHono<AppEnv>): void {
}
