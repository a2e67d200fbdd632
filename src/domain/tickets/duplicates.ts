import { sql } from "kysely";
import type { DbOrTrx } from "@/db/database.ts";
import { TERMINAL_STATUSES } from "@/domain/core/workflow.ts";

export const DUPLICATE_THRESHOLD = 0.4;
export const MAX_DUPLICATES = 5;
/** Candidates fetched through the full-text index before the exact title measure is applied. */
const CANDIDATES = 200;

const STOPWORDS = new Set([
  "a",
  "an",
  "and",
  "are",
  "as",
  "at",
  "be",
  "by",
  "for",
  "from",
  "in",
  "into",
  "is",
  "it",
  "of",
  "on",
  "or",
  "the",
  "to",
  "with",
]);

/** Title words: lower-cased runs of letters and digits, without stopwords and one-character words. */
export function titleWords(title: string): Set<string> {
  const words = title.toLowerCase().normalize("NFKC").match(/[\p{L}\p{N}]+/gu) ?? [];
  return new Set(words.filter((w) => w.length > 1 && !STOPWORDS.has(w)));
}

/**
 * Title overlap: the number of distinct words two titles share divided by the word count of the longer
 * title (|A ∩ B| / max(|A|, |B|)). Symmetric, 1 for the same words in any order, and a short title
 * cannot score high against a long one just by being contained in it.
 */
export function titleSimilarity(a: Set<string>, b: Set<string>): number {
  if (a.size === 0 || b.size === 0) return 0;
  let shared = 0;
  for (const w of a) if (b.has(w)) shared++;
  return shared / Math.max(a.size, b.size);
}

export interface PossibleDuplicate {
  number: number;
  ticketRef: string;
  title: string;
  similarity: number;
}

/**
 * Up to five open tickets (not done or cancelled) whose titles overlap `title` by at least 40 percent,
 * most similar first. Candidates come from the full-text index (any shared word), so it stays fast on
 * large boards; the exact measure is then applied to their titles.
 */
export async function possibleDuplicates(
  db: DbOrTrx,
  projectId: string,
  prefix: string,
  title: string,
  excludeId: string | null,
): Promise<PossibleDuplicate[]> {
  const words = titleWords(title);
  if (words.size === 0) return [];
  const query = [...words].join(" | ");
  let q = db.selectFrom("tickets").select(["id", "number", "title"])
    .where("project_id", "=", projectId)
    .where("status", "not in", [...TERMINAL_STATUSES])
    .where(sql<boolean>`search @@ to_tsquery('english', ${query})`)
    .orderBy("number", "desc")
    .limit(CANDIDATES);
  if (excludeId) q = q.where("id", "!=", excludeId);
  const rows = await q.execute();
  return rows
    .map((r) => ({ r, similarity: titleSimilarity(words, titleWords(r.title)) }))
    .filter((x) => x.similarity >= DUPLICATE_THRESHOLD)
    .sort((x, y) => y.similarity - x.similarity || y.r.number - x.r.number)
    .slice(0, MAX_DUPLICATES)
    .map((x) => ({
      number: x.r.number,
      ticketRef: `${prefix}-${x.r.number}`,
      title: x.r.title,
      similarity: Math.round(x.similarity * 100) / 100,
    }));
}
