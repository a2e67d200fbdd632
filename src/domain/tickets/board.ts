import type { z } from "zod";
import type { BoardQuery } from "@/contracts/tickets.ts";
import { type Expression, type ExpressionBuilder, sql, type SqlBool } from "kysely";
import { identityName } from "@/domain/core/actor.ts";
import type { Database, DbOrTrx } from "@/db/database.ts";
import { toJson } from "@/db/tables/types.ts";
import { entriesOverlap, parseEntry } from "@/shared/file-path.ts";
import type { ActorCtx } from "@/domain/core/context.ts";
import { fail, recovery } from "@/domain/core/errors.ts";
import { isUuid } from "@/domain/core/ticket-refs.ts";
import { ticketNextAction } from "./next-action.ts";
import { loadProject } from "./project-info.ts";
import { TICKET_FIELDS, type TicketFields, toTicket } from "@/domain/core/ticket-serialize.ts";
import { boardColumns, TERMINAL_STATUSES } from "@/domain/core/workflow.ts";
import { readCounts } from "@/domain/core/project-counts.ts";

/** GET /board's query, as the route has parsed it. */
export type BoardInput = z.output<typeof BoardQuery>;

/** The filters of one board query, normalized (also what a cursor is bound to). */
export interface BoardFilters {
  statuses: string[] | null;
  includeCancelled: boolean;
  type: string | null;
  tags: string[];
  assignee: string | null;
  sprint: string | null;
}

function commaItems(value: string | undefined): string[] {
  return [...new Set((value ?? "").split(",").map((s) => s.trim()).filter((s) => s.length > 0))];
}

/**
 * Validates the query against the project's board: 400 with the recovery the spec names for each.
 * Without `columns` the statuses are not checked (the board checks them once the project is read).
 */
export function boardFilters(
  input: Omit<BoardInput, "limit" | "cursor">,
  columns: string[] | null,
  callerId: string,
) {
  const statuses = commaItems(input.status);
  const unknown = columns ? statuses.filter((s) => !columns.includes(s)) : [];
  if (columns && unknown.length > 0) {
    throw fail.validation(`Unknown status ${unknown.join(", ")}: this board has ${columns.join(", ")}`, {
      field: "status",
      validStatuses: columns,
      recovery: recovery("USE_VALID_STATUS", "GET /board", "Filter by one of the board's columns", {
        status: columns[0] ?? "backlog",
      }),
    });
  }
  const sprint = input.sprintId?.trim();
  if (sprint !== undefined && sprint !== "none" && !isUuid(sprint)) {
    throw fail.validation(`sprintId "${sprint}" is not a sprint UUID`, {
      field: "sprintId",
      recovery: recovery("LIST_SPRINTS", "GET /sprint", "List the sprints and filter by a sprint's id", null),
    });
  }
  const assignee = input.assigneeId?.trim();
  if (assignee !== undefined && assignee !== "me" && assignee !== "none" && !isUuid(assignee)) {
    throw fail.validation(`assigneeId "${assignee}" must be an agent UUID, "me" or "none"`, {
      field: "assigneeId",
    });
  }
  const includes = commaItems(input.include);
  const badInclude = includes.filter((i) => i !== "cancelled");
  if (badInclude.length > 0) {
    throw fail.validation(`Unknown include ${badInclude.join(", ")}; only "cancelled"`, { field: "include" });
  }
  return {
    statuses: statuses.length > 0 ? statuses : null,
    includeCancelled: includes.includes("cancelled"),
    type: input.type ?? null,
    tags: commaItems(input.tags),
    assignee: assignee === "me" ? callerId : assignee?.toLowerCase() ?? null,
    sprint: sprint?.toLowerCase() ?? null,
  } satisfies BoardFilters;
}

/** The WHERE of a board query; cancelled tickets are hidden unless asked for or filtered by status. */
export function boardWhere(projectId: string, f: BoardFilters) {
  return (eb: ExpressionBuilder<Database, "tickets">): Expression<SqlBool> => {
    const conds: Expression<SqlBool>[] = [eb("tickets.project_id", "=", projectId)];
    if (f.statuses) conds.push(eb("tickets.status", "in", f.statuses));
    else if (!f.includeCancelled) conds.push(eb("tickets.status", "!=", "cancelled"));
    if (f.type) conds.push(eb("tickets.type", "=", f.type));
    if (f.tags.length > 0) conds.push(sql<SqlBool>`tickets.tags @> ${toJson(f.tags)}::jsonb`);
    if (f.assignee === "none") conds.push(eb("tickets.assignee_agent_id", "is", null));
    else if (f.assignee) conds.push(eb("tickets.assignee_agent_id", "=", f.assignee));
    if (f.sprint === "none") conds.push(eb("tickets.sprint_id", "is", null));
    else if (f.sprint) conds.push(eb("tickets.sprint_id", "=", f.sprint));
    return eb.and(conds);
  };
}

