import { entriesOverlap } from "@/shared/file-path.ts";
import type { ProjectSettings } from "@/db/tables/foundation.ts";
import type { NextAction, ReviewMode } from "@/shared/vocabulary.ts";
import { criteriaAckRequired } from "@/domain/core/transitions.ts";
import { phaseOf } from "@/domain/projects/overview.ts";
import { type Actor, identityName } from "@/domain/core/actor.ts";
import { boardColumns, REVIEW_STATUSES } from "@/domain/core/workflow.ts";
import type { DeliveredNotification, PreviousState } from "./agent-state.ts";
import type { OpenClaimRow } from "./claims.ts";
import type { ContextScalars } from "./scalars.ts";
import type { CallerSituation } from "@/domain/core/silence.ts";
import type {
  ActiveTicketRow,
  BoardCount,
  ConnectedAgentRow,
  ContextProject,
  ContextSession,
} from "./load.ts";

/** What one call delivered: the caller's state before it and the notifications it marked seen. */
export interface Delivery {
  previous: PreviousState;
  notes: DeliveredNotification[];
}

/** One item of context `updates`. */
export interface ContextUpdate {
  id: string;
  kind: string;
  source: "notification" | "context";
  content: string;
  threadId: string | null;
  messageId: string | null;
  createdAt: string;
}

/** `updates`: a brief change since the caller's last call (if it fits), then every delivered notification. */
export function contextUpdates(
  project: Pick<ContextProject, "brief_version" | "brief_updated_at">,
  delivered: Delivery,
  updatesLimit: number,
  now: Date,
): ContextUpdate[] {
  const updates: ContextUpdate[] = [];
  const briefChanged = delivered.previous.calls > 0 &&
    project.brief_version > delivered.previous.briefVersionSeen;
  if (briefChanged && updates.length < updatesLimit) {
    updates.push({
      id: `brief-v${project.brief_version}`,
      kind: "brief.updated",
      source: "context",
      content:
        `The brief changed from version ${delivered.previous.briefVersionSeen} to ${project.brief_version}`,
      threadId: null,
      messageId: null,
      createdAt: (project.brief_updated_at ?? now).toISOString(),
    });
  }
  // Every delivered notification is shown: the delivery left a slot for the brief item.
  for (const n of delivered.notes) {
    updates.push({
      id: n.id,
      kind: n.kind,
      source: "notification",
      content: n.content,
      threadId: n.thread_id,
      messageId: n.message_id,
      createdAt: n.created_at.toISOString(),
    });
  }
  return updates;
}

export function activeTicketView(row: ActiveTicketRow | undefined, prefix: string) {
  return row
    ? {
      id: row.id,
      ticketRef: `${prefix}-${row.number}`,
      title: row.title,
      status: row.status,
      expectedFiles: row.expected_files,
      acceptanceCriteria: row.acceptance_criteria ?? [],
      criteriaAcknowledged: row.criteria_acknowledged_at !== null,
      doneDefinition: row.done_definition,
      verificationCommand: row.verification_command,
      riskClass: row.risk_class,
      outOfScope: row.out_of_scope,
      branch: row.branch,
      subAgentName: row.sub_agent_name,
    }
    : null;
}
export type ActiveTicketView = ReturnType<typeof activeTicketView>;

export interface EnvHealth {
  status: string;
  notes: unknown[];
  reportedAt: string | null;
}

export function envHealthOf(env: ContextScalars["env"]): EnvHealth {
  return env?.env_health
    ? {
      status: String(env.env_health.status ?? "unknown"),
      notes: Array.isArray(env.env_health.notes) ? env.env_health.notes : [],
      reportedAt: new Date(env.created_at).toISOString(),
    }
    : { status: "unknown", notes: [], reportedAt: null };
}

/**
 * Live claims of others on the entries the active ticket expects to touch (in any letter case; a directory
 * or symbol claim counts where it overlaps: `entriesOverlap`).
 */
export function othersOnExpected(open: OpenClaimRow[], expected: string[]): OpenClaimRow[] {
  return open.filter((c) => !c.isSelf && expected.some((file) => entriesOverlap(file, c.file)));
}

