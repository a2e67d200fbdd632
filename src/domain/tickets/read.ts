import type { z } from "zod";
import type { GetTicketQuery } from "@/contracts/tickets.ts";
import { toLedgerEntry } from "@/domain/core/ledger-serialize.ts";
import { sql } from "kysely";
import type { DbOrTrx } from "@/db/database.ts";
import type { ActorCtx } from "@/domain/core/context.ts";
import { type Pagination, paginationOf } from "@/domain/core/pagination.ts";
import type { CiState } from "@/shared/vocabulary.ts";
import { toThreadSummary } from "@/domain/core/thread-serialize.ts";
import { findTicketId, ticketNotFound } from "@/domain/core/ticket-refs.ts";
import { type TicketRow, toTicket } from "@/domain/core/ticket-serialize.ts";
import { loadProject } from "./project-info.ts";

export type TicketInclude = "comments" | "ledger" | "threads" | "activities" | "pullRequests" | "ciStatus";

/** GET /ticket's query, as the route has parsed it. */
export type ReadTicketInput = z.output<typeof GetTicketQuery>;

export interface TicketWithAssignee {
  row: TicketRow;
  assigneeName: string | null;
}

/** One ticket of the project with its assignee's name, or null. */
export async function ticketWithAssignee(
  db: DbOrTrx,
  projectId: string,
  id: string,
): Promise<TicketWithAssignee | null> {
  const found = await db.selectFrom("tickets as t").leftJoin("agents as a", "a.id", "t.assignee_agent_id")
    .selectAll("t").select("a.name as assignee_name")
    .where("t.id", "=", id).where("t.project_id", "=", projectId).executeTakeFirst();
  if (!found) return null;
  const { assignee_name, ...row } = found;
  return { row, assigneeName: assignee_name };
}

type Page<T> = T[] | { data: T[]; pagination: Pagination };

type PageInput = Pick<ReadTicketInput, "limit" | "offset" | "paginate">;

/** One list of the ticket: the rows as `data`, wrapped with its pagination when `paginate=v2`. */
export function paginated<T>(input: PageInput, data: T[], total: number): Page<T> {
  if (input.paginate !== "v2") return data;
  return { data, pagination: paginationOf(input, data.length, total) };
}

async function page<T>(
  input: PageInput,
  fetch: (limit: number, offset: number) => Promise<T[]>,
  count: () => Promise<number>,
): Promise<Page<T>> {
  const data = await fetch(input.limit, input.offset);
  // The total costs a query: only the v2 shape shows it.
  return paginated(input, data, input.paginate === "v2" ? await count() : 0);
}

async function countOf(query: { executeTakeFirstOrThrow(): Promise<{ n: number }> }): Promise<number> {
  return (await query.executeTakeFirstOrThrow()).n;
}

const COUNT = sql<number>`count(*)::int`.as("n");

/** Which ticket a list belongs to, and how much of it to read. */
interface ListQuery {
  db: DbOrTrx;
  projectId: string;
  ticketId: string;
  input: PageInput;
}

function comments({ db, ticketId, input }: ListQuery) {
  return page(input, async (limit, offset) => {
    const rows = await db.selectFrom("ticket_comments").selectAll().where("ticket_id", "=", ticketId)
      .orderBy("created_at", "desc").orderBy("id").limit(limit).offset(offset).execute();
    return rows.map((r) => ({
      id: r.id,
      authorAgentId: r.author_agent_id,
      authorName: r.author_name ?? r.author_agent_id,
      content: r.content,
      createdAt: r.created_at.toISOString(),
    }));
  }, () => countOf(db.selectFrom("ticket_comments").select(COUNT).where("ticket_id", "=", ticketId)));
}

function ledger({ db, projectId, ticketId, input }: ListQuery) {
  return page(input, async (limit, offset) => {
    const rows = await db.selectFrom("ledger_entries as l").leftJoin("agents as a", "a.id", "l.agent_id")
      .selectAll("l").select("a.name as agent_name")
      .where("l.project_id", "=", projectId).where("l.ticket_id", "=", ticketId).where("l.audit", "=", false)
      .orderBy("l.seq", "desc").limit(limit).offset(offset).execute();
    return rows.map(toLedgerEntry);
  }, () =>
    countOf(
      db.selectFrom("ledger_entries").select(COUNT)
        .where("project_id", "=", projectId).where("ticket_id", "=", ticketId).where("audit", "=", false),
    ));
}

function threads({ db, projectId, ticketId, input }: ListQuery) {
  return page(input, async (limit, offset) => {
    const rows = await db.selectFrom("threads as th").leftJoin("agents as a", "a.id", "th.agent_id")
      .selectAll("th").select("a.name as agent_name")
      .where("th.project_id", "=", projectId).where("th.ticket_id", "=", ticketId)
      .orderBy("th.created_at", "desc").limit(limit).offset(offset).execute();
    return rows.map((r) => toThreadSummary(r, r.agent_name));
  }, () =>
    countOf(
      db.selectFrom("threads").select(COUNT).where("project_id", "=", projectId).where(
        "ticket_id",
        "=",
        ticketId,
      ),
    ));
}

