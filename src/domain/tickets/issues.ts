import type { z } from "zod";
import type { IssueQuery } from "@/contracts/skill.ts";
import type { ActorCtx } from "@/domain/core/context.ts";
import { readBoard } from "./board.ts";
import { loadProject } from "./project-info.ts";
import { boardColumns, isTerminal } from "@/domain/core/workflow.ts";

/** GET /issue's query, as the route has parsed it. */
export type IssueInput = z.output<typeof IssueQuery>;

/**
 * GET /issue (TKT-196 design): the project's tickets as an issue tracker shows them, the target of the
 * `issuesUrl` that pairing returns. A view over the board: `open` is every column but the terminal ones,
 * `closed` the terminal ones (done, cancelled), `all` both; same cursor rules as GET /board.
 */
export async function listIssues(ctx: ActorCtx, input: IssueInput) {
  const project = await loadProject(ctx.db, ctx.actor.projectId);
  const columns = boardColumns(project.settings);
  const statuses = input.state === "all"
    ? columns
    : columns.filter((s) => isTerminal(s) === (input.state === "closed"));
  const board = await readBoard(ctx, {
    status: statuses.join(","),
    assigneeId: input.assigneeId,
    tags: input.labels,
    limit: input.limit,
    cursor: input.cursor,
  });
  const base = ctx.publicUrl;
  return {
    issues: board.tickets.map((t) => ({
      id: t.id,
      key: t.ticketRef,
      number: t.number,
      title: t.title,
      state: isTerminal(t.status) ? "closed" as const : "open" as const,
      status: t.status,
      type: t.type,
      priority: t.priority,
      labels: t.tags,
      assignee: t.assignee,
      url: `${base}/api/ticket?key=${encodeURIComponent(t.ticketRef)}`,
      createdAt: t.createdAt,
      updatedAt: t.updatedAt,
      nextAction: t.nextAction,
    })),
    total: board.total,
    returned: board.returned,
    nextCursor: board.nextCursor,
    boardUrl: `${base}/api/board`,
  };
}
