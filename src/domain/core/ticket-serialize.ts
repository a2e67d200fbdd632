import type { Selectable } from "kysely";
import type { TicketsTable } from "@/db/tables/work.ts";

export type TicketRow = Selectable<TicketsTable>;

/** The columns of a ticket the API shows (`toTicket`, `ticketNextAction`): no search vector, no bookkeeping. */
export const TICKET_FIELDS = [
  "id",
  "number",
  "title",
  "description",
  "type",
  "tags",
  "status",
  "expected_files",
  "done_definition",
  "verification_command",
  "risk_class",
  "out_of_scope",
  "acceptance_criteria",
  "criteria_acknowledged_at",
  "assignee_agent_id",
  "sub_agent_name",
  "reviewer_agent_id",
  "review_history",
  "review_handoff",
  "parent_id",
  "branch",
  "sprint_id",
  "human_only",
  "story_points",
  "no_artifact",
  "no_artifact_reason",
  "created_by_agent_id",
  "status_changed_at",
  "created_at",
  "updated_at",
] as const satisfies ReadonlyArray<keyof TicketRow>;
export type TicketFields = Pick<TicketRow, typeof TICKET_FIELDS[number]>;

export const PRIORITIES = ["critical", "high", "normal", "low"] as const;
export type Priority = typeof PRIORITIES[number];

/** Priority from the `priority:<level>` tag; `normal` when absent. */
export function priorityOf(tags: string[]): Priority {
  const tag = tags.find((t) => t.startsWith("priority:"));
  const level = tag?.slice("priority:".length);
  return (PRIORITIES as readonly string[]).includes(level ?? "") ? level as Priority : "normal";
}

/** Replaces the priority tag; `normal` removes it. */
export function withPriority(tags: string[], priority: Priority): string[] {
  const rest = tags.filter((t) => !t.startsWith("priority:"));
  return priority === "normal" ? rest : [...rest, `priority:${priority}`];
}

/**
 * The ticket resource as the API returns it (spec: Ticket). `assigneeName` comes from a join;
 * `comments` and `ledger` are added only on request by the caller.
 */
export function toTicket(row: TicketFields, prefix: string, assigneeName: string | null) {
  return {
    id: row.id,
    number: row.number,
    ticketRef: `${prefix}-${row.number}`,
    title: row.title,
    description: row.description,
    type: row.type,
    tags: row.tags,
    priority: priorityOf(row.tags),
    status: row.status,
    expectedFiles: row.expected_files,
    doneDefinition: row.done_definition,
    verificationCommand: row.verification_command,
    riskClass: row.risk_class,
    outOfScope: row.out_of_scope,
    acceptanceCriteria: row.acceptance_criteria,
    criteriaAcknowledgedAt: row.criteria_acknowledged_at?.toISOString() ?? null,
    assignee: row.assignee_agent_id ? { agentId: row.assignee_agent_id, name: assigneeName ?? "" } : null,
    subAgentName: row.sub_agent_name,
    reviewerAgentId: row.reviewer_agent_id,
    reviewHistory: row.review_history,
    reviewHandoff: row.review_handoff,
    parentId: row.parent_id,
    parentTicketId: row.parent_id,
    branch: row.branch,
    sprintId: row.sprint_id,
    humanOnly: row.human_only,
    storyPoints: row.story_points === null ? null : Number(row.story_points),
    noArtifact: row.no_artifact,
    noArtifactReason: row.no_artifact_reason,
    createdByAgentId: row.created_by_agent_id,
    statusChangedAt: row.status_changed_at.toISOString(),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

export type Ticket = ReturnType<typeof toTicket>;
