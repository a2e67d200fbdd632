import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "@/http/env.ts";

/** Context routes. */
export function registerContext(_api: OpenAPIHono<AppEnv>): void {
}
