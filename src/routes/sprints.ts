import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "@/http/env.ts";

/** Sprints routes. */
export function registerSprints(_api: OpenAPIHono<AppEnv>): void {
}
