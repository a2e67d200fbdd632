import { fromBase64Url, toBase64Url } from "@/domain/events/cursor.ts";

/**
 * Opaque cursors of GET /context and /context/more: base64url JSON tagged with the section. Anything
 * that does not decode to a cursor of the expected section is treated as absent (CTX-042).
 */
export function encodeCursor(section: string, state: Record<string, unknown>): string {
  return toBase64Url(JSON.stringify({ s: section, ...state }));
}

export function decodeCursor(section: string, cursor: string | undefined): Record<string, unknown> | null {
  if (!cursor) return null;
  try {
    const value: unknown = JSON.parse(fromBase64Url(cursor));
    if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
    const record = value as Record<string, unknown>;
    return record.s === section ? record : null;
  } catch {
    return null;
  }
}

const PG_TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})(\.\d{1,6})?([+-]\d{2}(?::?\d{2})?)$/;

/**
 * True for a timestamptz in PostgreSQL's text form (full microsecond precision, which a JS Date would
 * lose), with a real calendar date, so that casting it back can never fail.
 */
export function isPgTimestamp(value: string): boolean {
  const m = PG_TIMESTAMP.exec(value);
  if (!m) return false;
  const [y, mo, d, h, mi, s] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const date = new Date(Date.UTC(y, mo - 1, d, h, mi, s));
  return date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d &&
    date.getUTCHours() === h && date.getUTCMinutes() === mi && date.getUTCSeconds() === s;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: unknown): value is string {
  return typeof value === "string" && UUID.test(value);
}

/** A keyset position `[timestamptz text, uuid]`; null unless both parts are well-formed. */
export function timeKeyset(
  state: Record<string, unknown> | null,
  key = "k",
): { at: string; id: string } | null {
  const value = state?.[key];
  if (!Array.isArray(value) || value.length !== 2) return null;
  const [at, id] = value;
  if (typeof at !== "string" || !isPgTimestamp(at) || !isUuid(id)) return null;
  return { at, id };
}

/** A non-negative integer from a cursor, or null. */
export function intOf(state: Record<string, unknown> | null, key: string): number | null {
  const value = state?.[key];
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0 ? value : null;
}