/** CTX-020: `resume` adds riskyFiles, staleClaims, envBlockers and nextAction only when each is relevant. */
export function resumeOf(f: {
  activeTicket: ActiveTicketView;
  others: OpenClaimRow[];
  open: OpenClaimRow[];
  envHealth: EnvHealth;
  nextAction: NextAction;
  now: Date;
}) {
  const riskyFiles = f.others.map((c) => ({
    file: c.file,
    claimant: identityName(c.agentName, c.subAgentName),
    expiresAt: c.expiresAt,
  }));
  const staleClaims = f.open.filter((c) => c.isSelf && c.isStale).map((c) => ({
    file: c.file,
    claimId: c.claimId,
    claimedAt: c.claimedAt,
    ageMinutes: Math.floor((f.now.getTime() - Date.parse(c.claimedAt)) / 60_000),
  }));
  const envBlockers = f.envHealth.status === "broken"
    ? [{ status: f.envHealth.status, notes: f.envHealth.notes, reportedAt: f.envHealth.reportedAt }]
    : [];
  return {
    activeTicket: f.activeTicket,
    ...(riskyFiles.length > 0 ? { riskyFiles } : {}),
    ...(staleClaims.length > 0 ? { staleClaims } : {}),
    ...(envBlockers.length > 0 ? { envBlockers } : {}),
    ...(f.activeTicket ? { nextAction: f.nextAction } : {}),
  };
}

/** Ticket counts per status and the project phase they imply (CTX-021). */
export function boardOf(board: BoardCount[], settings: ProjectSettings, briefVersion: number) {
  const byStatus: Record<string, number> = {};
  let total = 0;
  for (const row of board) {
    byStatus[row.status] = row.n;
    total += row.n;
  }
  const columns = boardColumns(settings);
  const moduleCount = total - (byStatus.cancelled ?? 0);
  const closed = (byStatus.done ?? 0) + (byStatus.cancelled ?? 0);
  const inReview = REVIEW_STATUSES.reduce((sum, s) => sum + (byStatus[s] ?? 0), 0);
  const active = (byStatus.in_progress ?? 0) + (byStatus.claimed ?? 0) + (byStatus.blocked ?? 0);
  const { phase } = phaseOf(briefVersion > 0, { total, closed, active, review: inReview });
  return { byStatus, total, columns, moduleCount, inReview, phase };
}