function fingerprint(f: BoardFilters): string {
  const text = JSON.stringify([f.statuses, f.includeCancelled, f.type, f.tags, f.assignee, f.sprint]);
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h.toString(36);
}

function encodeCursor(after: number, f: BoardFilters): string {
  return btoa(JSON.stringify({ v: 1, after, f: fingerprint(f) })).replace(/\+/g, "-").replace(/\//g, "_")
    .replace(/=+$/, "");
}

function restartPagination(reason: string) {
  return fail.validation(`Invalid cursor: ${reason}`, {
    field: "cursor",
    recovery: recovery(
      "RESTART_PAGINATION",
      "GET /board",
      "Request the first page again without cursor",
      null,
    ),
  });
}

/** Decodes a board cursor; it must come from a page of the same query (same filters). */
function decodeCursor(cursor: string, f: BoardFilters): number {
  let parsed: unknown;
  try {
    parsed = JSON.parse(atob(cursor.replace(/-/g, "+").replace(/_/g, "/")));
  } catch {
    throw restartPagination("not a cursor from GET /board");
  }
  const c = parsed as { v?: unknown; after?: unknown; f?: unknown };
  if (typeof parsed !== "object" || parsed === null || c.v !== 1 || !Number.isSafeInteger(c.after)) {
    throw restartPagination("not a cursor from GET /board");
  }
  if (c.f !== fingerprint(f)) throw restartPagination("it belongs to a query with other filters");
  return c.after as number;
}

/** The filters and the cursor position of a board query, validated (statuses only with `columns`). */
function boardPlan(input: BoardInput, columns: string[] | null, callerId: string) {
  const f = boardFilters(input, columns, callerId);
  return { f, after: input.cursor ? decodeCursor(input.cursor, f) : 0 };
}

/**
 * GET /board: one page of the project's tickets in number order (cursor pagination: `nextCursor` goes back
 * unchanged as `cursor`), with `total` and `statusCounts` over every matching ticket, and advisory
 * `collisionWarnings`. Every query is served by an index.
 *
 * One wait for the database whenever the query is valid: the project (its columns validate the status
 * filter), the page with each row's assignee name, artifacts and QA figures (one statement), the counts
 * and the collision warnings are read at once. A query whose other parts are invalid reads the project
 * first and fails as before.
 */
export async function readBoard(ctx: ActorCtx, input: BoardInput) {
  const { db, actor } = ctx;
  let early: ReturnType<typeof boardPlan> | null = null;
  try {
    early = boardPlan(input, null, actor.agentId);
  } catch {
    early = null;
  }
  const where = early ? boardWhere(actor.projectId, early.f) : null;
  const [project, fetched, counted, warnings] = await Promise.all([
    loadProject(db, actor.projectId),
    early && where ? boardPage(db, where, early.after, input.limit + 1) : null,
    early ? countByStatus(db, actor.projectId, early.f, where) : null,
    early ? collisionWarnings(db, actor.projectId, ctx.clock.now()) : null,
  ]);
  const columns = boardColumns(project.settings);
  // The same validation, in the same order, as when the reads waited for the project.
  const { f } = boardPlan(input, columns, actor.agentId);
  if (!fetched || !counted || !warnings) throw new Error("Cannot read the board: the query did not validate");
  const hasMore = fetched.length > input.limit;
  const rows = fetched.slice(0, input.limit);

  const statusCounts: Record<string, number> = {};
  const shown = f.statuses ?? columns.filter((c) => f.includeCancelled || c !== "cancelled");
  for (const s of shown) statusCounts[s] = 0;
  let total = 0;
  for (const c of counted) {
    statusCounts[c.status] = (statusCounts[c.status] ?? 0) + c.n;
    total += c.n;
  }

  const tickets = rows.map((r) => ({
    ...toTicket(r, project.prefix, r.assignee_agent_id ? r.assignee_name : null),
    criteriaCount: r.acceptance_criteria.length,
    criteriaPassed: Math.min(r.criteria_passed ?? 0, r.acceptance_criteria.length),
    artifactCount: r.artifact_count ?? 0,
    hasOpenArtifacts: r.open_artifacts === true,
    nextAction: ticketNextAction(r),
  }));
  const last = rows[rows.length - 1];
  return {
    tickets,
    total,
    statusCounts,
    returned: tickets.length,
    ticketPrefix: project.prefix,
    hasMore,
    nextCursor: hasMore && last ? encodeCursor(last.number, f) : null,
    collisionWarnings: warnings,
    columns,
  };
}

/**
 * Tickets per status of a board query. Filtered by status (or by the default "not cancelled") only: from
 * the counts kept by trigger (migration 0028), so the cost does not grow with the project's history;
 * with a type, tag, assignee or sprint filter: counted from the matching tickets.
 */
async function countByStatus(
  db: DbOrTrx,
  projectId: string,
  f: BoardFilters,
  where: ReturnType<typeof boardWhere> | null,
): Promise<Array<{ status: string; n: number }>> {
  if (f.type === null && f.tags.length === 0 && f.assignee === null && f.sprint === null) {
    const counts = await readCounts(db, projectId, "ticket");
    return [...counts].map(([status, n]) => ({ status, n })).filter((c) =>
      f.statuses ? f.statuses.includes(c.status) : f.includeCancelled || c.status !== "cancelled"
    );
  }
  if (!where) return [];
  return await db.selectFrom("tickets").select(["tickets.status", sql<number>`count(*)::int`.as("n")])
    .where(where).groupBy("tickets.status").execute();
}

type BoardRow = TicketFields & {
  assignee_name: string | null;
  artifact_count: number | null;
  open_artifacts: boolean | null;
  criteria_passed: number | null;
};

/**
 * One page of tickets after `after` in number order, each with its assignee's name, its artifacts (count,
 * any still `open`) and its criteria passed: the number of distinct criteria whose test passed in the
 * ticket's latest QA run (0 without a run). One statement: the extras are joined to the page by id.
 */
async function boardPage(
  db: DbOrTrx,
  where: ReturnType<typeof boardWhere>,
  after: number,
  limit: number,
): Promise<BoardRow[]> {
  const page = db.selectFrom("tickets").select(TICKET_FIELDS.map((c) => `tickets.${c}` as const))
    .where(where).where("tickets.number", ">", after).orderBy("tickets.number", "asc").limit(limit);
  const passed = sql.join(PASSED_STATUSES.map((s) => sql.lit(s)));
  const result = await sql<BoardRow>`WITH page AS (${page}),
      runs AS (SELECT DISTINCT ON (r.ticket_id) r.id, r.ticket_id FROM qa_runs r
        WHERE r.ticket_id IN (SELECT id FROM page) ORDER BY r.ticket_id, r.created_at DESC)
    SELECT page.*, a.name AS assignee_name, art.n AS artifact_count, art.open AS open_artifacts,
      qa.n AS criteria_passed
    FROM page
    LEFT JOIN agents a ON a.id = page.assignee_agent_id
    LEFT JOIN (SELECT x.ticket_id, count(*)::int AS n, bool_or(x.status = 'open') AS open
      FROM ticket_artifacts x WHERE x.ticket_id IN (SELECT id FROM page) GROUP BY x.ticket_id) art
      ON art.ticket_id = page.id
    LEFT JOIN runs ON runs.ticket_id = page.id
    LEFT JOIN (SELECT q.qa_run_id, count(DISTINCT q.criterion_index)::int AS n FROM qa_tests q
      WHERE q.qa_run_id IN (SELECT id FROM runs) AND q.status IN (${passed}) GROUP BY q.qa_run_id) qa
      ON qa.qa_run_id = runs.id
    ORDER BY page.number`.execute(db);
  return result.rows;
}

/** QA test statuses that count a criterion as passed. */
const PASSED_STATUSES = ["passed", "pass", "verified"];

/**
 * The open assigned tickets that may expect one of the claimed `files` (all plain files): those with one
 * of them among their expected files in any letter case (the GIN index of migration 0028) and those
 * expecting a directory or a symbol (its partial index), so that the exact check that follows reads the
 * candidates, not every open ticket. The literals repeat the indexes' predicates word for word.
 */
function collisionCandidates(projectId: string, files: string[]) {
  const open = sql.raw(`t.assignee_agent_id IS NOT NULL AND t.status NOT IN ('done', 'cancelled')`);
  return sql`SELECT t.id FROM tickets t WHERE t.project_id = ${projectId} AND ${open}
      AND lower(t.expected_files::text)::jsonb ?| (SELECT array_agg(lower(c.file)) FROM unnest(array[${
    sql.join(files)
  }]::text[]) AS c(file))
    UNION
    SELECT t.id FROM tickets t WHERE t.project_id = ${projectId} AND ${open}
      AND (t.expected_files::text LIKE '%/**"%' OR strpos(t.expected_files::text, '#') > 0)`;
}

export interface CollisionWarning {
  agentName: string;
  agentId: string;
  conflictingFiles: string[];
  tickets: Array<{ ticketRef: string; assigneeName: string | null }>;
}

/**
 * Advisory only, over the whole project (whatever the filters and page): for each agent holding live
 * claims (not released, not expired), the claimed files that are in the `expectedFiles` of open tickets
 * assigned to another agent (in any letter case; a directory or symbol counts where it overlaps:
 * `entriesOverlap`). An agent and its sub-agents are one identity.
 * Never blocks anything.
 */
export async function collisionWarnings(
  db: DbOrTrx,
  projectId: string,
  now: Date,
): Promise<CollisionWarning[]> {
  const claimed = await db.selectFrom("claim_files as f").innerJoin("claims as c", "c.id", "f.claim_id")
    .innerJoin("agents as a", "a.id", "c.agent_id")
    .select(["f.file", "c.agent_id", "c.sub_agent_name", "a.name"])
    .where("f.project_id", "=", projectId).where("f.released_at", "is", null).where(
      "c.released_at",
      "is",
      null,
    )
    .where("c.expires_at", ">", now).limit(5000).execute();
  if (claimed.length === 0) return [];
  const files = [...new Set(claimed.map((c) => c.file))];
  // A claimed directory or symbol overlaps expected entries of other spellings: no narrowing by path then
  // (the overlap is decided below, by `entriesOverlap`); nor for expected directories and symbols.
  const anyWide = files.some((f) => parseEntry(f).kind !== "file");
  const wide = anyWide ? sql`true` : sql`false`;
  const tickets = await db.selectFrom("tickets").leftJoin("agents", "agents.id", "tickets.assignee_agent_id")
    .innerJoin("projects", "projects.id", "tickets.project_id")
    .select([
      "projects.ticket_prefix",
      "tickets.number",
      "tickets.assignee_agent_id",
      "tickets.expected_files",
      "agents.name as assignee_name",
    ])
    .where("tickets.project_id", "=", projectId)
    .where("tickets.status", "not in", [...TERMINAL_STATUSES])
    .where("tickets.assignee_agent_id", "is not", null)
    .where(
      anyWide ? sql<SqlBool>`true` : sql<SqlBool>`tickets.id IN (${collisionCandidates(projectId, files)})`,
    )
    .where(sql<SqlBool>`EXISTS (SELECT 1 FROM jsonb_array_elements_text(tickets.expected_files) AS ef(file)
      WHERE ${wide} OR ef.file LIKE '%/**' OR strpos(ef.file, '#') > 0
        OR lower(ef.file) IN (SELECT lower(c.file) FROM unnest(array[${
      sql.join(files)
    }]::text[]) AS c(file)))`)
    .limit(1000).execute();
  if (tickets.length === 0) return [];
  const byHolder = new Map<string, { agentId: string; name: string; files: string[] }>();
  for (const c of claimed) {
    const key = `${c.agent_id}/${c.sub_agent_name ?? ""}`;
    const holder = byHolder.get(key) ??
      {
        agentId: c.agent_id,
        name: identityName(c.name, c.sub_agent_name),
        files: [],
      };
    holder.files.push(c.file);
    byHolder.set(key, holder);
  }
  const warnings: CollisionWarning[] = [];
  for (const holder of byHolder.values()) {
    const conflicting = new Set<string>();
    const hit: CollisionWarning["tickets"] = [];
    for (const t of tickets) {
      if (t.assignee_agent_id === holder.agentId) continue;
      const overlap = (t.expected_files as string[]).filter((file) =>
        holder.files.some((held) => entriesOverlap(held, file))
      );
      if (overlap.length === 0) continue;
      for (const file of overlap) conflicting.add(file);
      hit.push({ ticketRef: `${t.ticket_prefix}-${t.number}`, assigneeName: t.assignee_name });
    }
    if (conflicting.size > 0) {
      warnings.push({
        agentName: holder.name,
        agentId: holder.agentId,
        conflictingFiles: [...conflicting].sort(),
        tickets: hit,
      });
    }
  }
  return warnings.sort((a, b) => a.agentName.localeCompare(b.agentName));
}
