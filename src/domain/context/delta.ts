import type { ActorCtx } from "@/domain/core/context.ts";
import type { ContextInput } from "./params.ts";
import { CONTEXT_CURSOR } from "@/contracts/context.ts";

/**
 * Delta context (issue 27.3). Every GET /context answer carries `contextCursor`: a fingerprint of each
 * top-level section of that answer, in answer order, plus one of the caller, the query and the list of
 * section names. `GET /context?since=<contextCursor>` (or `delta=`) builds the answer exactly as before (the same reads,
 * the same side effects) and then sends only the sections whose fingerprint differs, with a new cursor
 * and `unchangedSections`. Generic over the sections: a section added to the answer is covered as is.
 * A cursor that does not decode, or was made for another caller, query or set of sections, makes every
 * section count as changed (never an error, never a wrong "unchanged").
 */

/** The delta answer's own fields (never fingerprinted). */
export const CONTEXT_CURSOR_FIELD = "contextCursor";
export const UNCHANGED_FIELD = "unchangedSections";
/** Characters of one section's fingerprint: 48 bits of the hash, base64url. */
const FP_CHARS = 8;
const B64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/**
 * cyrb53 (public domain): a fast 53-bit string hash. Not cryptographic; the cursor only tells the
 * caller's own answers apart, and a 53-bit collision between two states of one section is negligible.
 */
function hash53(text: string, seed = 0): number {
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

function fingerprint(text: string): string {
  let h = hash53(text);
  let out = "";
  for (let i = 0; i < FP_CHARS; i++) {
    out += B64URL[h % 64];
    h = Math.floor(h / 64);
  }
  return out;
}

/** What a cursor is valid for: the caller, every query parameter but `delta`, and the section names. */
function scopeKey(ctx: ActorCtx, input: ContextInput, names: readonly string[]): string {
  const { delta: _delta, ...query } = input;
  const { agentId, subAgentName, projectId } = ctx.actor;
  return fingerprint(JSON.stringify([projectId, agentId, subAgentName ?? null, query, names]));
}

interface CursorState {
  scope: string;
  fingerprints: string;
}

/** `c1.<scope>.<fingerprints>`: URL-safe as it is. */
function decode(cursor: string | undefined): CursorState | null {
  const match = CONTEXT_CURSOR.exec(cursor ?? "");
  return match ? { scope: match[1]!, fingerprints: match[2]! } : null;
}

/**
 * The answer's `data` serialized once, section by section: the full answer (with `contextCursor` last)
 * or, when `input.delta` is set, the changed sections with `contextCursor` and `unchangedSections`.
 */
export function serializeContext(ctx: ActorCtx, input: ContextInput, data: Record<string, unknown>): string {
  const names: string[] = [];
  const parts: string[] = [];
  for (const name of Object.keys(data)) {
    const value = data[name];
    if (value === undefined || name === CONTEXT_CURSOR_FIELD) continue; // as JSON.stringify leaves it out
    names.push(name);
    parts.push(JSON.stringify(value));
  }
  const scope = scopeKey(ctx, input, names);
  const fingerprints = parts.map(fingerprint).join("");
  const cursor = `c1.${scope}.${fingerprints}`;
  const cursorPart = `${JSON.stringify(CONTEXT_CURSOR_FIELD)}:${JSON.stringify(cursor)}`;
  const out: string[] = [];
  if (input.delta === undefined) {
    names.forEach((name, i) => out.push(`${JSON.stringify(name)}:${parts[i]}`));
    out.push(cursorPart);
    return `{${out.join(",")}}`;
  }
  const previous = decode(input.delta);
  const comparable = previous !== null && previous.scope === scope;
  const unchanged: string[] = [];
  names.forEach((name, i) => {
    const at = i * FP_CHARS;
    const same = comparable &&
      previous.fingerprints.slice(at, at + FP_CHARS) === fingerprints.slice(at, at + FP_CHARS);
    if (same) unchanged.push(name);
    else out.push(`${JSON.stringify(name)}:${parts[i]}`);
  });
  out.push(cursorPart, `${JSON.stringify(UNCHANGED_FIELD)}:${JSON.stringify(unchanged)}`);
  return `{${out.join(",")}}`;
}
