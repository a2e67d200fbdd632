import type { AcceptanceCriterion } from "@/db/tables/work.ts";
import { identityName } from "@/domain/core/actor.ts";
import type { ServiceCtx } from "@/domain/core/context.ts";
import { priorityOf } from "@/domain/core/ticket-serialize.ts";
import { validTransitions } from "@/domain/core/workflow.ts";
import type { DashboardMember } from "./access.ts";
import { type FeedEntry, ledgerFeed } from "./ledger.ts";

export interface TicketPage {
  id: string;
  key: string;
  title: string;
  description: string | null;
  status: string;
  type: string | null;
  priority: string;
  tags: string[];
  riskClass: string | null;
  branch: string | null;
  humanOnly: boolean;
  assigneeName: string | null;
  reviewerName: string | null;
  sprintName: string | null;
  doneDefinition: string | null;
  verificationCommand: string | null;
  outOfScope: string | null;
  expectedFiles: string[];
  acceptanceCriteria: AcceptanceCriterion[];
  criteriaAcknowledgedAt: Date | null;
  reviewHistory: ReviewHistoryItem[];
  reviewHandoff: Record<string, unknown> | null;
  createdAt: Date;
  updatedAt: Date;
  artifacts: { type: string; url: string; ref: string | null; title: string | null; status: string }[];
  qaTests: { criterionIndex: number; title: string; status: string; evidence: string | null }[];
  ledger: FeedEntry[];
  ledgerNextBefore: string | null;
  /** Statuses the workflow allows next (the move form offers these). */
  moves: string[];
}

/** One review history item as the page shows it: what happened, who did it, when. */
export interface ReviewHistoryItem {
  event: string;
  from: string | null;
  to: string | null;
  /** Who moved the ticket: the agent (and sub-agent) named, or "the service" when no agent did. */
  by: string;
  at: Date | null;
  comment: string | null;
}

const str = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : null);

/**
 * The stored history with every mover named: items written with `agentName` keep it; items that carry
 * only `agentId` (handoffs write `action`, `agentId`, `subAgentName`) are named from the agents table in
 * one query.
 */
export async function namedReviewHistory(
  ctx: ServiceCtx,
  projectId: string,
  stored: unknown[],
): Promise<ReviewHistoryItem[]> {
  const items = stored.filter((x): x is Record<string, unknown> => !!x && typeof x === "object");
  const ids = [
    ...new Set(
      items.filter((i) => !str(i.agentName)).map((i) => str(i.agentId)).filter(
        (id): id is string => id !== null && /^[0-9a-f-]{36}$/i.test(id),
      ),
    ),
  ];
  const names = new Map(
    ids.length === 0 ? [] : (await ctx.db.selectFrom("agents").select(["id", "name"])
      .where("project_id", "=", projectId).where("id", "in", ids).execute()).map((a) => [a.id, a.name]),
  );
  return items.map((i) => {
    const agent = str(i.agentName) ?? names.get(str(i.agentId) ?? "") ?? null;
    const sub = str(i.subAgentName);
    const at = str(i.at);
    return {
      event: str(i.event) ?? str(i.action) ?? "moved",
      from: str(i.from),
      to: str(i.to),
      by: agent ? (sub && !agent.includes("/") ? `${agent}/${sub}` : agent) : "the service",
      at: at && !Number.isNaN(Date.parse(at)) ? new Date(at) : null,
      comment: str(i.comment),
    };
  });
}

/**
 * One ticket by key (`PREFIX-12`, case-insensitive) with what the ticket page shows: fields, criteria,
 * review history, artifacts, the latest QA run's tests and one page of its ledger. Null when it is not a
 * ticket of the project. Four queries.
 */
export async function ticketPage(
  ctx: ServiceCtx,
  member: DashboardMember,
  key: string,
  ledgerBefore?: string,
): Promise<TicketPage | null> {
  const { project } = member;
  const m = /^([A-Za-z]{2,10})-(\d{1,9})$/.exec(key);
  if (!m || m[1]!.toUpperCase() !== project.prefix) return null;
  const row = await ctx.db.selectFrom("tickets as t")
    .leftJoin("agents as a", "a.id", "t.assignee_agent_id")
    .leftJoin("agents as rv", "rv.id", "t.reviewer_agent_id")
    .leftJoin("sprints as s", "s.id", "t.sprint_id")
    .selectAll("t").select(["a.name as assignee_name", "rv.name as reviewer_name", "s.name as sprint_name"])
    .where("t.project_id", "=", project.id).where("t.number", "=", Number(m[2]))
    .executeTakeFirst();
  if (!row) return null;
  const [artifacts, qaTests, ledger] = await Promise.all([
    ctx.db.selectFrom("ticket_artifacts").select(["type", "url", "ref", "title", "status"])
      .where("ticket_id", "=", row.id).orderBy("created_at", "desc").limit(50).execute(),
    ctx.db.selectFrom("qa_tests").select(["criterion_index", "title", "status", "evidence"])
      .where("qa_run_id", "=", (eb) =>
        eb.selectFrom("qa_runs").select("id").where("ticket_id", "=", row.id)
          .orderBy("created_at", "desc").limit(1))
      .orderBy("criterion_index").execute(),
    ledgerFeed(ctx, member, { ticketId: row.id, before: ledgerBefore }),
  ]);
  return {
    id: row.id,
    key: `${project.prefix}-${row.number}`,
    title: row.title,
    description: row.description,
    status: row.status,
    type: row.type,
    priority: priorityOf(row.tags),
    tags: row.tags,
    riskClass: row.risk_class,
    branch: row.branch,
    humanOnly: row.human_only,
    assigneeName: identityName(row.assignee_name, row.sub_agent_name),
    reviewerName: row.reviewer_name,
    sprintName: row.sprint_name,
    doneDefinition: row.done_definition,
    verificationCommand: row.verification_command,
    outOfScope: row.out_of_scope,
    expectedFiles: row.expected_files,
    acceptanceCriteria: row.acceptance_criteria,
    criteriaAcknowledgedAt: row.criteria_acknowledged_at,
    reviewHistory: await namedReviewHistory(ctx, project.id, row.review_history),
    reviewHandoff: row.review_handoff,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    artifacts,
    qaTests: qaTests.map((t) => ({
      criterionIndex: t.criterion_index,
      title: t.title,
      status: t.status,
      evidence: t.evidence,
    })),
    ledger: ledger.entries,
    ledgerNextBefore: ledger.nextBefore,
    moves: validTransitions(project.settings, row.status),
  };
}
