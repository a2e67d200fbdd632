import { z } from "@hono/zod-openapi";
import { checkPath } from "@/shared/file-path.ts";

const DESCRIPTION =
  "Repository-relative file path, canonicalised before it is compared or stored: trimmed, " +
  "Unicode NFC, `\\` turned into `/`, `.` and empty segments dropped, `..` resolved, no leading or trailing " +
  "slash; the letter case is kept (claims, and every comparison of a path with a claimed file, ignore letter " +
  "case). Responses show the " +
  "canonical form. A path that climbs above the repository root, is empty once canonical, or holds control " +
  "characters or invisible format characters (Unicode category Cf: U+200B zero-width space, U+FEFF, U+202E " +
  "and the like) answers 400 VALIDATION_ERROR";

/**
 * The one schema of a file path field: a string (also in OpenAPI and JSON Schema) checked and rewritten
 * to its canonical form (`canonicalPath` in `src/shared/file-path.ts`); `maxLength` applies to that form.
 */
export function filePathSchema(maxLength = 500) {
  return z.string()
    .check((ctx) => {
      const result = checkPath(ctx.value);
      if (!result.ok) {
        ctx.issues.push({ code: "custom", message: result.reason, input: ctx.value, continue: false });
      }
    })
    .overwrite((value) => {
      const result = checkPath(value);
      return result.ok ? result.path : value;
    })
    .max(maxLength)
    .openapi({ description: `${DESCRIPTION} (at most ${maxLength} characters)`, example: "src/app.ts" });
}

export const FilePath = filePathSchema(500);

/**
 * A list of file paths: each canonical, and spellings of one file counted once (first-seen order).
 * `min`/`max` bound the number of items sent.
 */
export function filePathList(min: number, max: number, description: string) {
  return z.array(FilePath).min(min).max(max)
    .overwrite((paths) => [...new Set(paths)])
    .openapi({ description: `${description}; each path canonicalised, spellings of one file count once` });
}