/** The branch the caller last reported against the active ticket's branch; null when either is unknown. */
export function repoMismatchOf(report: Record<string, unknown> | null, activeTicket: ActiveTicketView) {
  const reportedBranch = typeof report?.git_branch === "string" ? report.git_branch : null;
  return activeTicket?.branch && reportedBranch
    ? {
      mismatch: reportedBranch.replace(/^refs\/heads\//, "") !== activeTicket.branch,
      expectedBranch: activeTicket.branch,
      reportedBranch,
      reportedRemote: typeof report?.git_remote === "string" ? report.git_remote : null,
    }
    : null;
}

/** One habit the compliance score grades: whether the identity keeps it now, and how to keep it. */
export interface ComplianceCheck {
  habit: string;
  kept: boolean;
  /** What raises the score when the habit is not kept. */
  fix: string;
}

type ComplianceInputs = {
  situation: Pick<CallerSituation, "holdsWork" | "minutesSilent" | "thresholdMinutes">;
  session: Pick<ContextSession, "report"> | undefined;
  activeTicket: Pick<NonNullable<ActiveTicketView>, "criteriaAcknowledged"> | null;
  hasTestedEntry: boolean;
  ownExpiredClaims: number;
  criteriaAckRequired: boolean;
};

/** The habits that apply to the caller now, each kept or not: what `complianceScoreOf` grades. */
export function complianceChecksOf(f: ComplianceInputs): ComplianceCheck[] {
  const { situation, activeTicket } = f;
  const checks: ComplianceCheck[] = [];
  if (situation.holdsWork) {
    checks.push({
      habit: `Reports within ${situation.thresholdMinutes} minutes while holding work`,
      kept: !(situation.minutesSilent !== null && situation.minutesSilent >= situation.thresholdMinutes),
      fix: "Write a ledger entry or a session report while holding a ticket or claim",
    });
  }
  if (f.session && activeTicket) {
    checks.push({
      habit: "The open session carries a report",
      kept: f.session.report !== null,
      fix: "Send a session report (PATCH /session) with the working state",
    });
  }
  if (activeTicket) {
    checks.push({
      habit: "The active ticket has a TESTED or VERIFIED entry",
      kept: f.hasTestedEntry,
      fix: "Run the ticket's verification command and record a TESTED ledger entry",
    });
  }
  // Graded on the identity's own claims: a sub-agent and its parent never share a score (SUB-024).
  checks.push({
    habit: "No expired claim left held",
    kept: f.ownExpiredClaims === 0,
    fix: "Renew the claims still needed and release the others",
  });
  if (activeTicket && f.criteriaAckRequired) {
    checks.push({
      habit: "The active ticket's acceptance criteria are acknowledged",
      kept: activeTicket.criteriaAcknowledged,
      fix: "Acknowledge the acceptance criteria of the active ticket",
    });
  }
  return checks;
}

/**
 * The share (0..100) of the habits that apply to the caller now that it keeps. The one grading rule:
 * GET /context (for the caller) and the dashboard's agents page (for every identity) both call it.
 */
export function complianceScoreOf(f: ComplianceInputs): number {
  const checks = complianceChecksOf(f);
  return Math.round((checks.filter((c) => c.kept).length / checks.length) * 100);
}

export function sessionView(session: ContextSession | undefined) {
  return session
    ? {
      id: session.id,
      status: session.status,
      startedAt: session.started_at.toISOString(),
      source: session.source,
      ticketId: session.ticket_id,
      planVersion: session.plan_version,
      plan: session.plan,
      reportedAt: session.report_at?.toISOString() ?? null,
    }
    : null;
}

export function connectedView(rows: ConnectedAgentRow[], selfId: string) {
  return rows.map((a) => ({
    agentId: a.id,
    name: a.name,
    role: a.role,
    platform: a.platform,
    subAgentName: a.sub_agent_name,
    sessionId: a.session_id,
    since: a.started_at.toISOString(),
    isSelf: a.id === selfId,
  }));
}

/** High when others hold files the active ticket expects, low on a collision elsewhere, else none. */
export function conflictRiskOf(others: OpenClaimRow[], collisions: Array<{ conflictingFiles: string[] }>) {
  const level: "high" | "low" | "none" = others.length > 0 ? "high" : collisions.length > 0 ? "low" : "none";
  return {
    level,
    files: [...new Set([...others.map((c) => c.file), ...collisions.flatMap((c) => c.conflictingFiles)])],
  };
}

/** The ledger page, then the active ticket's pinned entries it does not already show. */
export function withPinned<T extends { id: string }>(entries: T[], pinned: T[]): T[] {
  const all = [...entries];
  for (const entry of pinned) if (!all.some((e) => e.id === entry.id)) all.push(entry);
  return all;
}

export function agentView(
  agent: ContextScalars["agent"],
  actor: Pick<Actor, "role" | "subAgentName">,
) {
  return {
    id: agent.id,
    name: agent.name,
    platform: agent.platform,
    model: agent.model,
    company: agent.company,
    role: actor.role,
    subAgentName: actor.subAgentName,
    capabilities: agent.capabilities,
  };
}

/** Compact mode lists only the count and the tickets of the open claims. */
export function openClaimsView(open: OpenClaimRow[], compact: boolean) {
  return compact
    ? {
      count: open.length,
      ticketIds: [...new Set(open.map((c) => c.ticketId).filter((id): id is string => id !== null))],
    }
    : open;
}

export function reviewConfigOf(reviewMode: ReviewMode, reviewStatus: string) {
  return {
    mode: reviewMode,
    reviewStatus,
    criteriaAckRequired: criteriaAckRequired(reviewMode),
    testedEntryRequired: reviewMode !== "light",
    directDoneAllowed: reviewMode === "light",
  };
}

export function boardSummaryOf(summary: ReturnType<typeof boardOf>, unassignedReady: number) {
  const { total, byStatus, columns, inReview } = summary;
  return { total, byStatus, columns, inReview, unassignedReady };
}

/** Where the contract lives; the write payload schemas only when asked (`include=write_schemas`). */
export function schemaOf<W extends object>(publicUrl: string, writePayloads: W | null) {
  return {
    openapiUrl: `${publicUrl}/openapi.json`,
    docsUrl: `${publicUrl}/docs`,
    ...(writePayloads ? { writePayloads } : {}),
  };
}

export function pollingHintOf(publicUrl: string, cursor: string, intervalSeconds: number) {
  return {
    endpoint: "GET /events" as const,
    url: `${publicUrl}/api/events?since=${cursor}`,
    cursor,
    intervalSeconds,
  };
}
