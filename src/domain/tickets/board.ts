import { type Expression, type ExpressionBuilder, sql, type SqlBool } from "kysely";
import { identityName } from "@/domain/shared/actor.ts";
import type { Database, DbOrTrx } from "@/db/database.ts";
import { toJson } from "@/db/tables/types.ts";
import type { ActorCtx } from "@/domain/shared/context.ts";
import { fail, recovery } from "@/domain/shared/errors.ts";
import { isUuid } from "./refs.ts";
import { ticketNextAction } from "./next-action.ts";
import { loadProject } from "./project-info.ts";
import { toTicket } from "./serialize.ts";
import { boardColumns, TERMINAL_STATUSES } from "./workflow.ts";

export interface BoardInput {
  status?: string | undefined;
  type?: string | undefined;
  tags?: string | undefined;
  assigneeId?: string | undefined;
  sprintId?: string | undefined;
  include?: string | undefined;
  limit: number;
  cursor?: string | undefined;
}

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

/** Validates the query against the project's board: 400 with the recovery the spec names for each. */
export function boardFilters(
  input: Omit<BoardInput, "limit" | "cursor">,
  columns: string[],
  callerId: string,
) {
  const statuses = commaItems(input.status);
  const unknown = statuses.filter((s) => !columns.includes(s));
  if (unknown.length > 0) {
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

/**
 * GET /board: one page of the project's tickets in number order (cursor pagination: `nextCursor` goes back
 * unchanged as `cursor`), with `total` and `statusCounts` over every matching ticket, and advisory
 * `collisionWarnings`. Every query is served by an index.
 */
export async function readBoard(ctx: ActorCtx, input: BoardInput) {
  const { db, actor } = ctx;
  const project = await loadProject(db, actor.projectId);
  const columns = boardColumns(project.settings);
  const f = boardFilters(input, columns, actor.agentId);
  const after = input.cursor ? decodeCursor(input.cursor, f) : 0;
  const where = boardWhere(actor.projectId, f);

  // The page, the counts and the collision warnings are independent reads: one wait instead of three
  // (on PostgreSQL they run on separate pool connections).
  const [fetched, counted, warnings] = await Promise.all([
    db.selectFrom("tickets").selectAll().where(where).where("tickets.number", ">", after)
      .orderBy("tickets.number", "asc").limit(input.limit + 1).execute(),
    db.selectFrom("tickets").select(["tickets.status", sql<number>`count(*)::int`.as("n")])
      .where(where).groupBy("tickets.status").execute(),
    collisionWarnings(db, actor.projectId, project.prefix, ctx.clock.now()),
  ]);
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

  const [names, extras] = await Promise.all([
    agentNames(db, rows.map((r) => r.assignee_agent_id)),
    rowExtras(db, rows.map((r) => r.id)),
  ]);
  const tickets = rows.map((r) => {
    const e = extras.get(r.id);
    return {
      ...toTicket(r, project.prefix, r.assignee_agent_id ? names.get(r.assignee_agent_id) ?? null : null),
      criteriaCount: r.acceptance_criteria.length,
      criteriaPassed: Math.min(e?.criteriaPassed ?? 0, r.acceptance_criteria.length),
      artifactCount: e?.artifactCount ?? 0,
      hasOpenArtifacts: e?.hasOpenArtifacts ?? false,
      nextAction: ticketNextAction(r),
    };
  });
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

async function agentNames(db: DbOrTrx, ids: Array<string | null>): Promise<Map<string, string>> {
  const wanted = [...new Set(ids.filter((id): id is string => id !== null))];
  if (wanted.length === 0) return new Map();
  const rows = await db.selectFrom("agents").select(["id", "name"]).where("id", "in", wanted).execute();
  return new Map(rows.map((r) => [r.id, r.name]));
}

interface RowExtras {
  criteriaPassed: number;
  artifactCount: number;
  hasOpenArtifacts: boolean;
}

/**
 * Per-ticket figures for a page: artifacts (count, any still `open`) and criteria passed, which is the
 * number of distinct criteria whose test passed in the ticket's latest QA run (0 without a run).
 */
async function rowExtras(db: DbOrTrx, ids: string[]): Promise<Map<string, RowExtras>> {
  const out = new Map<string, RowExtras>();
  if (ids.length === 0) return out;
  for (const id of ids) out.set(id, { criteriaPassed: 0, artifactCount: 0, hasOpenArtifacts: false });
  const [artifacts, runs] = await Promise.all([artifactsOf(db, ids), latestRuns(db, ids)]);
  for (const a of artifacts) {
    const e = out.get(a.ticket_id)!;
    e.artifactCount = a.n;
    e.hasOpenArtifacts = a.open === true;
  }
  if (runs.length > 0) {
    const passed = await db.selectFrom("qa_tests")
      .select(["qa_run_id", sql<number>`count(distinct criterion_index)::int`.as("n")])
      .where("qa_run_id", "in", runs.map((r) => r.id)).where("status", "in", ["passed", "pass", "verified"])
      .groupBy("qa_run_id").execute();
    const byRun = new Map(passed.map((p) => [p.qa_run_id, p.n]));
    for (const r of runs) out.get(r.ticket_id)!.criteriaPassed = byRun.get(r.id) ?? 0;
  }
  return out;
}

function artifactsOf(db: DbOrTrx, ids: string[]) {
  return db.selectFrom("ticket_artifacts")
    .select([
      "ticket_id",
      sql<number>`count(*)::int`.as("n"),
      sql<boolean>`bool_or(status = 'open')`.as("open"),
    ])
    .where("ticket_id", "in", ids).groupBy("ticket_id").execute();
}

/** Each ticket's latest QA run. */
function latestRuns(db: DbOrTrx, ids: string[]) {
  return db.selectFrom("qa_runs").select(["id", "ticket_id"]).distinctOn("ticket_id")
    .where("ticket_id", "in", ids).orderBy("ticket_id").orderBy("created_at", "desc").execute();
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
 * assigned to another agent. An agent and its sub-agents are one identity. Never blocks anything.
 */
export async function collisionWarnings(
  db: DbOrTrx,
  projectId: string,
  prefix: string,
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
  const tickets = await db.selectFrom("tickets").leftJoin("agents", "agents.id", "tickets.assignee_agent_id")
    .select([
      "tickets.number",
      "tickets.assignee_agent_id",
      "tickets.expected_files",
      "agents.name as assignee_name",
    ])
    .where("tickets.project_id", "=", projectId)
    .where("tickets.status", "not in", [...TERMINAL_STATUSES])
    .where("tickets.assignee_agent_id", "is not", null)
    .where(sql<SqlBool>`tickets.expected_files ?| array[${sql.join(files)}]::text[]`)
    .limit(1000).execute();
  if (tickets.length === 0) return [];
  const byHolder = new Map<string, { agentId: string; name: string; files: Set<string> }>();
  for (const c of claimed) {
    const key = `${c.agent_id}/${c.sub_agent_name ?? ""}`;
    const holder = byHolder.get(key) ??
      {
        agentId: c.agent_id,
        name: identityName(c.name, c.sub_agent_name),
        files: new Set(),
      };
    holder.files.add(c.file);
    byHolder.set(key, holder);
  }
  const warnings: CollisionWarning[] = [];
  for (const holder of byHolder.values()) {
    const conflicting = new Set<string>();
    const hit: CollisionWarning["tickets"] = [];
    for (const t of tickets) {
      if (t.assignee_agent_id === holder.agentId) continue;
      const overlap = (t.expected_files as string[]).filter((file) => holder.files.has(file));
      if (overlap.length === 0) continue;
      for (const file of overlap) conflicting.add(file);
      hit.push({ ticketRef: `${prefix}-${t.number}`, assigneeName: t.assignee_name });
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
