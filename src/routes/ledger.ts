import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "@/http/env.ts";

/** Ledger routes. */
export function registerLedger(_api: OpenAPIHono<AppEnv>): void {
}
