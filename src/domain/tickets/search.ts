import type { z } from "zod";
import type { SearchQuery } from "@/contracts/tickets.ts";
import { sql, type SqlBool } from "kysely";
import type { ActorCtx } from "@/domain/core/context.ts";
import { paginationOf } from "@/domain/core/pagination.ts";
import { boardFilters, boardWhere } from "./board.ts";
import { loadProject } from "./project-info.ts";
import { toTicket } from "@/domain/core/ticket-serialize.ts";
import { boardColumns } from "@/domain/core/workflow.ts";

/** GET /search's query, as the route has parsed it. */
export type SearchInput = z.output<typeof SearchQuery>;

const KEY = /^([A-Za-z]{2,10})-(\d{1,9})$/;

/**
 * GET /search: PostgreSQL full-text search over title and description (the generated `search` column,
 * English configuration, GIN index) with `websearch_to_tsquery`, so `"exact phrase"`, `or` and `-word`
 * work. Best match first (`ts_rank`, then newest). A query that is a ticket key of this project also
 * returns that ticket, ranked first. Filters as on the board; cancelled tickets hidden unless asked for.
 * Offset pagination.
 */
export async function searchTickets(ctx: ActorCtx, input: SearchInput) {
  const { db, actor } = ctx;
  const project = await loadProject(db, actor.projectId);
  const f = boardFilters(
    { status: input.status, type: input.type, sprintId: input.sprintId, include: input.include },
    boardColumns(project.settings),
    actor.agentId,
  );
  const key = KEY.exec(input.q.trim());
  const keyNumber = key && key[1]!.toUpperCase() === project.prefix ? Number(key[2]) : null;
  const query = sql`websearch_to_tsquery('english', ${input.q})`;
  const matches = keyNumber === null
    ? sql<SqlBool>`tickets.search @@ ${query}`
    : sql<SqlBool>`(tickets.search @@ ${query} or tickets.number = ${keyNumber})`;
  const rank = keyNumber === null ? sql<number>`ts_rank(tickets.search, ${query})` : sql<
    number
  >`case when tickets.number = ${keyNumber} then 1000 else ts_rank(tickets.search, ${query}) end`;

  const rows = await db.selectFrom("tickets").leftJoin("agents", "agents.id", "tickets.assignee_agent_id")
    .selectAll("tickets")
    .select([
      "agents.name as assignee_name",
      rank.as("rank"),
      sql<string>`ts_headline('english', coalesce(tickets.description, tickets.title), ${query},
        'MaxFragments=1, MaxWords=30, MinWords=10, StartSel=**, StopSel=**')`.as("snippet"),
    ])
    .where(boardWhere(actor.projectId, f)).where(matches)
    .orderBy("rank", "desc").orderBy("tickets.number", "desc")
    .limit(input.limit).offset(input.offset).execute();
  const counted = await db.selectFrom("tickets").select(sql<number>`count(*)::int`.as("n"))
    .where(boardWhere(actor.projectId, f)).where(matches).executeTakeFirstOrThrow();

  return {
    query: input.q,
    results: rows.map(({ assignee_name, rank, snippet, ...row }) => ({
      ...toTicket(row, project.prefix, assignee_name),
      rank: Math.round(Number(rank) * 10000) / 10000,
      snippet: snippet || null,
    })),
    pagination: paginationOf(input, rows.length, counted.n),
  };
}
