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
  const refused = characterProblem(raw);
  if (refused) return { ok: false, reason: refused };
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

/** Why `raw` holds a refused character (control, lone surrogate, invisible format), or null. */
function characterProblem(raw: string): string | null {
  if (CONTROL.test(raw)) return "Path must not contain control characters";
  if (!raw.isWellFormed()) return "Path must not contain a lone UTF-16 surrogate";
  if (FORMAT.test(raw)) return "Path must not contain invisible format characters (Unicode category Cf)";
  return null;
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
 * case-insensitive file systems share repositories with Linux agents). For a claim entry the path part is
 * folded and a symbol name after `#` is kept as it is (symbols are case-sensitive): two spellings of one
 * entry share the key. The database compares `entryKeySql` (src/domain/core/claim-holders.ts; the claims'
 * one-holder index is on it, migration 0024); this is the same fold in the process. Every comparison of a
 * path with a claimed file goes through it, or through `entriesOverlap` when covering counts.
 */
export function fileKey(path: string): string {
  const hash = path.indexOf("#");
  return hash < 0 ? path.toLowerCase() : path.slice(0, hash).toLowerCase() + path.slice(hash);
}

/** True when `a` and `b` name one file, one directory or one symbol (`fileKey`); a missing path names none. */
export function sameFile(a: string | null | undefined, b: string): boolean {
  return a !== null && a !== undefined && fileKey(a) === fileKey(b);
}

/** True when `text` mentions `file` in any letter case. */
export function mentionsFile(text: string, file: string): boolean {
  return text.toLowerCase().includes(file.toLowerCase());
}

/**
 * Claim entries (issue 24 point 5): wherever a claimable file is accepted (POST /claim, POST /begin,
 * GET /claim/check, POST /release, a ticket's expectedFiles), an entry is one of
 * - a file `src/auth/token.ts` (a path, canonical as `checkPath` says);
 * - a directory `src/auth/` or `src/auth/**` (one entry, canonical `src/auth/**`): every file and symbol
 *   under it;
 * - a symbol `src/auth/token.ts#parseToken`: one named symbol of one file. `#` always starts a symbol,
 *   whose name is 1 to 200 letters, digits, `_`, `$`, `.` or `:`, compared with its letter case (the path
 *   part ignores letter case, as for files).
 * A `*` anywhere but a trailing `/**` is refused; brackets, parentheses and `?` are ordinary characters
 * (`app/[id]/page.tsx`, `app/(shop)/cart.tsx` are files).
 */
export type EntryKind = "file" | "directory" | "symbol";

/** An entry taken apart: its kind, its path part (canonical, letter case kept) and its symbol name. */
export interface ClaimEntry {
  kind: EntryKind;
  path: string;
  symbol: string | null;
}

/** Most characters of a symbol name. */
export const MAX_SYMBOL_LENGTH = 200;
const SYMBOL = /^[\p{L}\p{N}_$.:]+$/u;
/** The canonical suffix of a directory entry. */
export const DIRECTORY_SUFFIX = "/**";

/** `checkPath` for claim entries: the canonical entry (`src/auth/**`, `src/a.ts#parse`) or the reason it is refused. */
export function checkEntry(raw: string): PathCheck {
  const refused = characterProblem(raw);
  if (refused) return { ok: false, reason: refused };
  const text = raw.trim().normalize("NFC");
  const hash = text.indexOf("#");
  const symbol = hash >= 0 ? text.slice(hash + 1) : null;
  let path = (hash >= 0 ? text.slice(0, hash) : text).replaceAll("\\", "/");
  if (symbol !== null) {
    if (symbol.length === 0 || symbol.length > MAX_SYMBOL_LENGTH || !SYMBOL.test(symbol)) {
      return {
        ok: false,
        reason:
          `A symbol after \`#\` must be 1 to ${MAX_SYMBOL_LENGTH} letters, digits, \`_\`, \`$\`, \`.\` or \`:\``,
      };
    }
    if (path.trimEnd().endsWith("/")) return { ok: false, reason: "A symbol names a file, not a directory" };
  }
  const directory = symbol === null && (path.endsWith("/") || path.endsWith(DIRECTORY_SUFFIX));
  if (path.endsWith(DIRECTORY_SUFFIX)) path = path.slice(0, -2);
  if (path.includes("*")) {
    return { ok: false, reason: "`*` is allowed only as a trailing `/**` (a directory)" };
  }
  const checked = checkPath(path);
  if (!checked.ok) return checked;
  const entry = directory
    ? `${checked.path}${DIRECTORY_SUFFIX}`
    : symbol !== null
    ? `${checked.path}#${symbol}`
    : checked.path;
  return { ok: true, path: entry };
}

/** The canonical form of an entry; throws a RangeError (with the reason) when it is refused. */
export function canonicalEntry(raw: string): string {
  const result = checkEntry(raw);
  if (!result.ok) throw new RangeError(result.reason);
  return result.path;
}

/** Takes a canonical entry apart (a stored claim file, or the output of `checkEntry`). */
export function parseEntry(entry: string): ClaimEntry {
  if (entry.endsWith(DIRECTORY_SUFFIX)) {
    return { kind: "directory", path: entry.slice(0, -DIRECTORY_SUFFIX.length), symbol: null };
  }
  const hash = entry.indexOf("#");
  if (hash >= 0) return { kind: "symbol", path: entry.slice(0, hash), symbol: entry.slice(hash + 1) };
  return { kind: "file", path: entry, symbol: null };
}

/**
 * True when two canonical entries overlap, so that two identities may not hold them at once (the one rule;
 * its SQL counterpart is `entryOverlapsSql` in src/domain/core/claim-holders.ts): a directory overlaps
 * everything under it, a directory above it and a file of its own path (`src/auth` and `src/auth/**`); a
 * file overlaps itself and every symbol of it; a symbol overlaps its file and itself, not another symbol
 * of the file. Paths compare without letter case (`fileKey`), symbol names with it.
 */
export function entriesOverlap(a: string, b: string): boolean {
  const x = parseEntry(a);
  const y = parseEntry(b);
  const px = x.path.toLowerCase();
  const py = y.path.toLowerCase();
  if (x.kind === "directory" && (py === px || py.startsWith(`${px}/`))) return true;
  if (y.kind === "directory" && (px === py || px.startsWith(`${py}/`))) return true;
  if (px !== py) return false;
  return x.symbol === null || y.symbol === null || x.symbol === y.symbol;
}
