import { sql } from "kysely";
import type { ProjectSettings } from "@/db/tables/foundation.ts";
import { encodeEventCursor } from "@/domain/events/cursor.ts";
import { EVENTS_POLL_INTERVAL_SECONDS } from "@/domain/events/feed.ts";
import { workqueue } from "@/domain/projects/overview.ts";
import type { ActorCtx } from "@/domain/shared/context.ts";
import { boardColumns, REVIEW_STATUSES, reviewColumn } from "@/domain/tickets/workflow.ts";
import { recordCallAndDeliver, skillVersion } from "./agent-state.ts";
import { COMPACT_BRIEF_CHARS, contextBrief, FULL_BRIEF_CHARS } from "./brief.ts";
import { claimsOverview, collisionWarnings } from "./claims.ts";
import { contextDocuments } from "./documents.ts";
import { guidanceFor, pendingActions } from "./guidance.ts";
import { type LedgerFilter, ledgerPage, pinnedContextEntries } from "./ledger.ts";
import { ledgerCursor, pendingReviewsCursor } from "./more.ts";
import { nextActionFor } from "./next-action.ts";
import {
  ceilings,
  checkPlatform,
  COMPACT_LEDGER_ENTRIES,
  type ContextInput,
  DEFAULT_LEDGER_LIMIT,
  DEFAULT_UPDATES_LIMIT,
  outOfCeiling,
  PENDING_REVIEWS_SHOWN,
  STALE_TICKETS_SHOWN,
} from "./params.ts";
import { reviewPage, yourReviews } from "./reviews.ts";
import { contextScalars } from "./scalars.ts";
import { staleTickets } from "@/domain/ledger/stale.ts";
import { issueRefreshedToken } from "@/domain/sessions/refresh.ts";
import { callerSituationOnce, metaContextOf } from "./silence.ts";
import { threadPage, type ThreadStatusFilter } from "./threads.ts";
import { writePayloadSchemas } from "./write-schemas.ts";

const ACTIVE_STATUSES = ["in_progress", "blocked", "changes_requested", "claimed"];
const SESSION_OPEN: Array<"active" | "awaiting_input" | "error"> = ["active", "awaiting_input", "error"];

