import { sql } from "kysely";
import type { DbOrTrx } from "@/db/database.ts";
import type { ProjectPhaseName } from "@/shared/vocabulary.ts";

export interface ProjectPhase {
  /** `setup` (no brief, no tickets), `planning` (no open work yet), `building`, `reviewing`, `complete`. */
  phase: ProjectPhaseName;
  /** Finer state: `brief_missing`, `tickets_missing`, `ready`, `in_progress`, `in_review`, `all_done`. */
  subphase: string;
}

/** Ticket counts a phase is derived from: all, closed (done, cancelled), active, in a review status. */
export interface PhaseCounts {
  total: number;
  closed: number;
  active: number;
  review: number;
}

/** The phase a brief and a board imply (documented design, PAIR-023); no I/O. */
export function phaseOf(hasBrief: boolean, counts: PhaseCounts): ProjectPhase {
  if (!hasBrief && counts.total === 0) return { phase: "setup", subphase: "brief_missing" };
  if (counts.total === 0) return { phase: "planning", subphase: "tickets_missing" };
  if (counts.closed === counts.total) return { phase: "complete", subphase: "all_done" };
  if (counts.active > 0) return { phase: "building", subphase: "in_progress" };
  if (counts.review > 0) return { phase: "reviewing", subphase: "in_review" };
  return { phase: "planning", subphase: "ready" };
}

/** Derives the project's phase from its brief and board (documented design, PAIR-023). */
export async function projectPhase(db: DbOrTrx, projectId: string): Promise<ProjectPhase> {
  const project = await db.selectFrom("projects").select(["brief_version"]).where("id", "=", projectId)
    .executeTakeFirstOrThrow();
  const counts = await db.selectFrom("tickets")
    .select([
      sql<number>`count(*)::int`.as("total"),
      sql<number>`count(*) filter (where status in ('done','cancelled'))::int`.as("closed"),
      sql<number>`count(*) filter (where status in ('in_progress','claimed','blocked'))::int`.as("active"),
      sql<number>`count(*) filter (where status in ('review','in_review','needs_review','qa'))::int`.as(
        "review",
      ),
    ])
    .where("project_id", "=", projectId).executeTakeFirstOrThrow();
  return phaseOf(project.brief_version > 0, counts);
}

export interface WorkqueueItem {
  id: string;
  number: number;
  ticketRef: string;
  title: string;
  status: string;
  type: string | null;
}

/**
 * Up to `limit` unassigned tickets ready to pick: in progress, or waiting in the active sprint's
 * backlog (`sprint_backlog`, or `backlog` within the active sprint). Oldest first.
 */
export function workqueueQuery(db: DbOrTrx, projectId: string, limit = 20) {
  // Two bounded reads merged by number (issue 12): unassigned tickets in progress or in the sprint
  // backlog, and the `backlog` tickets of the active sprint (at most one per project), found through
  // the sprint rather than by scanning every unassigned backlog ticket of the project.
  const ready = db.selectFrom("tickets as t")
    .select(["t.id", "t.number", "t.title", "t.status", "t.type"])
    .where("t.project_id", "=", projectId)
    .where("t.assignee_agent_id", "is", null)
    .where("t.human_only", "=", false)
    .where("t.status", "in", ["in_progress", "sprint_backlog"])
    .orderBy("t.number", "asc").limit(limit);
  // The active sprint's id first (one at most: `sprints_one_active`), so that its backlog is read
  // through the sprint's index instead of scanning every unassigned backlog ticket for the sprint's.
  const active = db.selectFrom("sprints as s").select("s.id").where("s.project_id", "=", projectId)
    .where("s.status", "=", "active").limit(1);
  const sprint = db.selectFrom("tickets as t")
    .select(["t.id", "t.number", "t.title", "t.status", "t.type"])
    .where("t.sprint_id", "=", active)
    .where("t.project_id", "=", projectId)
    .where("t.assignee_agent_id", "is", null)
    .where("t.human_only", "=", false)
    .where("t.status", "=", "backlog")
    .orderBy("t.number", "asc").limit(limit);
  return db.selectFrom(
    sql<Omit<WorkqueueItem, "ticketRef">>`((${ready}) UNION ALL (${sprint}))`.as("w"),
  ).selectAll().orderBy("w.number", "asc").limit(limit);
}

export function workqueueItems(
  rows: Array<Omit<WorkqueueItem, "ticketRef">>,
  prefix: string,
): WorkqueueItem[] {
  return rows.map((r) => ({ ...r, ticketRef: `${prefix}-${r.number}` }));
}

export async function workqueue(
  db: DbOrTrx,
  projectId: string,
  prefix: string,
  limit = 20,
): Promise<WorkqueueItem[]> {
  return workqueueItems(await workqueueQuery(db, projectId, limit).execute(), prefix);
}
