import type { MiddlewareHandler } from "hono";
import { DomainError } from "@/domain/core/errors.ts";
import type { FieldError } from "@/shared/field-errors.ts";
import type { AppEnv } from "./env.ts";

const WITH_BODY = new Set(["POST", "PATCH", "PUT", "DELETE"]);
const OAUTH_SELF_GUARDED = new Set(["/api/oauth/token", "/api/oauth/revoke", "/api/oauth/register"]);
const MAX_REPORTED = 20;
/** `\u0000` or a surrogate escape `\uD800`..`\uDFFF`, in any letter case. */
const UNSTORABLE_ESCAPE = /\\u(0000|d[89a-f][0-9a-f]{2})/i;

/**
 * Why a string cannot be stored: PostgreSQL refuses NUL (`\u0000`) in `text` and `jsonb`, and a lone
 * UTF-16 surrogate has no UTF-8 form (the drivers would silently turn it into U+FFFD). Null when fine.
 */
export function unstorableReason(value: string): string | null {
  if (value.includes("\u0000")) return "Must not contain the NUL character (\\u0000)";
  if (!value.isWellFormed()) return "Must not contain a lone UTF-16 surrogate";
  return null;
}

interface Frame {
  value: unknown;
  parent: Frame | null;
  key: string | number | null;
}

function framePath(frame: Frame, extra?: string): string {
  const parts: string[] = extra === undefined ? [] : [extra];
  for (let f: Frame | null = frame; f && f.key !== null; f = f.parent) parts.push(String(f.key));
  return parts.reverse().join(".") || "(root)";
}

/**
 * Every string value and every key of a parsed JSON document that cannot be stored, walked with an
 * explicit stack (bodies may be nested deeper than the call stack allows).
 */
export function unstorableStrings(root: unknown): FieldError[] {
  const found: FieldError[] = [];
  const stack: Frame[] = [{ value: root, parent: null, key: null }];
  while (stack.length > 0 && found.length < MAX_REPORTED) {
    const frame = stack.pop()!;
    const value = frame.value;
    if (typeof value === "string") {
      const reason = unstorableReason(value);
      if (reason) found.push({ path: framePath(frame), message: reason, code: "invalid_string" });
    } else if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], parent: frame, key: i });
    } else if (value !== null && typeof value === "object") {
      const keys = Object.keys(value);
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i]!;
        const reason = unstorableReason(key);
        if (reason) {
          found.push({ path: framePath(frame, key), message: `Key: ${reason}`, code: "invalid_key" });
        }
        stack.push({ value: (value as Record<string, unknown>)[key], parent: frame, key });
      }
    }
  }
  return found;
}

function refuse(target: "json" | "query" | "param", fields: FieldError[]): never {
  const first = fields[0]!;
  throw new DomainError("invalid", "VALIDATION_ERROR", `Invalid ${first.path}: ${first.message}`, {
    target,
    fields,
  });
}

function decodeSegment(segment: string): string | null {
  if (!segment.includes("%")) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    return null; // malformed escapes are left to the router (kept raw, never stored decoded)
  }
}

/**
 * Refuses, with 400 VALIDATION_ERROR and `details.fields`, text the database cannot store (NUL, lone
 * surrogates) anywhere in the request: path segments, query names and values, and every string and key
 * of a JSON body at any depth. Mounted once for `/api`, `/svc` and `/admin`, after the body guards; the
 * body text stays cached on the request so the route validators read it again without a second stream.
 */
export function textGuard(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    // The OAuth token, revocation and registration endpoints refuse such text themselves, in the OAuth
    // error shape (registration: a redirect URI with NUL is `invalid_redirect_uri`, a name is cleaned).
    if (OAUTH_SELF_GUARDED.has(c.req.path)) return await next();
    const url = new URL(c.req.url);
    const pathFields: FieldError[] = [];
    for (const segment of url.pathname.split("/")) {
      const decoded = decodeSegment(segment);
      const reason = decoded === null ? null : unstorableReason(decoded);
      if (reason) pathFields.push({ path: "(path)", message: reason, code: "invalid_string" });
    }
    if (pathFields.length > 0) refuse("param", pathFields);

    if (url.search.length > 1) {
      const queryFields: FieldError[] = [];
      for (const [name, value] of url.searchParams) {
        const reason = unstorableReason(name) ?? unstorableReason(value);
        if (reason) queryFields.push({ path: name, message: reason, code: "invalid_string" });
      }
      if (queryFields.length > 0) refuse("query", queryFields);
    }

    const type = c.req.header("content-type");
    if (WITH_BODY.has(c.req.method) && type !== undefined && /json/i.test(type)) {
      // Read errors (a body over the limit) propagate to the body guard; the text stays cached on
      // c.req, so the route validators parse the same text again without a second stream.
      const text = await c.req.text();
      let parsed: unknown = undefined;
      try {
        // JSON text can carry NUL or a lone surrogate only as a `\u` escape (a raw control character is
        // invalid JSON; invalid UTF-8 decodes to U+FFFD): without one there is nothing to walk.
        if (UNSTORABLE_ESCAPE.test(text)) parsed = JSON.parse(text);
      } catch {
        parsed = undefined; // malformed JSON: the route's own validation answers it
      }
      if (parsed !== undefined) {
        const bodyFields = unstorableStrings(parsed);
        if (bodyFields.length > 0) refuse("json", bodyFields);
      }
    }
    await next();
  };
}