/** GET /context: everything an agent needs to resume, in one call. Returns `data` and `meta.context`. */
export async function getContext(ctx: ActorCtx, input: ContextInput) {
  checkPlatform(ctx, input);
  const { actor, db } = ctx;
  const now = ctx.clock.now();
  const project = await db.selectFrom("projects")
    .select([
      "id",
      "name",
      "ticket_prefix",
      "settings",
      "review_mode",
      "brief",
      "brief_version",
      "brief_updated_at",
    ])
    .where("id", "=", actor.projectId).executeTakeFirstOrThrow();
  const settings: ProjectSettings = project.settings ?? {};
  const ceiling = ceilings(settings);
  const ledgerLimit = input.ledgerLimit ?? Math.min(DEFAULT_LEDGER_LIMIT, ceiling.ledger);
  if (ledgerLimit > ceiling.ledger) throw outOfCeiling("ledger_limit", ledgerLimit, 0, ceiling.ledger);
  const threadLimit = input.threadLimit ?? ceiling.threads;
  if (threadLimit > ceiling.threads || threadLimit < 1) {
    throw outOfCeiling("thread_limit", threadLimit, 1, ceiling.threads);
  }
  const threadStatus: ThreadStatusFilter =
    input.threadStatus === "open" || input.threadStatus === "closed" || input.threadStatus === "all"
      ? input.threadStatus
      : "open";
  const updatesLimit = input.updatesLimit ?? DEFAULT_UPDATES_LIMIT;
  const filter: LedgerFilter = {
    source: input.ledgerSource ?? (input.includeSystemLedger ? "all" : "agent"),
    includeAudit: input.includeAudit,
    ...(input.ledgerTypes?.length ? { types: input.ledgerTypes } : {}),
    ...(input.ledgerSessionId ? { sessionId: input.ledgerSessionId } : {}),
    ...(input.ledgerFileRef ? { fileRef: input.ledgerFileRef } : {}),
    ...(input.ledgerSubAgent ? { subAgent: input.ledgerSubAgent } : {}),
    ...(input.since ? { since: new Date(input.since).toISOString() } : {}),
  };
  const prefix = project.ticket_prefix;
  const compact = input.compact;
  const shownLedger = compact ? Math.min(ledgerLimit, COMPACT_LEDGER_ENTRIES) : ledgerLimit;

  const briefPart = contextBrief(
    project.brief_version,
    project.brief ?? {},
    compact ? COMPACT_BRIEF_CHARS : FULL_BRIEF_CHARS,
    ctx.publicUrl,
  );
  const [
    scalars,
    session,
    activeRow,
    claims,
    ledger,
    threads,
    reviews,
    mine,
    queue,
    board,
    connected,
    situation,
    stale,
  ] = await Promise.all([
    contextScalars(db, {
      projectId: actor.projectId,
      agentId: actor.agentId,
      subAgentName: actor.subAgentName,
      threadStatus,
    }),
    actor.sessionId
      ? db.selectFrom("sessions")
        .select([
          "id",
          "status",
          "started_at",
          "ticket_id",
          "plan",
          "plan_version",
          "source",
          "report",
          "report_at",
        ])
        .where("id", "=", actor.sessionId).executeTakeFirst()
      : Promise.resolve(undefined),
    db.selectFrom("tickets")
      .select([
        "id",
        "number",
        "title",
        "status",
        "expected_files",
        "acceptance_criteria",
        "criteria_acknowledged_at",
        "done_definition",
        "verification_command",
        "risk_class",
        "branch",
        "out_of_scope",
        "sub_agent_name",
      ])
      .where("assignee_agent_id", "=", actor.agentId).where("project_id", "=", actor.projectId)
      .where("status", "in", ACTIVE_STATUSES)
      .orderBy(sql`(sub_agent_name is not distinct from ${actor.subAgentName})`, "desc")
      .orderBy(sql`(status = 'in_progress')`, "desc")
      .orderBy("status_changed_at", "desc").limit(1).executeTakeFirst(),
    claimsOverview(db, actor.projectId, actor.agentId, now, actor.subAgentName),
    ledgerPage(db, actor.projectId, filter, shownLedger, null),
    threadPage(db, actor.projectId, threadStatus, threadLimit, null),
    reviewPage(db, {
      projectId: actor.projectId,
      agentId: actor.agentId,
      order: "oldest",
      limit: PENDING_REVIEWS_SHOWN,
    }),
    yourReviews(db, actor.projectId, actor.agentId, prefix),
    workqueue(db, actor.projectId, prefix, 20),
    db.selectFrom("tickets").select(["status", sql<number>`count(*)::int`.as("n")])
      .where("project_id", "=", actor.projectId).groupBy("status").execute(),
    db.selectFrom("sessions as s").innerJoin("agents as a", "a.id", "s.agent_id")
      .select([
        "a.id",
        "a.name",
        "a.role",
        "a.platform",
        "s.sub_agent_name",
        "s.id as session_id",
        "s.started_at",
      ])
      .where("s.project_id", "=", actor.projectId).where("s.status", "in", SESSION_OPEN)
      .where("a.status", "=", "active").orderBy("s.started_at", "desc").limit(50).execute(),
    callerSituationOnce(actor, db, {
      projectId: actor.projectId,
      agentId: actor.agentId,
      subAgentName: actor.subAgentName,
      sessionId: actor.sessionId,
      now,
    }).then((s) => ({ ...s })),
    staleTickets(db, actor.projectId, now, STALE_TICKETS_SHOWN),
  ]);
  const { agent, reviewTotal } = scalars;
  const envRow = scalars.env;
  const cursor = encodeEventCursor(actor.projectId, scalars.head);

  // Second round: what depends on the active ticket.
  const expected = activeRow?.expected_files ?? [];
  const ownFiles = claims.open.filter((c) => c.isSelf).map((c) => c.file);
  const [pinned, collisions, tested, skill, refreshedToken] = await Promise.all([
    compact && activeRow && shownLedger > 0
      ? pinnedContextEntries(db, actor.projectId, activeRow.id)
      : Promise.resolve([]),
    collisionWarnings(db, {
      projectId: actor.projectId,
      agentId: actor.agentId,
      prefix,
      files: [...new Set([...expected, ...ownFiles])],
    }),
    activeRow
      ? db.selectFrom("ledger_entries").select("id").where("ticket_id", "=", activeRow.id)
        .where("type", "in", ["TESTED", "VERIFIED"]).limit(1).executeTakeFirst()
      : Promise.resolve(undefined),
    skillVersion(),
    // A replacement token near the 7-day limit (meta.refreshedToken). Issued before the delivery below:
    // if the answer then fails, it is an unused replacement (revoked by the next refresh), not a loss.
    issueRefreshedToken(ctx),
  ]);

  // Last, and only once every read succeeded: the writes of this call (what the caller has now seen,
  // the notifications delivered), in one statement. Nothing after it can fail but building the body.
  const delivered = await recordCallAndDeliver(db, {
    agentId: actor.agentId,
    subAgentName: actor.subAgentName,
    projectId: actor.projectId,
    briefVersion: project.brief_version,
    skillVersion: skill,
    limit: updatesLimit,
    now,
  });

  const updates: Array<Record<string, unknown>> = [];
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
  // Every delivered notification is shown: the statement above left a slot for the brief item.
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
  situation.unreadNotifications = Math.max(0, situation.unreadNotifications - delivered.notes.length);

  // Shapes.
  const criteria = activeRow?.acceptance_criteria ?? [];
  const activeTicket = activeRow
    ? {
      id: activeRow.id,
      ticketRef: `${prefix}-${activeRow.number}`,
      title: activeRow.title,
      status: activeRow.status,
      expectedFiles: activeRow.expected_files,
      acceptanceCriteria: criteria,
      criteriaAcknowledged: activeRow.criteria_acknowledged_at !== null,
      doneDefinition: activeRow.done_definition,
      verificationCommand: activeRow.verification_command,
      riskClass: activeRow.risk_class,
      outOfScope: activeRow.out_of_scope,
      branch: activeRow.branch,
      subAgentName: activeRow.sub_agent_name,
    }
    : null;
  const othersOnExpected = claims.open.filter((c) => !c.isSelf && expected.includes(c.file));
  const riskyFiles = othersOnExpected.map((c) => ({
    file: c.file,
    claimant: c.subAgentName ? `${c.agentName}/${c.subAgentName}` : c.agentName,
    expiresAt: c.expiresAt,
  }));
  const staleClaims = claims.open.filter((c) => c.isSelf && c.isStale).map((c) => ({
    file: c.file,
    claimId: c.claimId,
    claimedAt: c.claimedAt,
    ageMinutes: Math.floor((now.getTime() - Date.parse(c.claimedAt)) / 60_000),
  }));
  const envHealth = envRow?.env_health
    ? {
      status: String(envRow.env_health.status ?? "unknown"),
      notes: Array.isArray(envRow.env_health.notes) ? envRow.env_health.notes : [],
      reportedAt: new Date(envRow.created_at).toISOString(),
    }
    : { status: "unknown", notes: [], reportedAt: null };
  const envBroken = envHealth.status === "broken";
  const reviewMode = project.review_mode;
  const criteriaAckRequired = ["medium", "strict", "auto"].includes(reviewMode);
  const actions = pendingActions({
    role: actor.role,
    situation,
    activeTicket: activeTicket
      ? {
        ticketRef: activeTicket.ticketRef,
        status: activeTicket.status,
        criteriaCount: criteria.length,
        criteriaAcknowledged: activeTicket.criteriaAcknowledged,
        hasTestedEntry: tested !== undefined,
      }
      : null,
    criteriaAckRequired,
    expiringClaims: claims.expiring.length,
    expiredClaims: claims.expired.length,
    yourReviews: mine.length,
    sessionOpen: session !== undefined && (SESSION_OPEN as string[]).includes(session.status),
    sessionReported: session?.report !== null && session?.report !== undefined,
    envBroken,
  });
  const nextAction = nextActionFor({
    active: activeTicket,
    pickable: scalars.pickable,
    briefVersion: project.brief_version,
    byStatus: Object.fromEntries(board.map((r) => [r.status, r.n])),
  });
  const resume: Record<string, unknown> = { activeTicket };
  if (riskyFiles.length > 0) resume.riskyFiles = riskyFiles;
  if (staleClaims.length > 0) resume.staleClaims = staleClaims;
  if (envBroken) {
    resume.envBlockers = [{
      status: envHealth.status,
      notes: envHealth.notes,
      reportedAt: envHealth.reportedAt,
    }];
  }
  if (activeTicket) resume.nextAction = nextAction;

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
  const phase = project.brief_version === 0 && total === 0
    ? "setup"
    : total === 0
    ? "planning"
    : closed === total
    ? "complete"
    : active > 0
    ? "building"
    : inReview > 0
    ? "reviewing"
    : "planning";

  const repoReport = session?.report ?? scalars.latestReport;
  const reportedBranch = typeof repoReport?.git_branch === "string" ? repoReport.git_branch : null;
  const repoMismatch = activeTicket?.branch && reportedBranch
    ? {
      mismatch: reportedBranch.replace(/^refs\/heads\//, "") !== activeTicket.branch,
      expectedBranch: activeTicket.branch,
      reportedBranch,
      reportedRemote: typeof repoReport?.git_remote === "string" ? repoReport.git_remote : null,
    }
    : null;
  const agentSkill = typeof repoReport?.skill_hash === "string"
    ? repoReport.skill_hash
    : delivered.previous.skillVersionSeen;

  const checks: boolean[] = [];
  if (situation.holdsWork) {
    checks.push(!(situation.minutesSilent !== null && situation.minutesSilent >= situation.thresholdMinutes));
  }
  if (session && activeTicket) checks.push(session.report !== null);
  if (activeTicket) checks.push(tested !== undefined);
  // Graded on the identity's own claims: a sub-agent and its parent never share a score (SUB-024).
  checks.push(claims.ownExpired === 0);
  if (activeTicket && criteriaAckRequired) checks.push(activeTicket.criteriaAcknowledged);
  const complianceScore = Math.round((checks.filter(Boolean).length / checks.length) * 100);

  const openClaims = compact
    ? {
      count: claims.open.length,
      ticketIds: [...new Set(claims.open.map((c) => c.ticketId).filter((id): id is string => id !== null))],
    }
    : claims.open;
  const ledgerEntries = [...ledger.entries];
  for (const entry of pinned) if (!ledgerEntries.some((e) => e.id === entry.id)) ledgerEntries.push(entry);

  const data: Record<string, unknown> = {
    resume,
    agent: {
      id: agent.id,
      name: agent.name,
      platform: agent.platform,
      model: agent.model,
      company: agent.company,
      role: actor.role,
      subAgentName: actor.subAgentName,
      capabilities: agent.capabilities,
    },
    project: { id: project.id, name: project.name, phase, moduleCount, modulesDone: scalars.modulesDone },
    brief: briefPart.brief,
    briefTruncated: briefPart.briefTruncated,
    briefFetchUrl: briefPart.briefFetchUrl,
    openClaims,
    expiredClaims: claims.expired,
    expiringClaims: claims.expiring,
    conflictRisk: {
      level: othersOnExpected.length > 0 ? "high" : collisions.length > 0 ? "low" : "none",
      files: [
        ...new Set([
          ...othersOnExpected.map((c) => c.file),
          ...collisions.flatMap((c) => c.conflictingFiles),
        ]),
      ],
    },
    collisionWarnings: collisions,
    ledger: ledgerEntries,
    ledgerCursor: ledger.nextSeq !== null ? ledgerCursor(filter, ledger.nextSeq) : null,
    threads: compact ? { count: scalars.threadCount, ids: threads.rows.map((t) => t.id) } : threads.rows,
    updates,
    pendingActions: actions,
    hasBlockingActions: actions.some((a) => a.blocking),
    yourReviews: mine,
    pendingReviews: compact
      ? { count: reviewTotal, ticketIds: reviews.rows.map((r) => r.ticketId) }
      : reviews.rows,
    pendingReviewsTotal: reviewTotal,
    pendingReviewsCursor: reviews.next ? pendingReviewsCursor(reviews.next) : null,
    workqueue: queue,
    boardSummary: { total, byStatus, columns, inReview, unassignedReady: queue.length },
    activeSession: session
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
      : null,
    connectedAgents: connected.map((a) => ({
      agentId: a.id,
      name: a.name,
      role: a.role,
      platform: a.platform,
      subAgentName: a.sub_agent_name,
      sessionId: a.session_id,
      since: a.started_at.toISOString(),
      isSelf: a.id === actor.agentId,
    })),
    reviewConfig: {
      mode: reviewMode,
      reviewStatus: reviewColumn(settings) ?? "review",
      criteriaAckRequired,
      testedEntryRequired: reviewMode !== "light",
      directDoneAllowed: reviewMode === "light",
    },
    guidance: guidanceFor(actor.role, situation.thresholdMinutes, activeTicket !== null),
    nextAction,
    isFirstSession: scalars.sessions <= 1,
    complianceScore,
    envHealth,
    repoMismatch,
    skillVersion: skill,
    skillStale: agentSkill !== null && agentSkill !== skill,
    schema: {
      openapiUrl: `${ctx.publicUrl}/openapi.json`,
      docsUrl: `${ctx.publicUrl}/docs`,
      ...(input.include.includes("write_schemas") ? { writePayloads: writePayloadSchemas() } : {}),
    },
    pollingHint: {
      endpoint: "GET /events",
      url: `${ctx.publicUrl}/api/events?since=${cursor}`,
      cursor,
      intervalSeconds: EVENTS_POLL_INTERVAL_SECONDS,
    },
    ...(stale.length > 0 ? { staleTickets: stale } : {}),
    documents: contextDocuments(project.brief ?? {}, compact, ctx.publicUrl),
    mcpUrl: `${ctx.publicUrl}/mcp`,
  };
  return { data, metaContext: metaContextOf(situation), refreshedToken };
}
