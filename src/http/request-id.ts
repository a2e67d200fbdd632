import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "./env.ts";

/** The longest `X-Request-Id` echoed back. */
export const MAX_REQUEST_ID_LENGTH = 64;
const ACCEPTABLE = new RegExp(`^[\\x21-\\x7e]{1,${MAX_REQUEST_ID_LENGTH}}$`);

/**
 * Echoes a supplied `X-Request-Id` of 1 to MAX_REQUEST_ID_LENGTH visible ASCII characters; anything else (longer,
 * empty, with spaces or control characters) is replaced by a generated UUID (documented design).
 */
export function requestId(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const supplied = c.req.header("x-request-id");
    const id = supplied && ACCEPTABLE.test(supplied) ? supplied : crypto.randomUUID();
    c.set("requestId", id);
    c.header("X-Request-Id", id);
    await next();
    c.res.headers.set("X-Request-Id", id);
  };
}
