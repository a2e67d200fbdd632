import { sql } from "kysely";
import type { DbOrTrx } from "@/db/database.ts";
import { type ThreadSummary, toThreadSummary } from "@/domain/core/thread-serialize.ts";
import type { ThreadStatus } from "@/shared/vocabulary.ts";

export type ThreadStatusFilter = ThreadStatus | "all";

/**
 * Threads newest first (created_at, then id), filtered by status, strictly after `before` when given.
 * `at` is the timestamptz text of the last row, so that keyset paging keeps full precision.
 */
export async function threadPage(
  db: DbOrTrx,
  projectId: string,
  status: ThreadStatusFilter,
  limit: number,
  before: { at: string; id: string } | null,
): Promise<{ rows: ThreadSummary[]; next: { at: string; id: string } | null }> {
  let q = db.selectFrom("threads as t").leftJoin("agents as a", "a.id", "t.agent_id")
    .select([
      "t.id",
      "t.agent_id",
      "a.name as agent_name",
      "t.ticket_id",
      "t.intent",
      "t.sub_agent_name",
      "t.status",
      "t.outcome",
      "t.expected_files",
      "t.created_at",
      sql<string>`t.created_at::text`.as("created_at_text"),
      "t.closed_at",
      "t.last_message_at",
    ])
    .where("t.project_id", "=", projectId);
  if (status !== "all") q = q.where("t.status", "=", status);
  if (before) {
    q = q.where(sql<boolean>`(t.created_at, t.id) < (${before.at}::timestamptz, ${before.id}::uuid)`);
  }
  const rows = await q.orderBy("t.created_at", "desc").orderBy("t.id", "desc").limit(limit + 1).execute();
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    rows: page.map((r) => toThreadSummary(r, r.agent_name)),
    next: rows.length > limit && last ? { at: last.created_at_text, id: last.id } : null,
  };
}
