import type { DbOrTrx } from "@/db/database.ts";

/** The brief fields in their canonical order (spec: Resources, Brief). */
export const BRIEF_FIELD_ORDER = ["scope", "goals", "stack", "constraints", "context", "custom"] as const;

export type BriefContent = Record<string, unknown>;

/**
 * Blank (BRIEF-008): no field carries content. A string has content when it has a non-space
 * character, a list when one of its items does, an object when it has a key. A never-written brief
 * (version 0, `{}`) is blank, and so is one whose every field was written empty.
 */
export function isBlankBrief(content: BriefContent): boolean {
  return Object.values(content).every((value) => !hasContent(value));
}

function hasContent(value: unknown): boolean {
  if (typeof value === "string") return value.trim().length > 0;
  if (Array.isArray(value)) return value.some(hasContent);
  if (value && typeof value === "object") return Object.keys(value).length > 0;
  return value !== null && value !== undefined;
}

/**
 * The brief in its canonical field order. jsonb does not keep key order, so every reader orders the
 * fields the same way before serializing.
 */
export function orderedBrief(content: BriefContent): BriefContent {
  const out: BriefContent = {};
  for (const field of BRIEF_FIELD_ORDER) if (content[field] !== undefined) out[field] = content[field];
  for (const key of Object.keys(content).sort()) if (!(key in out)) out[key] = content[key];
  return out;
}

/**
 * `content` of the brief in context (BRIEF-003, BRIEF-004): compact JSON of the brief object with the
 * fields in the order scope, goals, stack, constraints, context, custom; fields never written are left
 * out. A never-written brief serializes to `{}` and has version 0.
 */
export function serializeBrief(content: BriefContent): string {
  return JSON.stringify(orderedBrief(content));
}

export interface StoredBrief {
  version: number;
  content: BriefContent;
  updatedAt: Date | null;
}

/** The project's current brief (version 0 and `{}` when never written). */
export async function readBrief(db: DbOrTrx, projectId: string): Promise<StoredBrief> {
  const row = await db.selectFrom("projects").select(["brief", "brief_version", "brief_updated_at"])
    .where("id", "=", projectId).executeTakeFirstOrThrow();
  return { version: row.brief_version, content: row.brief ?? {}, updatedAt: row.brief_updated_at };
}

/** The brief as context shows it: `{ version, content }` with `content` serialized (see serializeBrief). */
export async function briefForContext(db: DbOrTrx, projectId: string) {
  const brief = await readBrief(db, projectId);
  return { version: brief.version, content: serializeBrief(brief.content) };
}
