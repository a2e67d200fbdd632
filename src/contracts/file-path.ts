import { z } from "@hono/zod-openapi";
import { checkEntry, checkPath, MAX_SYMBOL_LENGTH } from "@/shared/file-path.ts";

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

const ENTRY_DESCRIPTION =
  "A claim entry, one of three forms: a file (`src/auth/token.ts`); a directory (`src/auth/` or `src/auth/**`, " +
  "one entry, canonical `src/auth/**`) covering every file and symbol under it; a symbol " +
  `(\`src/auth/token.ts#parseToken\`: \`#\` then a name of letters, digits, \`_\`, \`$\`, \`.\` or \`:\`, ` +
  `${MAX_SYMBOL_LENGTH} characters or fewer, ` +
  "case-sensitive) covering one named symbol of one file. The path part is canonicalised like every file path " +
  "(letter case ignored when compared). `#` always starts a symbol (an invalid symbol name answers 400 " +
  "VALIDATION_ERROR); a `*` anywhere but a trailing `/**` answers 400; brackets, parentheses and `?` are ordinary " +
  "characters (`app/[id]/page.tsx` is a file). Overlaps: a directory overlaps everything under it, a directory " +
  "above it and the file of its own path (`src/auth`); a file overlaps every symbol of it; two different " +
  "symbols of one file do not overlap. Responses show the canonical form";

/**
 * Route descriptions' paragraph on claim entries (issue 24 point 5), written once: the forms, the overlap
 * rule, exactness, and what one identity may hold.
 */
export const CLAIM_ENTRIES_DOC =
  "Directories and symbols (extension, issue 24): besides a file, an entry may be a directory (`src/auth/` or " +
  "`src/auth/**`, canonical `src/auth/**`) covering every file and symbol under it, or a symbol " +
  "(`src/auth/token.ts#parseToken`) covering one named symbol of one file (`#` then a name of letters, " +
  `digits, \`_\`, \`$\`, \`.\` or \`:\`, ${MAX_SYMBOL_LENGTH} characters or fewer; case-sensitive). Entries of two identities may ` +
  "not overlap: a directory overlaps everything under it, a directory above it and the file of its own " +
  "path (`src/auth`); a file overlaps every symbol of it; two different symbols of one file do not " +
  "overlap, the same symbol does. A conflict item names the entry you sent and the overlapping holder " +
  "(its warning names the holder's entry). Exact under races, also across instances: claim writes of a " +
  "project are serialised. One identity may hold overlapping entries (a directory and a file inside it): " +
  "each is its own entry, renewed and released on its own (releasing a directory keeps the files you " +
  "claimed inside it). An invalid symbol name, or a `*` anywhere but a trailing `/**`, answers 400 " +
  "VALIDATION_ERROR; brackets, parentheses and `?` are ordinary characters (`app/[id]/page.tsx`).";

/**
 * The schema of a claim entry field (POST /claim, POST /begin, POST /release, a ticket's expectedFiles): a
 * string checked and rewritten to its canonical form (`checkEntry` in src/shared/file-path.ts).
 */
export function claimEntrySchema(maxLength = 500) {
  return z.string()
    .check((ctx) => {
      const result = checkEntry(ctx.value);
      if (!result.ok) {
        ctx.issues.push({ code: "custom", message: result.reason, input: ctx.value, continue: false });
      }
    })
    .overwrite((value) => {
      const result = checkEntry(value);
      return result.ok ? result.path : value;
    })
    .max(maxLength)
    .openapi({
      description: `${ENTRY_DESCRIPTION} (at most ${maxLength} characters)`,
      example: "src/auth/token.ts#parseToken",
    });
}

export const ClaimEntry = claimEntrySchema(500);

/** A list of claim entries: each canonical, spellings of one entry counted once (first-seen order). */
export function claimEntryList(min: number, max: number, description: string) {
  return z.array(ClaimEntry).min(min).max(max)
    .overwrite((entries) => [...new Set(entries)])
    .openapi({
      description: `${description}; each a file, a directory (\`src/auth/\`) or a symbol ` +
        "(`src/auth/token.ts#parseToken`), canonicalised, spellings of one entry count once",
    });
}
