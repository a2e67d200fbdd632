import type { Selectable } from "kysely";
import type { PlanItem, SessionActivitiesTable, SessionsTable } from "@/db/tables/foundation.ts";

export type SessionRow = Selectable<SessionsTable>;
export type ActivityRow = Selectable<SessionActivitiesTable>;

/** The full session record (SESS-005): spec fields plus owner, source, ticket, report and counters. */
export function toSession(row: SessionRow, agentName: string) {
  return {
    id: row.id,
    status: row.status,
    startedAt: row.started_at.toISOString(),
    endedAt: row.ended_at ? row.ended_at.toISOString() : null,
    plan: row.plan as PlanItem[],
    planVersion: row.plan_version,
    agent: { id: row.agent_id, name: agentName, subAgentName: row.sub_agent_name },
    source: row.source,
    ticketId: row.ticket_id,
    environmentReport: row.report,
    reportedAt: row.report_at ? row.report_at.toISOString() : null,
    activityCount: row.activity_count,
  };
}

export function toActivity(row: ActivityRow) {
  return {
    id: row.id,
    type: row.type,
    body: row.body,
    action: row.action,
    parameter: row.parameter,
    result: row.result,
    ephemeral: row.ephemeral,
    createdAt: row.created_at.toISOString(),
  };
}
