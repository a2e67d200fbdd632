import type { MiddlewareHandler } from "hono";
import { cors } from "hono/cors";
import type { AppEnv } from "./env.ts";

/**
 * CORS for browser clients of the REST API: only the origins in `CORS_ORIGINS` (none by default; `*`
 * allows any, without credentials: the API authenticates with bearer tokens, never cookies). The MCP
 * endpoint's `Origin` check is separate and unaffected.
 */
export function apiCors(origins: readonly string[]): MiddlewareHandler<AppEnv> {
  const any = origins.includes("*");
  const allowed = (origin: string | undefined) => origin !== undefined && (any || origins.includes(origin));
  const handler = cors({
    origin: (origin) => (any ? "*" : origins.includes(origin) ? origin : null),
    allowMethods: ["GET", "POST", "PATCH", "DELETE", "OPTIONS"],
    allowHeaders: ["Authorization", "Content-Type", "Idempotency-Key", "X-Svc-Platform", "X-Request-Id"],
    exposeHeaders: ["X-Request-Id", "Retry-After", "ETag", "X-RateLimit-Remaining"],
    maxAge: 600,
  });
  // A request from no allowed origin passes through untouched: an OPTIONS to an unknown path stays the
  // JSON 404 every other method gets, and nothing answers a preflight the service would refuse.
  return async (c, next) => allowed(c.req.header("origin")) ? await handler(c, next) : await next();
}

/** The policy of HTML pages that set none themselves (the docs page runs Scalar's bundle from this origin). */
const DEFAULT_CSP =
  "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; " +
  "img-src 'self' data:; font-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'";

/** Security headers on every HTML response; a page's own stricter values (the OAuth pages) are kept. */
export function htmlSecurityHeaders(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await next();
    if (!(c.res.headers.get("content-type") ?? "").includes("text/html")) return;
    const set = (name: string, value: string) => {
      if (!c.res.headers.has(name)) c.res.headers.set(name, value);
    };
    set("Content-Security-Policy", DEFAULT_CSP);
    set("X-Frame-Options", "DENY");
    set("X-Content-Type-Options", "nosniff");
    set("Referrer-Policy", "no-referrer");
    set("Cross-Origin-Opener-Policy", "same-origin");
  };
}
