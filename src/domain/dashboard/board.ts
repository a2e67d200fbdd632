import { sql } from "kysely";
import { identityName } from "@/domain/core/actor.ts";
import type { ProjectSettings } from "@/db/tables/foundation.ts";
import type { ServiceCtx } from "@/domain/core/context.ts";
import { STALE_TICKET_MS } from "@/domain/ledger/stale.ts";
import { priorityOf } from "@/domain/core/ticket-serialize.ts";
import { boardColumns, isReviewStatus } from "@/domain/core/workflow.ts";
import type { DashboardMember } from "./access.ts";
import { readCounts } from "@/domain/core/project-counts.ts";

/** Cards shown per column and page. */
export const BOARD_PAGE_SIZE = 25;

export interface BoardFilters {
  sprintId?: string | undefined;
  assigneeId?: string | undefined;
  tag?: string | undefined;
  /** 0-based page: every column shows its cards `page * size` to `(page + 1) * size`. */
  page: number;
}

export interface BoardCard {
  id: string;
  key: string;
  number: number;
  title: string;
  status: string;
  type: string | null;
  priority: string;
  tags: string[];
  assigneeName: string | null;
  reviewerName: string | null;
  /** `in review`, or the last review event (`approved`, `changes_requested`), or null. */
  reviewState: string | null;
  /** In progress without a ledger entry for 30 minutes (the stale list of GET /context). */
  stale: boolean;
  humanOnly: boolean;
}

export interface BoardColumn {
  status: string;
  total: number;
  cards: BoardCard[];
}

export interface BoardView {
  columns: BoardColumn[];
  page: number;
  pageSize: number;
  hasMore: boolean;
  sprints: { id: string; number: number; name: string; status: string }[];
  agents: { id: string; name: string }[];
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The board of the dashboard: every workflow column with its count and one page of cards (newest
 * first), filtered by sprint, assignee and tag. Four queries; the cards come from one lateral read of the
 * board index per non-empty column.
 */
export async function dashboardBoard(
  ctx: ServiceCtx,
  member: DashboardMember,
  filters: BoardFilters,
): Promise<BoardView> {
  const { project } = member;
  const now = ctx.clock.now();
  const page = Math.max(0, Math.min(filters.page, 10_000));
  const base = () => {
    let q = ctx.db.selectFrom("tickets as t").where("t.project_id", "=", project.id);
    if (filters.sprintId && UUID.test(filters.sprintId)) q = q.where("t.sprint_id", "=", filters.sprintId);
    else if (filters.sprintId === "none") q = q.where("t.sprint_id", "is", null);
    if (filters.assigneeId && UUID.test(filters.assigneeId)) {
      q = q.where("t.assignee_agent_id", "=", filters.assigneeId);
    } else if (filters.assigneeId === "none") q = q.where("t.assignee_agent_id", "is", null);
    if (filters.tag) q = q.where(sql<boolean>`t.tags @> ${JSON.stringify([filters.tag])}::jsonb`);
    return q;
  };
  const filtered =
    (filters.sprintId !== undefined && (UUID.test(filters.sprintId) || filters.sprintId === "none")) ||
    (filters.assigneeId !== undefined && (UUID.test(filters.assigneeId) || filters.assigneeId === "none")) ||
    Boolean(filters.tag);
  const [counts, sprints, agents] = await Promise.all([
    // Unfiltered: the counts kept by trigger (migration 0028) instead of counting every ticket.
    filtered
      ? base().select(["t.status", sql<number>`count(*)::int`.as("n")]).groupBy("t.status").execute()
      : readCounts(ctx.db, project.id, "ticket").then((m) => [...m].map(([status, n]) => ({ status, n }))),
    ctx.db.selectFrom("sprints").select(["id", "number", "name", "status"])
      .where("project_id", "=", project.id).orderBy("number", "desc").limit(50).execute(),
    ctx.db.selectFrom("agents").select(["id", "name"]).where("project_id", "=", project.id)
      .where("status", "!=", "revoked").orderBy("name").limit(200).execute(),
  ]);
  // One page of each non-empty column, newest first: a lateral read of the board index per column.
  const filled = counts.filter((c) => c.n > page * BOARD_PAGE_SIZE).map((c) => c.status);
  const rows = filled.length === 0 ? [] : await ctx.db
    .selectFrom(sql<{ status: string }>`(select unnest(${filled}::text[]) as status)`.as("s"))
    .innerJoinLateral(
      (eb) =>
        base().whereRef("t.status", "=", eb.ref("s.status")).select([
          "t.id",
          "t.number",
          "t.title",
          "t.status",
          "t.type",
          "t.tags",
          "t.assignee_agent_id",
          "t.sub_agent_name",
          "t.reviewer_agent_id",
          "t.human_only",
          "t.status_changed_at",
          "t.last_ledger_at",
          sql<string | null>`t.review_history -> -1 ->> 'event'`.as("last_review"),
        ]).orderBy("t.number", "desc").limit(BOARD_PAGE_SIZE).offset(page * BOARD_PAGE_SIZE).as("r"),
      (join) => join.onTrue(),
    )
    .leftJoin("agents as a", "a.id", "r.assignee_agent_id")
    .leftJoin("agents as rv", "rv.id", "r.reviewer_agent_id")
    .selectAll("r").select(["a.name as assignee_name", "rv.name as reviewer_name"])
    .orderBy("r.number", "desc").execute();
  const cards = rows.map((r) => boardCard(r, project.prefix, now));
  const columns = boardColumnsOf(project.settings, counts, cards);
  const hasMore = columns.some((c) => c.total > (page + 1) * BOARD_PAGE_SIZE);
  return { columns, page, pageSize: BOARD_PAGE_SIZE, hasMore, sprints, agents };
}

/** A card row as the board query reads it. */
interface CardRow {
  id: string;
  number: number;
  title: string;
  status: string;
  type: string | null;
  tags: string[];
  sub_agent_name: string | null;
  human_only: boolean;
  status_changed_at: Date;
  last_ledger_at: Date | null;
  last_review: string | null;
  assignee_name: string | null;
  reviewer_name: string | null;
}

/** One ticket card: key, names, review state, and the stale marker (in progress, quiet too long). */
export function boardCard(r: CardRow, prefix: string, now: Date): BoardCard {
  const quiet = r.last_ledger_at ?? r.status_changed_at;
  return {
    id: r.id,
    key: `${prefix}-${r.number}`,
    number: r.number,
    title: r.title,
    status: r.status,
    type: r.type,
    priority: priorityOf(r.tags),
    tags: r.tags,
    assigneeName: identityName(r.assignee_name, r.sub_agent_name),
    reviewerName: r.reviewer_name,
    reviewState: isReviewStatus(r.status) ? "in review" : r.last_review,
    stale: r.status === "in_progress" && new Date(quiet).getTime() < now.getTime() - STALE_TICKET_MS,
    humanOnly: r.human_only,
  };
}

/** The workflow's columns (then any other status a ticket has), each with its total and its cards. */
export function boardColumnsOf(
  settings: ProjectSettings,
  counts: { status: string; n: number }[],
  cards: BoardCard[],
): BoardColumn[] {
  const statuses = boardColumns(settings);
  for (const c of counts) if (!statuses.includes(c.status)) statuses.push(c.status);
  return statuses.map((status) => ({
    status,
    total: counts.find((c) => c.status === status)?.n ?? 0,
    cards: cards.filter((c) => c.status === status),
  }));
}
