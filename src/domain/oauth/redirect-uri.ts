/**
 * Redirect URI rules (registration and authorize). A registered URI is an `https` URL, a loopback `http`
 * URL on `localhost`, `127.0.0.1` or `[::1]`, or a private-use scheme named as a reverse domain
 * (`com.example.app:/cb`, RFC 8252 section 7.1; `myapp:/cb` is refused). Refused in
 * any letter case: fragments (even an empty `#`), embedded credentials, whitespace or control characters
 * anywhere (so leading whitespace before `javascript:` too), and the schemes that run or read content
 * (`javascript`, `data`, `file`, `vbscript`, `blob`, `about`, `filesystem`) or are not redirect targets
 * (`ws`, `wss`, `ftp`, `mailto`, `tel`, `sms`).
 */
const REFUSED_SCHEMES = new Set([
  "javascript",
  "data",
  "file",
  "vbscript",
  "blob",
  "about",
  "filesystem",
  "view-source",
  "ws",
  "wss",
  "ftp",
  "mailto",
  "tel",
  "sms",
]);

export const MAX_REDIRECT_URI_LENGTH = 2000;

const LOOPBACK_RAW = /^http:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d{1,5})?(\/[^?#]*)?(\?[^#]*)?$/i;

export type RedirectCheck =
  | { ok: true; kind: "https" | "loopback" | "private" }
  | { ok: false; reason: string };

/** Whether `raw` may be registered (and, in the same form, used at authorize). */
export function checkRedirectUri(raw: string): RedirectCheck {
  if (raw.length === 0) return { ok: false, reason: "redirect URI is empty" };
  if (raw.length > MAX_REDIRECT_URI_LENGTH) {
    return { ok: false, reason: `redirect URI longer than ${MAX_REDIRECT_URI_LENGTH} characters` };
  }
  // deno-lint-ignore no-control-regex
  if (/[\s\u0000-\u001f\u007f-\u009f\\]/.test(raw)) {
    return { ok: false, reason: "redirect URI contains whitespace, a backslash or a control character" };
  }
  const schemeMatch = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(raw);
  if (!schemeMatch) return { ok: false, reason: "redirect URI has no scheme" };
  const scheme = schemeMatch[1]!.toLowerCase();
  if (REFUSED_SCHEMES.has(scheme)) return { ok: false, reason: `scheme "${scheme}" is not allowed` };
  if (raw.includes("#")) return { ok: false, reason: "redirect URI must not contain a fragment" };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: "redirect URI is not a valid URL" };
  }
  if (url.username !== "" || url.password !== "") {
    return { ok: false, reason: "redirect URI must not contain credentials" };
  }
  // Raw authority check too: URL parsers differ on what they accept as user info.
  const authority = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/([^/?]*)/.exec(raw)?.[1];
  if (authority !== undefined && authority.includes("@")) {
    return { ok: false, reason: "redirect URI must not contain credentials" };
  }
  if (scheme === "https") {
    if (url.hostname === "") return { ok: false, reason: "https redirect URI has no host" };
    return { ok: true, kind: "https" };
  }
  if (scheme === "http") {
    if (!isLoopbackRedirect(raw)) {
      return { ok: false, reason: "http redirect URIs are allowed only on localhost, 127.0.0.1 or [::1]" };
    }
    return { ok: true, kind: "loopback" };
  }
  // RFC 8252 section 7.1: a private-use scheme is a reverse domain name the client controls. Compatibility
  // exception: a dotless scheme whose authority is such a name (`cursor://anysphere.cursor-retrieval/...`,
  // what Cursor registers); `myapp:/cb` and `myapp://cb` are refused.
  if (!scheme.includes(".") && !(authority !== undefined && /^[a-z0-9-]+(\.[a-z0-9-]+)+$/i.test(authority))) {
    return {
      ok: false,
      reason: `private-use scheme "${scheme}" must be a reverse domain name (e.g. com.example.app:/cb)`,
    };
  }
  return { ok: true, kind: "private" };
}

/** A loopback `http` redirect (RFC 8252 7.3), read from the raw string. */
export function isLoopbackRedirect(raw: string): boolean {
  return LOOPBACK_RAW.test(raw);
}

/** The raw loopback URI without its port (`http://127.0.0.1:5000/cb` -> `http://127.0.0.1/cb`). */
function withoutPort(raw: string): string | null {
  const m = LOOPBACK_RAW.exec(raw);
  if (!m) return null;
  return `http://${m[1]}${m[3] ?? ""}${m[4] ?? ""}`;
}

/**
 * Whether an authorize `redirect_uri` matches one of the client's registered URIs: loopback URIs match a
 * registered loopback URI on any port (RFC 8252), everything else by raw string equality.
 */
export function redirectMatches(requested: string, registered: readonly string[]): boolean {
  if (isLoopbackRedirect(requested)) {
    const bare = withoutPort(requested);
    return registered.some((r) => withoutPort(r) === bare);
  }
  return registered.includes(requested);
}
