import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "@/http/env.ts";

/** Handoff routes. */
export function registerHandoff(_api: OpenAPIHono<AppEnv>): void {
}
