import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { DomainError } from "@/domain/shared/errors.ts";
import type { AppEnv } from "./env.ts";

/** Largest request body of any REST endpoint (documented design); pairing allows 64 KB. */
export const MAX_BODY_BYTES = 1024 * 1024;
export const PAIRING_MAX_BODY_BYTES = 64 * 1024;

const JSON_TYPE = /^application\/([a-z0-9.+-]*\+)?json\s*(;|$)/i;
const WITH_BODY = new Set(["POST", "PATCH", "PUT", "DELETE"]);

function hasBody(req: Request): boolean {
  const length = req.headers.get("content-length");
  if (length !== null) return Number(length) > 0;
  return req.body !== null;
}

/**
 * Refuses, before any parsing: a body over the size limit (413 PAYLOAD_TOO_LARGE) and a body
 * without a JSON content type (415 VALIDATION_ERROR).
 */
export function bodyGuards(limitFor: (path: string) => number): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (!WITH_BODY.has(c.req.method) || !hasBody(c.req.raw)) return await next();
    const limit = limitFor(c.req.path);
    const limiter = bodyLimit({
      maxSize: limit,
      onError: () => {
        throw new DomainError(413, "PAYLOAD_TOO_LARGE", `Request body exceeds ${limit} bytes`, {
          maxBytes: limit,
        });
      },
    });
    return await limiter(c, async () => {
      const type = c.req.header("content-type") ?? "";
      if (!JSON_TYPE.test(type)) {
        throw new DomainError(415, "VALIDATION_ERROR", "Content-Type must be application/json", {
          contentType: type || null,
          fields: [{
            path: "(header) content-type",
            message: "Expected application/json",
            code: "invalid_type",
          }],
        });
      }
      await next();
    });
  };
}
