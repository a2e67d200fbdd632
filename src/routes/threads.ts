import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "@/http/env.ts";

/** Threads routes. */
export function registerThreads(_api: OpenAPIHono<AppEnv>): void {
}
