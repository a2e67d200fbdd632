import type { Context } from "hono";
import type { ZodError } from "zod";
import { errorBody, fieldErrors } from "./errors.ts";

/**
 * The one `defaultHook` for every validation failure: 400 VALIDATION_ERROR with `details.fields`
 * (`{ path, message, code }` per Zod issue) and `details.target` (`json`, `query` or `param`).
 */
export function validationHook(
  result: { success: true } | { success: false; error: ZodError; target?: string },
  c: Context,
): Response | undefined {
  if (result.success) return undefined;
  const fields = fieldErrors(result.error);
  const first = fields[0];
  const message = first ? `Invalid ${first.path}: ${first.message}` : "Validation failed";
  return c.json(errorBody("VALIDATION_ERROR", message, { target: result.target ?? "json", fields }), 400);
}
