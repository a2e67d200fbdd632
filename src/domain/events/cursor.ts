/**
 * Opaque events cursor: `ev1.<project tag>.<seq>` in base64url. The project tag (first 8 hex digits of
 * the project id) makes a cursor from another project invalid instead of silently wrong.
 */
export function encodeEventCursor(projectId: string, seq: number): string {
  return toBase64Url(`ev1.${projectTag(projectId)}.${seq}`);
}

/** The sequence a cursor stands for, or null when it is not a cursor of this project. */
export function decodeEventCursor(projectId: string, cursor: string): number | null {
  let text: string;
  try {
    text = fromBase64Url(cursor);
  } catch {
    return null;
  }
  const match = /^ev1\.([0-9a-f]{8})\.(\d{1,15})$/.exec(text);
  if (!match || match[1] !== projectTag(projectId)) return null;
  return Number(match[2]);
}

function projectTag(projectId: string): string {
  return projectId.replace(/-/g, "").slice(0, 8).toLowerCase();
}

export function toBase64Url(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export function fromBase64Url(value: string): string {
  if (!/^[A-Za-z0-9_-]*$/.test(value)) throw new Error("not base64url");
  const padded = value.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((value.length + 3) % 4);
  const binary = atob(padded);
  const bytes = Uint8Array.from(binary, (ch) => ch.charCodeAt(0));
  return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
}
