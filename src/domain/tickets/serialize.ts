import type { Selectable } from "kysely";
import type { TicketsTable } from "@/db/tables/work.ts";

export type TicketRow = Selectable<TicketsTable>;

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
export function toTicket(row: TicketRow, prefix: string, assigneeName: string | null) {
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
