import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "@/http/env.ts";

/** Workflow routes. */
export function registerWorkflow(_api: OpenAPIHono<AppEnv>): void {
}
