import type { ZodError } from "zod";

/** One entry of `details.fields` in a VALIDATION_ERROR. */
export interface FieldError {
  path: string;
  message: string;
  code: string;
}

/**
 * Zod issues as `details.fields`: one `{ path, message, code }` per issue, path dotted and led by
 * `prefix` when given (e.g. `payload`); an issue at the root is `(root)`.
 */
export function fieldErrors(error: ZodError, prefix?: string): FieldError[] {
  return error.issues.map((issue) => ({
    path: [...(prefix ? [prefix] : []), ...issue.path.map(String)].join(".") || "(root)",
    message: issue.message,
    code: issue.code,
  }));
}
