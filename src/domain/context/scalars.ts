import { type Expression, sql } from "kysely";
import { listColumns, listsOf } from "./json-lists.ts";
import { sameSubAgent } from "@/domain/core/sub-agent-sql.ts";
import type { DbOrTrx } from "@/db/database.ts";
import { countSum } from "@/domain/core/project-counts.ts";
import { REVIEW_STATUSES } from "@/domain/core/workflow.ts";
import type { Keyset } from "./reviews.ts";
import type { ThreadStatusFilter } from "./threads.ts";

/**
 * Compact mode shows only the ids of the threads and of the pending reviews (CTX-035, CTX-036): they
 * are read here, in the same statement, instead of by the two row queries full mode runs.
 */
export interface CompactIds {
  threadIds: string[];
  reviewIds: string[];
  /** The keyset of the last review shown when more wait (as `reviewPage` gives it). */
  reviewNext: Keyset | null;
}

export interface ContextScalars {
  agent: {
    id: string;
    name: string;
    platform: string | null;
    model: string | null;
    company: string | null;
    capabilities: string[];
  };
  /** Newest event sequence of the project (0 without events). */
  head: number;
  /** Sessions of the agent (same sub-agent identity), counted up to 2. */
  sessions: number;
  modulesDone: number;
  reviewTotal: number;
  pickable: number;
  threadCount: number;
  env: { env_health: Record<string, unknown>; created_at: string } | null;
  latestReport: Record<string, unknown> | null;
  /** Only when asked for (compact mode). */
  compact: CompactIds | null;
  /** The rows of each query of `lists`, by its name (timestamps as text: JSON). */
  lists: Record<string, unknown[]>;
}

interface Row {
  agent: ContextScalars["agent"] | string;
  head: string | number | null;
  sessions: number;
  modules_done: number;
  review_total: number;
  pickable: number;
  thread_count: number;
  env: ContextScalars["env"] | string | null;
  latest_report: Record<string, unknown> | string | null;
  thread_ids?: string[] | string | null;
  review_ids?: Array<{ id: string; at: string }> | string | null;
}

const parsed = <T>(value: T | string | null): T | null =>
  typeof value === "string" ? JSON.parse(value) as T : value;

/** Statuses of an unassigned ticket an agent may pick (the `pickable` count). */
const PICKABLE_STATUSES = ["backlog", "sprint_backlog", "claimed"];

/**
 * The single-value parts of GET /context in ONE statement (each subquery an index or index-only
 * lookup), so that they cost one round trip instead of nine.
 */
export async function contextScalars(
  db: DbOrTrx,
  input: {
    projectId: string;
    agentId: string;
    subAgentName: string | null;
    threadStatus: ThreadStatusFilter;
    /** Compact mode: read the thread and pending review ids too (at most these many). */
    compact?: { threadLimit: number; reviewLimit: number } | undefined;
    /** Row queries read in the same statement, each as one JSON column (in the query's order). */
    lists?: Record<string, Expression<unknown>>;
  },
): Promise<ContextScalars> {
  const { projectId, agentId } = input;
  const sub = input.subAgentName;
  const reviewStatuses = sql.join(REVIEW_STATUSES.map((s) => sql.lit(s)));
  const threadFilter = input.threadStatus === "all" ? sql`` : sql`AND t.status = ${input.threadStatus}`;
  const threadKeys = input.threadStatus === "all" ? null : [input.threadStatus];
  const compact = input.compact;
  // The same rows, in the same order, as threadPage and reviewPage (oldest waiting first) read.
  const ids = compact
    ? sql`,
      (SELECT coalesce(json_agg(x.id ORDER BY x.created_at DESC, x.id DESC), '[]'::json) FROM (
        SELECT t.id, t.created_at FROM threads t WHERE t.project_id = ${projectId} ${threadFilter}
        ORDER BY t.created_at DESC, t.id DESC LIMIT ${compact.threadLimit}) x) AS thread_ids,
      (SELECT coalesce(json_agg(json_build_object('id', x.id, 'at', x.at) ORDER BY x.status_changed_at, x.id),
          '[]'::json) FROM (
        SELECT t.id, t.status_changed_at, t.status_changed_at::text AS at FROM tickets t
        WHERE t.project_id = ${projectId} AND t.status IN (${reviewStatuses})
          AND (t.assignee_agent_id IS NULL OR t.assignee_agent_id <> ${agentId})
        ORDER BY t.status_changed_at, t.id LIMIT ${compact.reviewLimit + 1}) x) AS review_ids`
    : sql``;
  const listNames = Object.keys(input.lists ?? {});
  const lists = listColumns(input.lists ?? {});
  const result = await sql<Row>`SELECT
      (SELECT row_to_json(x) FROM (SELECT id, name, platform, model, company, capabilities FROM agents
        WHERE id = ${agentId}) x) AS agent,
      (SELECT seq FROM event_cursors WHERE project_id = ${projectId}) AS head,
      (SELECT count(*)::int FROM (SELECT 1 FROM sessions WHERE agent_id = ${agentId}
        AND ${sameSubAgent("sub_agent_name", sub)} LIMIT 2) s) AS sessions,
      (SELECT count(DISTINCT payload->>'moduleName')::int FROM ledger_entries WHERE project_id = ${projectId}
        AND type = 'DONE' AND payload->>'kind' = 'handoff') AS modules_done,
      ${countSum(db, projectId, "ticket", REVIEW_STATUSES)} - (SELECT count(*)::int FROM tickets
        WHERE assignee_agent_id = ${agentId} AND status IN (${reviewStatuses}) AND project_id = ${projectId})
        AS review_total,
      ${countSum(db, projectId, "pickable", PICKABLE_STATUSES)} AS pickable,
      ${countSum(db, projectId, "thread", threadKeys)} AS thread_count,
      (SELECT row_to_json(e) FROM (SELECT env_health, created_at FROM ledger_entries WHERE agent_id = ${agentId}
        AND env_health IS NOT NULL ORDER BY seq DESC LIMIT 1) e) AS env,
      (SELECT report FROM sessions WHERE agent_id = ${agentId} AND report IS NOT NULL
        ORDER BY report_at DESC NULLS LAST LIMIT 1) AS latest_report${ids}${lists}`.execute(db);
  const row = result.rows[0]!;
  return {
    agent: parsed(row.agent)!,
    head: Number(row.head ?? 0),
    sessions: Number(row.sessions),
    modulesDone: Number(row.modules_done),
    reviewTotal: Number(row.review_total),
    pickable: Number(row.pickable),
    threadCount: Number(row.thread_count),
    env: parsed(row.env),
    latestReport: parsed(row.latest_report),
    compact: compact ? compactIds(row, compact.reviewLimit) : null,
    lists: listsOf(row, listNames),
  };
}

function compactIds(row: Row, reviewLimit: number): CompactIds {
  const reviews = parsed(row.review_ids ?? null) ?? [];
  const shown = reviews.slice(0, reviewLimit);
  const last = shown.at(-1);
  return {
    threadIds: parsed(row.thread_ids ?? null) ?? [],
    reviewIds: shown.map((r) => r.id),
    reviewNext: reviews.length > reviewLimit && last ? { at: last.at, id: last.id } : null,
  };
}
