import type { DbOrTrx } from "@/db/database.ts";
import { readBrief, serializeBrief } from "@/domain/brief/content.ts";

/** Characters of `brief.content` in full context; compact mode keeps 500 (CTX-033). */
export const FULL_BRIEF_CHARS = 16_000;
export const COMPACT_BRIEF_CHARS = 500;

/** The first `max` characters (Unicode code points, never half a surrogate pair). */
export function cutChars(text: string, max: number): { text: string; cut: boolean } {
  if (text.length <= max) return { text, cut: false };
  const points = Array.from(text);
  if (points.length <= max) return { text, cut: false };
  return { text: points.slice(0, max).join(""), cut: true };
}

/** Context's `brief`, `briefTruncated` and `briefFetchUrl` from the project's current brief. */
export function contextBrief(
  version: number,
  content: Record<string, unknown>,
  maxChars: number,
  publicUrl: string,
) {
  const { text, cut } = cutChars(serializeBrief(content), maxChars);
  return {
    brief: { version, content: text },
    briefTruncated: cut,
    briefFetchUrl: cut ? `${publicUrl}/api/context/more?section=brief` : null,
  };
}

/** The serialized brief of `version` (current when null or no longer stored) and the version served. */
export async function serializedBriefAt(
  db: DbOrTrx,
  projectId: string,
  version: number | null,
): Promise<{ version: number; text: string }> {
  const current = await readBrief(db, projectId);
  if (version !== null && version !== current.version && version > 0) {
    const old = await db.selectFrom("brief_versions").select(["content"]).where("project_id", "=", projectId)
      .where("version", "=", version).executeTakeFirst();
    if (old) return { version, text: serializeBrief(old.content) };
  }
  return { version: current.version, text: serializeBrief(current.content) };
}

/**
 * The UTF-8 bytes `[offset, offset + size)` of `text`, moved back to a character boundary so that every
 * chunk is valid text and the chunks concatenate to the whole (CTX-052). Null when `offset` is not a
 * character boundary inside the text.
 */
export function byteChunk(text: string, offset: number, size: number) {
  const bytes = new TextEncoder().encode(text);
  const total = bytes.length;
  if (offset > total || (offset < total && isContinuation(bytes[offset]))) return null;
  let end = Math.min(offset + size, total);
  while (end > offset && end < total && isContinuation(bytes[end])) end--;
  // A chunk smaller than one character (size < 4 bytes) still advances by that character.
  if (end === offset && offset < total) {
    end = offset + 1;
    while (end < total && isContinuation(bytes[end])) end++;
  }
  return { chunk: new TextDecoder().decode(bytes.subarray(offset, end)), end, total };
}

function isContinuation(byte: number | undefined): boolean {
  return byte !== undefined && (byte & 0xc0) === 0x80;
}
