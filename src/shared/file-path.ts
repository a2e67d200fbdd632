/**
 * The one canonical form of a repository file path (no imports: usable by contracts, domain and MCP).
 *
 * Canonical: trimmed, Unicode NFC, `/` separators (backslashes become `/`), no empty, `.` or `..`
 * segments (`..` resolved against the segment before it), no leading or trailing slash. Case is kept
 * (paths compare as files without regard to letter case: `fileKey`).
 * Refused: control characters (U+0000 to U+001F, U+007F to U+009F), invisible format characters (Unicode
 * category Cf: two paths that look alike must not name two files), a lone UTF-16 surrogate, a `..` that
 * climbs above the repository root, and a path that is empty once canonical.
 */
export type PathCheck = { ok: true; path: string } | { ok: false; reason: string };

// deno-lint-ignore no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
/** Invisible format characters (zero-width space U+200B, BOM U+FEFF, bidi overrides U+202E, ...). */
const FORMAT = /\p{Cf}/u;

export function checkPath(raw: string): PathCheck {
  if (CONTROL.test(raw)) return { ok: false, reason: "Path must not contain control characters" };
  if (!raw.isWellFormed()) return { ok: false, reason: "Path must not contain a lone UTF-16 surrogate" };
  if (FORMAT.test(raw)) {
    return { ok: false, reason: "Path must not contain invisible format characters (Unicode category Cf)" };
  }
  const text = raw.trim().normalize("NFC").replaceAll("\\", "/");
  const segments: string[] = [];
  for (const segment of text.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") {
      if (segments.length === 0) return { ok: false, reason: "Path leaves the repository root" };
      segments.pop();
      continue;
    }
    segments.push(segment);
  }
  if (segments.length === 0) return { ok: false, reason: "Path is empty once canonical" };
  return { ok: true, path: segments.join("/") };
}

/** The canonical form of `raw`; throws a RangeError (with the reason) when the path is refused. */
export function canonicalPath(raw: string): string {
  const result = checkPath(raw);
  if (!result.ok) throw new RangeError(result.reason);
  return result.path;
}

/** Canonical paths in first-seen order, each once (spellings of one file count once). */
export function uniqueCanonicalPaths(raws: readonly string[]): string[] {
  return [...new Set(raws.map(canonicalPath))];
}

/**
 * The key under which paths compare as files: paths that differ only in letter case are one file (agents on
 * case-insensitive file systems share repositories with Linux agents). The database compares `lower(file)`
 * (the claims' one-holder index is on it, migration 0021); this is the same fold in the process. Every
 * comparison of a path with a claimed file goes through it (or `lower()` on both sides in SQL).
 */
export function fileKey(path: string): string {
  return path.toLowerCase();
}

/** True when `a` and `b` name one file (`fileKey`); a missing path names none. */
export function sameFile(a: string | null | undefined, b: string): boolean {
  return a !== null && a !== undefined && fileKey(a) === fileKey(b);
}

/** True when `text` mentions `file` in any letter case (`fileKey`). */
export function mentionsFile(text: string, file: string): boolean {
  return fileKey(text).includes(fileKey(file));
}
