import { sql } from "kysely";
import type { ServiceCtx } from "@/domain/core/context.ts";
import { REVIEW_STATUSES } from "@/domain/core/workflow.ts";
import type { DashboardMember } from "./access.ts";

/** How many hours the activity timeline spans, ending now. */
export const TIMELINE_HOURS = 6;
/** At most this many lanes (agents), the most active first. */
export const TIMELINE_LANES = 16;
const MARKS_PER_KIND = 300;

export type ActivityKind = "claim" | "ledger" | "handoff" | "review";

export interface ActivityMark {
  at: Date;
  kind: ActivityKind;
  /** The ledger entry's type, the claimed file, or the review's move ("Review → Done"). */
  label: string;
}

export interface ActivityLane {
  agentId: string;
  name: string;
  marks: ActivityMark[];
}

export interface ActivityTimeline {
  from: Date;
  to: Date;
  lanes: ActivityLane[];
}

interface MarkRow {
  agent_id: string;
  agent_name: string;
  at: Date | string;
  kind: string;
  label: string | null;
  data: Record<string, unknown> | string | null;
}

/** Claims taken, ledger entries and handoff or move events of the window, each capped, in ONE statement. */
function markRows(ctx: ServiceCtx, projectId: string, from: Date, to: Date) {
  const cap = MARKS_PER_KIND;
  return sql<MarkRow>`SELECT m.*, a.name AS agent_name FROM (
      (SELECT c.agent_id, c.claimed_at AS at, 'claim' AS kind,
          (SELECT min(f.file) FROM claim_files f WHERE f.claim_id = c.id) AS label, NULL::jsonb AS data
        FROM claims c WHERE c.project_id = ${projectId} AND c.claimed_at >= ${from} AND c.claimed_at <= ${to}
        ORDER BY c.claimed_at DESC LIMIT ${cap})
      UNION ALL
      (SELECT l.agent_id, l.created_at, 'ledger', l.type::text, NULL::jsonb FROM ledger_entries l
        WHERE l.project_id = ${projectId} AND l.agent_id IS NOT NULL AND l.audit = false
          AND l.created_at >= ${from} AND l.created_at <= ${to} ORDER BY l.seq DESC LIMIT ${cap})
      UNION ALL
      (SELECT e.agent_id, e.created_at, e.kind, NULL, e.data FROM events e
        WHERE e.project_id = ${projectId} AND e.agent_id IS NOT NULL
          AND e.kind IN ('handoff.completed', 'ticket.moved')
          AND e.created_at >= ${from} AND e.created_at <= ${to} ORDER BY e.seq DESC LIMIT ${cap})
    ) m JOIN agents a ON a.id = m.agent_id`.execute(ctx.db);
}

/** A row as a mark of the timeline, or null (a move that is not a review decision). */
function markOf(r: MarkRow): ActivityMark | null {
  const at = r.at instanceof Date ? r.at : new Date(r.at);
  if (r.kind === "claim") return { at, kind: "claim", label: r.label ?? "claim" };
  if (r.kind === "ledger") return { at, kind: "ledger", label: r.label ?? "" };
  if (r.kind === "handoff.completed") return { at, kind: "handoff", label: "Handoff" };
  const data = (typeof r.data === "string" ? JSON.parse(r.data) : r.data ?? {}) as Record<string, unknown>;
  return (REVIEW_STATUSES as readonly unknown[]).includes(data.from) && typeof data.to === "string"
    ? { at, kind: "review", label: `Review → ${data.to}` }
    : null;
}

/**
 * One lane per agent over the last hours: claims taken, ledger entries by type, handoffs and review
 * moves (a ticket moved out of a review status). One query; the most active agents get a lane.
 */
export async function activityTimeline(ctx: ServiceCtx, member: DashboardMember): Promise<ActivityTimeline> {
  const to = ctx.clock.now();
  const from = new Date(to.getTime() - TIMELINE_HOURS * 3_600_000);
  const rows = (await markRows(ctx, member.project.id, from, to)).rows;
  const lanes = new Map<string, ActivityLane>();
  for (const r of rows) {
    const mark = markOf(r);
    if (!mark) continue;
    const lane = lanes.get(r.agent_id) ?? { agentId: r.agent_id, name: r.agent_name, marks: [] };
    lane.marks.push(mark);
    lanes.set(r.agent_id, lane);
  }
  const shown = [...lanes.values()]
    .sort((a, b) => b.marks.length - a.marks.length || a.name.localeCompare(b.name)).slice(0, TIMELINE_LANES)
    .sort((a, b) => a.name.localeCompare(b.name));
  for (const l of shown) l.marks.sort((a, b) => a.at.getTime() - b.at.getTime());
  return { from, to, lanes: shown };
}
