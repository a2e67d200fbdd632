import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "@/http/env.ts";

/** Events routes. */
export function registerEvents(_api: OpenAPIHono<AppEnv>): void {
}
