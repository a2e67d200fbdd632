import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "@/http/env.ts";

/** Tickets routes. */
export function registerTickets(_api: OpenAPIHono<AppEnv>): void {
}
