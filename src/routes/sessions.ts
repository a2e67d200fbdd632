import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "@/http/env.ts";

/** Sessions routes. */
export function registerSessions(_api: OpenAPIHono<AppEnv>): void {
}
