import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { DomainError } from "@/domain/core/errors.ts";
import type { AppEnv } from "./env.ts";

export { MAX_BODY_BYTES, PAIRING_MAX_BODY_BYTES } from "@/contracts/common.ts";

/**
 * Deepest JSON nesting a body may have (the top-level object or array is level 1). PostgreSQL parses
 * jsonb recursively: deeper documents exhaust its stack (embedded PGlite aborts), so they are refused
 * before any parsing.
 */
export const MAX_JSON_DEPTH = 64;

/** The nesting depth of JSON text, from its brackets outside strings (no parsing); stops past `limit`. */
export function jsonDepth(text: string, limit = Infinity): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 0x5c) i++; // backslash: skip the escaped character
      else if (ch === 0x22) inString = false;
    } else if (ch === 0x22) inString = true;
    else if (ch === 0x5b || ch === 0x7b) {
      if (++depth > max) {
        max = depth;
        if (max > limit) return max;
      }
    } else if (ch === 0x5d || ch === 0x7d) depth--;
  }
  return max;
}

const JSON_TYPE = /^application\/([a-z0-9.+-]*\+)?json\s*(;|$)/i;
const FORM_TYPE = /^application\/x-www-form-urlencoded\s*(;|$)/i;
/** The consent page's and the dashboard's form posts read form-encoded bodies. */
const FORM_PATHS = new Set(["/oauth/authorize", "/signin", "/signout"]);
const isFormPath = (path: string) => FORM_PATHS.has(path) || path.startsWith("/projects/");
/**
 * The OAuth token and revocation endpoints also read form-encoded bodies (RFC 6749, RFC 7009) and answer
 * any other content type themselves, in the OAuth error shape (`invalid_request`). Client registration
 * answers a non-JSON body itself too (`invalid_client_metadata`).
 */
const OAUTH_TOKEN_PATHS = new Set(["/api/oauth/token", "/api/oauth/revoke", "/api/oauth/register"]);
const WITH_BODY = new Set(["POST", "PATCH", "PUT", "DELETE"]);

function hasBody(req: Request): boolean {
  const length = req.headers.get("content-length");
  if (length !== null) return Number(length) > 0;
  return req.body !== null;
}

/**
 * Refuses, before any parsing: a body over the size limit (413 PAYLOAD_TOO_LARGE), a body without a
 * JSON content type (415 VALIDATION_ERROR; not on the OAuth token and revocation paths, which read forms)
 * and JSON nested deeper than MAX_JSON_DEPTH (400 VALIDATION_ERROR). Requests without a body (no
 * Content-Length or `0`, or an empty stream) pass untouched, whatever their method and content type. The body text stays cached on the request for the validators.
 */
export function bodyGuards(limitFor: (path: string) => number): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (!WITH_BODY.has(c.req.method) || !hasBody(c.req.raw)) return await next();
    const limit = limitFor(c.req.path);
    const limiter = bodyLimit({
      maxSize: limit,
      onError: () => {
        throw new DomainError("too_large", "PAYLOAD_TOO_LARGE", `Request body exceeds ${limit} bytes`, {
          maxBytes: limit,
        });
      },
    });
    return await limiter(c, async () => {
      // Without Content-Length or Transfer-Encoding a request has no body (RFC 9112, 6.3), yet Deno
      // presents an empty stream for a bodiless DELETE: an empty body is no body (no 415 for it).
      const framed = c.req.header("content-length") !== undefined || c.req.header("transfer-encoding");
      if (!framed && (await c.req.text()) === "") return await next();
      const type = c.req.header("content-type") ?? "";
      if (OAUTH_TOKEN_PATHS.has(c.req.path) && !JSON_TYPE.test(type)) return await next();
      if (FORM_TYPE.test(type) && isFormPath(c.req.path)) return await next();
      if (!JSON_TYPE.test(type)) {
        throw new DomainError(
          "unsupported_media",
          "VALIDATION_ERROR",
          "Content-Type must be application/json",
          {
            contentType: type || null,
            fields: [{
              path: "(header) content-type",
              message: "Expected application/json",
              code: "invalid_type",
            }],
          },
        );
      }
      if (jsonDepth(await c.req.text(), MAX_JSON_DEPTH) > MAX_JSON_DEPTH) {
        const message = `JSON nested deeper than ${MAX_JSON_DEPTH} levels`;
        throw new DomainError("invalid", "VALIDATION_ERROR", message, {
          target: "json",
          maxDepth: MAX_JSON_DEPTH,
          fields: [{ path: "(root)", message, code: "too_deep" }],
        });
      }
      await next();
    });
  };
}
