/**
 * GET /sprint/{id}/plan (issue 24 point 6): which of a sprint's open tickets can run at the same time.
 * Tickets not done or cancelled, in priority order (critical, high, normal, low) then by number, each put
 * greedily into the first wave where no ticket's expected files overlap its own; and the tickets whose
 * files another agent holds now. Deterministic for the same data.
 */
import type { ActorCtx } from "@/domain/core/context.ts";
import { identityName } from "@/domain/core/actor.ts";
import { type Holder, liveHolders } from "@/domain/core/claim-holders.ts";
import { PRIORITIES, priorityOf } from "@/domain/core/ticket-serialize.ts";
import { entriesOverlap } from "@/shared/file-path.ts";
import { sprintNotFound } from "./common.ts";

/** Statuses a plan leaves out: the work is over. */
export const PLAN_CLOSED_STATUSES = ["done", "cancelled"];

export interface PlanTicket {
  key: string;
  title: string;
  priority: string;
  expectedFiles: string[];
}

export interface SprintPlan {
  waves: Array<{ tickets: PlanTicket[] }>;
  blockedByClaims: Array<{ key: string; files: string[]; holders: string[] }>;
}

function anyOverlap(a: string[], b: string[]): boolean {
  return a.some((x) => b.some((y) => entriesOverlap(x, y)));
}

interface Row extends PlanTicket {
  number: number;
  assignee: string | null;
}

/** GET /sprint/{sprintId}/plan. */
export async function sprintPlan(ctx: ActorCtx, sprintId: string): Promise<SprintPlan> {
  const { actor } = ctx;
  const sprint = await ctx.db.selectFrom("sprints").select("id").where("id", "=", sprintId)
    .where("project_id", "=", actor.projectId).executeTakeFirst();
  if (!sprint) throw sprintNotFound(sprintId);
  const rows = await ctx.db.selectFrom("tickets as t").innerJoin("projects as p", "p.id", "t.project_id")
    .select(["t.number", "t.title", "t.tags", "t.expected_files", "t.assignee_agent_id", "p.ticket_prefix"])
    .where("t.sprint_id", "=", sprintId).where("t.project_id", "=", actor.projectId)
    .where("t.status", "not in", PLAN_CLOSED_STATUSES).execute();
  const tickets: Row[] = rows.map((r) => ({
    key: `${r.ticket_prefix}-${r.number}`,
    title: r.title,
    priority: priorityOf(r.tags),
    expectedFiles: r.expected_files,
    number: r.number,
    assignee: r.assignee_agent_id,
  })).sort(byPriorityThenNumber);
  const files = [...new Set(tickets.flatMap((t) => t.expectedFiles))];
  const holders = await liveHolders(ctx.db, actor.projectId, files, ctx.clock.now());
  return { waves: wavesOf(tickets), blockedByClaims: blockedOf(tickets, holders, actor.agentId) };
}

function byPriorityThenNumber(a: Row, b: Row): number {
  const rank = (p: string) => (PRIORITIES as readonly string[]).indexOf(p);
  return rank(a.priority) - rank(b.priority) || a.number - b.number;
}

/** Each ticket in the first wave with no overlapping expected files (a new wave when none fits). */
function wavesOf(tickets: Row[]): SprintPlan["waves"] {
  const waves: Row[][] = [];
  for (const ticket of tickets) {
    const wave = waves.find((w) => w.every((t) => !anyOverlap(t.expectedFiles, ticket.expectedFiles)));
    if (wave) wave.push(ticket);
    else waves.push([ticket]);
  }
  return waves.map((w) => ({
    tickets: w.map(({ key, title, priority, expectedFiles }) => ({ key, title, priority, expectedFiles })),
  }));
}

/**
 * Tickets some of whose expected files are held now by an agent other than the ticket's assignee (an
 * unassigned ticket: other than the caller), with those files and the holders' names (sorted).
 */
function blockedOf(tickets: Row[], holders: Holder[], callerId: string): SprintPlan["blockedByClaims"] {
  const out: SprintPlan["blockedByClaims"] = [];
  for (const ticket of tickets) {
    const worker = ticket.assignee ?? callerId;
    const blocking = holders.filter((h) =>
      h.agentId !== worker && ticket.expectedFiles.some((f) => entriesOverlap(f, h.file))
    );
    if (blocking.length === 0) continue;
    out.push({
      key: ticket.key,
      files: ticket.expectedFiles.filter((f) => blocking.some((h) => entriesOverlap(f, h.file))),
      holders: [...new Set(blocking.map((h) => identityName(h.agentName, h.subAgentName)))].sort(),
    });
  }
  return out;
}