function activities({ db, projectId, ticketId, input }: ListQuery) {
  const ofTicket = () =>
    db.selectFrom("session_activities as sa").innerJoin("sessions as s", "s.id", "sa.session_id")
      .where("s.project_id", "=", projectId).where("s.ticket_id", "=", ticketId);
  return page(input, async (limit, offset) => {
    const rows = await ofTicket().selectAll("sa").select(["s.agent_id", "s.sub_agent_name"])
      .orderBy("sa.created_at", "desc").orderBy("sa.id").limit(limit).offset(offset).execute();
    return rows.map((r) => ({
      id: r.id,
      sessionId: r.session_id,
      agentId: r.agent_id,
      subAgentName: r.sub_agent_name,
      type: r.type,
      body: r.body,
      action: r.action,
      parameter: r.parameter,
      result: r.result,
      ephemeral: r.ephemeral,
      createdAt: r.created_at.toISOString(),
    }));
  }, () => countOf(ofTicket().select(COUNT)));
}

function pullRequests({ db, ticketId, input }: ListQuery) {
  const prs = () =>
    db.selectFrom("ticket_artifacts").where("ticket_id", "=", ticketId).where("type", "=", "pull_request");
  return page(input, async (limit, offset) => {
    const rows = await prs().selectAll().orderBy("created_at", "desc").orderBy("id").limit(limit).offset(
      offset,
    )
      .execute();
    return rows.map((r) => ({
      id: r.id,
      url: r.url,
      ref: r.ref,
      title: r.title,
      status: r.status,
      metadata: r.metadata,
      agentId: r.agent_id,
      createdAt: r.created_at.toISOString(),
      updatedAt: r.updated_at.toISOString(),
    }));
  }, () => countOf(prs().select(COUNT)));
}

/**
 * GET /ticket: the ticket by `key` (wins) or `id`, with the lists named in `include`, newest first, each
 * capped by `limit` from `offset`. With `paginate=v2` each list is `{ data, pagination }`. The lists are
 * read one after the other, in the order they are shown.
 */
export async function readTicket(ctx: ActorCtx, input: ReadTicketInput) {
  const { db, actor } = ctx;
  const ref = input.key ?? input.id ?? "";
  const id = await findTicketId(db, actor.projectId, ref);
  const found = id ? await ticketWithAssignee(db, actor.projectId, id) : null;
  if (!found) throw ticketNotFound(ref);
  const project = await loadProject(db, actor.projectId);
  const ticketId = found.row.id;
  const include = new Set(input.include ?? []);
  const query: ListQuery = { db, projectId: actor.projectId, ticketId, input };
  return {
    ...toTicket(found.row, project.prefix, found.assigneeName),
    ...(include.has("comments") ? { comments: await comments(query) } : {}),
    ...(include.has("ledger") ? { ledger: await ledger(query) } : {}),
    ...(include.has("threads") ? { threads: await threads(query) } : {}),
    ...(include.has("activities") ? { activities: await activities(query) } : {}),
    ...(include.has("pullRequests") ? { pullRequests: await pullRequests(query) } : {}),
    ...(include.has("ciStatus") ? { ciStatus: await ciStatus(db, ticketId) } : {}),
  };
}

/** The words artifacts use for their CI state, and what each means. */
const CI_WORDS: Record<string, Exclude<CiState, "unknown">> = {
  pending: "pending",
  running: "pending",
  queued: "pending",
  success: "passing",
  passed: "passing",
  passing: "passing",
  green: "passing",
  failure: "failing",
  failed: "failing",
  failing: "failing",
  error: "failing",
  red: "failing",
};

type CiRow = { url: string; type: string; metadata: Record<string, unknown>; updated_at: Date };

/**
 * The ticket's CI state, as reported on its artifacts (newest first): the first whose `metadata.ciStatus`
 * (or `metadata.ci.status`) is a known word decides; `unknown` when none reports one. The service runs
 * no CI itself.
 */
export function ciStatusOf(rows: CiRow[]) {
  for (const r of rows) {
    const meta = r.metadata ?? {};
    const ci = typeof meta.ci === "object" && meta.ci !== null ? meta.ci as Record<string, unknown> : {};
    const raw = typeof meta.ciStatus === "string"
      ? meta.ciStatus
      : typeof ci.status === "string"
      ? ci.status
      : null;
    const state = raw ? CI_WORDS[raw.toLowerCase()] : undefined;
    if (state) {
      return {
        state,
        source: r.type,
        url: typeof ci.url === "string" ? ci.url : r.url,
        updatedAt: r.updated_at.toISOString(),
      };
    }
  }
  return { state: "unknown" as const, source: null, url: null, updatedAt: null };
}

async function ciStatus(db: DbOrTrx, ticketId: string) {
  const rows = await db.selectFrom("ticket_artifacts").select(["url", "type", "metadata", "updated_at"])
    .where("ticket_id", "=", ticketId).orderBy("updated_at", "desc").limit(50).execute();
  return ciStatusOf(rows);
}
