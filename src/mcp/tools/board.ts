import { z } from "@hono/zod-openapi";
import { BoardQuery, BoardResponse, BoardRow } from "@/contracts/tickets.ts";
import { Sprint } from "@/contracts/sprints.ts";
import type { ToolDefinition } from "../types.ts";
import { callOf, failure, fieldsOf, READ_ONLY, succeeded } from "./shared.ts";
import { boardRoute } from "@/routes/tickets.ts";
import { sprintListRoute } from "@/routes/sprints.ts";

/** Ticket summaries per column (spec: Limits, "Tool board column"). */
export const BOARD_COLUMN_MAX = 10;

const BoardInput = z.object({
  ...fieldsOf(BoardQuery, "sprintId", "status", "cursor"),
  // MCP-037: 1 to 200 (REST allows 1000), default 50.
  limit: BoardQuery.shape.limit.unwrap().max(200).default(50).describe("1 to 200, default 50"),
});

/** One ticket on the tool's board: the fields an agent picks work by. */
export const BoardSummary = BoardRow.pick({
  id: true,
  ticketRef: true,
  title: true,
  status: true,
  type: true,
  priority: true,
  riskClass: true,
  assignee: true,
  sprintId: true,
  criteriaCount: true,
  expectedFiles: true,
  nextAction: true,
});

const Column = z.object({
  count: z.number().int().describe("Tickets in this status across all pages (REST statusCounts)"),
  tickets: z.array(BoardSummary).max(BOARD_COLUMN_MAX),
  more: z.literal(true).optional().describe("Set when the column holds more tickets than shown"),
});

const BoardOutput = z.object({
  board: z.object({
    columns: z.record(z.string(), Column),
    ...BoardResponse.shape.data.pick({ total: true, returned: true, hasMore: true, nextCursor: true }).shape,
  }),
  sprints: z.array(Sprint),
});

type Board = z.infer<typeof BoardResponse.shape.data>;
type Row = z.infer<typeof BoardRow>;

function summary(row: Row): z.infer<typeof BoardSummary> {
  const keys = Object.keys(BoardSummary.shape) as (keyof z.infer<typeof BoardSummary>)[];
  return Object.fromEntries(keys.map((k) => [k, row[k]])) as z.infer<typeof BoardSummary>;
}

/** REST's board page as columns of at most 10 summaries (MCP-038, MCP-039). */
export function boardColumns(board: Board): z.infer<typeof BoardOutput>["board"] {
  const columns: Record<string, z.infer<typeof Column>> = {};
  const statuses = [...board.columns];
  for (const row of board.tickets) if (!statuses.includes(row.status)) statuses.push(row.status);
  for (const status of statuses) {
    const rows = board.tickets.filter((t) => t.status === status);
    const count = Math.max(board.statusCounts[status] ?? 0, rows.length);
    const shown = rows.slice(0, BOARD_COLUMN_MAX).map(summary);
    columns[status] = count > shown.length
      ? { count, tickets: shown, more: true }
      : { count, tickets: shown };
  }
  return {
    columns,
    total: board.total,
    returned: board.returned,
    hasMore: board.hasMore,
    nextCursor: board.nextCursor,
  };
}

export const svcBoard: ToolDefinition<typeof BoardInput> = {
  name: "svc_board",
  title: "Board",
  description: "The project's board by column (GET /board) and its sprints (GET /sprint). Each column " +
    "gives `count` (tickets in that status across all pages) and at most 10 ticket summaries; `more: true` " +
    "when the column holds more than shown (narrow with `status` or page with `cursor`). Filters: `sprintId` " +
    "(UUID or `none`), `status` (a board status, comma list allowed), `limit` 1 to 200 (default 50) tickets " +
    "read per page, `cursor` = the previous `nextCursor`. Result { board { columns { <status> { count, " +
    "tickets[], more? } }, total, returned, hasMore, nextCursor }, sprints }.",
  input: BoardInput,
  output: BoardOutput,
  annotations: READ_ONLY,
  scope: "read",
  async run(args, forward) {
    const [board, sprints] = await Promise.all([
      forward(callOf(boardRoute, {
        query: { sprintId: args.sprintId, status: args.status, limit: args.limit, cursor: args.cursor },
      })),
      forward(callOf(sprintListRoute)),
    ]);
    if (!succeeded(board)) return failure(board);
    if (!succeeded(sprints)) return failure(sprints);
    const boardData = (board.body as { data: Board }).data;
    const sprintData = (sprints.body as { data: unknown[] }).data;
    return { ok: true, data: { board: boardColumns(boardData), sprints: sprintData } };
  },
};
