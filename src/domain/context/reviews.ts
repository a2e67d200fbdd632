import { sql } from "kysely";
import type { DbOrTrx } from "@/db/database.ts";
import { REVIEW_STATUSES } from "@/domain/core/workflow.ts";
import { YOUR_REVIEWS_SHOWN } from "./params.ts";

/** The review row of /context/more and of context `pendingReviews` (CTX-049). */
export interface ReviewRow {
  ticketId: string;
  ticketNumber: number;
  title: string;
  type: string | null;
  tags: string[];
  branch: string | null;
  generatorAgent: { id: string; name: string } | null;
  reviewerAgent: { id: string; name: string } | null;
  waitingSince: string;
  /** Issue 25: the coverage receipt of the handoff that sent it to review, when it named its changed files. */
  coverage?: ReviewCoverage;
}

/** A stored coverage receipt (`reviewHandoff.coverage`). */
export interface ReviewCoverage {
  covered: string[];
  uncovered: string[];
  ratio: number;
}

export interface Keyset {
  at: string;
  id: string;
}

/**
 * Tickets waiting in a review status that are not assigned to the caller (CTX-050), ordered by how long
 * they have waited: `oldest` first for context, newest first for /context/more. `after` continues past
 * a keyset in that order; `floor` (newest-first only) stops before a keyset, so that the cursor context
 * hands out lists exactly the reviews it did not show.
 */
export async function reviewPage(
  db: DbOrTrx,
  input: {
    projectId: string;
    agentId: string;
    order: "oldest" | "newest";
    limit: number;
    after?: Keyset | null;
    floor?: Keyset | null;
  },
): Promise<{ rows: ReviewRow[]; next: Keyset | null }> {
  let q = db.selectFrom("tickets as t")
    .leftJoin("agents as g", "g.id", "t.assignee_agent_id")
    .leftJoin("agents as r", "r.id", "t.reviewer_agent_id")
    .select([
      "t.id",
      "t.number",
      "t.title",
      "t.type",
      "t.tags",
      "t.branch",
      "t.assignee_agent_id",
      "g.name as generator_name",
      "t.reviewer_agent_id",
      "r.name as reviewer_name",
      "t.status_changed_at",
      sql<string>`t.status_changed_at::text`.as("waiting_text"),
      sql<ReviewCoverage | null>`t.review_handoff->'coverage'`.as("coverage"),
    ])
    .where("t.project_id", "=", input.projectId)
    .where("t.status", "in", [...REVIEW_STATUSES])
    .where((eb) =>
      eb.or([eb("t.assignee_agent_id", "is", null), eb("t.assignee_agent_id", "!=", input.agentId)])
    );
  const newest = input.order === "newest";
  if (input.after) {
    q = newest
      ? q.where(
        sql<boolean>`(t.status_changed_at, t.id) < (${input.after.at}::timestamptz, ${input.after.id}::uuid)`,
      )
      : q.where(
        sql<boolean>`(t.status_changed_at, t.id) > (${input.after.at}::timestamptz, ${input.after.id}::uuid)`,
      );
  }
  if (input.floor && newest) {
    q = q.where(
      sql<boolean>`(t.status_changed_at, t.id) > (${input.floor.at}::timestamptz, ${input.floor.id}::uuid)`,
    );
  }
  const dir = newest ? "desc" : "asc";
  const rows = await q.orderBy("t.status_changed_at", dir).orderBy("t.id", dir).limit(input.limit + 1)
    .execute();
  const page = rows.slice(0, input.limit);
  const last = page.at(-1);
  return {
    rows: page.map((r) => ({
      ticketId: r.id,
      ticketNumber: r.number,
      title: r.title,
      type: r.type,
      tags: r.tags,
      branch: r.branch,
      generatorAgent: r.assignee_agent_id ? { id: r.assignee_agent_id, name: r.generator_name ?? "" } : null,
      reviewerAgent: r.reviewer_agent_id ? { id: r.reviewer_agent_id, name: r.reviewer_name ?? "" } : null,
      waitingSince: r.status_changed_at.toISOString(),
      ...(r.coverage ? { coverage: r.coverage } : {}),
    })),
    next: rows.length > input.limit && last ? { at: last.waiting_text, id: last.id } : null,
  };
}

/** Tickets in review where the caller is the named reviewer (`yourReviews`). */
export function yourReviewsQuery(db: DbOrTrx, projectId: string, agentId: string) {
  return db.selectFrom("tickets").select(["id", "number", "title", "status", "status_changed_at"])
    .where("reviewer_agent_id", "=", agentId).where("project_id", "=", projectId)
    .where("status", "in", [...REVIEW_STATUSES]).orderBy("status_changed_at", "asc").limit(
      YOUR_REVIEWS_SHOWN,
    );
}

/** The rows of `yourReviewsQuery` (timestamps as Date, or as text when read through JSON). */
export function yourReviewRows(
  rows: Array<
    { id: string; number: number; title: string; status: string; status_changed_at: Date | string }
  >,
  prefix: string,
) {
  return rows.map((r) => ({
    ticketId: r.id,
    ticketRef: `${prefix}-${r.number}`,
    title: r.title,
    status: r.status,
    waitingSince: new Date(r.status_changed_at).toISOString(),
  }));
}

export async function yourReviews(db: DbOrTrx, projectId: string, agentId: string, prefix: string) {
  return yourReviewRows(await yourReviewsQuery(db, projectId, agentId).execute(), prefix);
}
