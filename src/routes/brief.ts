import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "@/http/env.ts";

/** Brief routes. */
export function registerBrief(_api: OpenAPIHono<AppEnv>): void {
}
