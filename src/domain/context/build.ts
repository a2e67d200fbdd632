import { encodeEventCursor } from "@/domain/events/cursor.ts";
import { EVENTS_POLL_INTERVAL_SECONDS } from "@/domain/events/feed.ts";
import type { ActorCtx } from "@/domain/core/context.ts";
import { reviewColumn } from "@/domain/core/workflow.ts";
import { criteriaAckRequired } from "@/domain/core/transitions.ts";
import { recordCallAndDeliver } from "./agent-state.ts";
import {
  activeTicketView,
  agentView,
  boardOf,
  boardSummaryOf,
  complianceScoreOf,
  conflictRiskOf,
  connectedView,
  type ContextUpdate,
  contextUpdates,
  envHealthOf,
  openClaimsView,
  othersOnExpected,
  pollingHintOf,
  repoMismatchOf,
  resumeOf,
  reviewConfigOf,
  schemaOf,
  sessionView,
  withPinned,
} from "./assemble.ts";
import { COMPACT_BRIEF_CHARS, contextBrief, FULL_BRIEF_CHARS } from "./brief.ts";
import { contextDocuments } from "./documents.ts";
import { guidanceFor, pendingActions } from "./guidance.ts";
import { type ContextLimits, contextLimits } from "./limits.ts";
import {
  type ContextProject,
  type ContextSections,
  loadProject,
  loadSections,
  loadTicketSections,
  SESSION_OPEN,
  type TicketSections,
} from "./load.ts";
import { ledgerCursor, pendingReviewsCursor } from "./more.ts";
import { nextActionFor } from "./next-action.ts";
import { checkPlatform, type ContextInput } from "./params.ts";
import { metaContextOf } from "@/domain/core/silence.ts";
import { writePayloadSchemas } from "./write-schemas.ts";
import { grantedOf, grantedQuery } from "./claims.ts";
import { settleQueue } from "@/domain/claims/queue.ts";
import { serializeContext } from "./delta.ts";

/** GET /context: everything an agent needs to resume, in one call. Returns `data` and `meta.context`. */
export async function getContext(ctx: ActorCtx, input: ContextInput) {
  checkPlatform(ctx, input);
  const { actor, db } = ctx;
  const now = ctx.clock.now();
  const project = await loadProject(db, actor.projectId);
  const limits = contextLimits(project.settings ?? {}, input);
  const prefix = project.ticket_prefix;
  const first = await loadSections(ctx, prefix, limits, now, input.compact);
  if (first.queueDue) {
    // The wait queue's due work (a blocking claim expired, a request expired), done by this request.
    await settleQueue(db, actor.projectId, now);
    first.granted = grantedOf(await grantedQuery(db, actor, now).execute());
  }
  const second = await loadTicketSections(ctx, prefix, input.compact, limits.shownLedger, first);

  // Last, and only once every read succeeded: the writes of this call (what the caller has now seen,
  // the notifications delivered), in one statement. Nothing after it can fail but building the body.
  const delivered = await recordCallAndDeliver(db, {
    agentId: actor.agentId,
    subAgentName: actor.subAgentName,
    projectId: actor.projectId,
    briefVersion: project.brief_version,
    skillVersion: second.skill,
    limit: limits.updatesLimit,
    now,
  });
  const updates = contextUpdates(project, delivered, limits.updatesLimit, now);
  const situation = first.situation;
  situation.unreadNotifications = Math.max(0, situation.unreadNotifications - delivered.notes.length);
  const data = contextBody(ctx, input, { project, limits, first, second, updates, delivered, now });
  // Serialized here, once, section by section: the answer's contextCursor fingerprints each section.
  const dataJson = serializeContext(ctx, input, data);
  return { data, dataJson, metaContext: metaContextOf(situation), refreshedToken: second.refreshedToken };
}

interface BodyParts {
  project: ContextProject;
  limits: ContextLimits;
  first: ContextSections;
  second: TicketSections;
  updates: ContextUpdate[];
  delivered: Awaited<ReturnType<typeof recordCallAndDeliver>>;
  now: Date;
}

/** The derived facts several sections share: the active ticket, the guidance, the board. No I/O. */
function contextFacts(actor: ActorCtx["actor"], p: BodyParts) {
  const { project, first, second } = p;
  const { scalars, session, claims, situation, board } = first;
  const activeTicket = activeTicketView(first.activeRow, project.ticket_prefix);
  const envHealth = envHealthOf(scalars.env);
  const ackRequired = criteriaAckRequired(project.review_mode);
  const actions = pendingActions({
    role: actor.role,
    situation,
    activeTicket: activeTicket
      ? {
        ticketRef: activeTicket.ticketRef,
        status: activeTicket.status,
        criteriaCount: activeTicket.acceptanceCriteria.length,
        criteriaAcknowledged: activeTicket.criteriaAcknowledged,
        hasTestedEntry: second.hasTestedEntry,
      }
      : null,
    criteriaAckRequired: ackRequired,
    expiringClaims: claims.expiring.length,
    expiredClaims: claims.expired.length,
    yourReviews: first.mine.length,
    sessionOpen: session !== undefined && (SESSION_OPEN as string[]).includes(session.status),
    sessionReported: session?.report !== null && session?.report !== undefined,
    envBroken: envHealth.status === "broken",
  });
  const nextAction = nextActionFor({
    active: activeTicket,
    pickable: scalars.pickable,
    briefVersion: project.brief_version,
    byStatus: Object.fromEntries(board.map((r) => [r.status, r.n])),
  });
  const repoReport = session?.report ?? scalars.latestReport;
  const agentSkill = typeof repoReport?.skill_hash === "string"
    ? repoReport.skill_hash
    : p.delivered.previous.skillVersionSeen;
  return {
    activeTicket,
    others: othersOnExpected(claims.open, first.activeRow?.expected_files ?? []),
    envHealth,
    ackRequired,
    actions,
    nextAction,
    summary: boardOf(board, project.settings ?? {}, project.brief_version),
    repoReport,
    agentSkill,
  };
}

/** The GET /context `data` (CTX-018), built from what was read; no I/O. */
function contextBody(ctx: ActorCtx, input: ContextInput, p: BodyParts) {
  const { actor, publicUrl } = ctx;
  const { project, first, second } = p;
  const { scalars, session, claims, situation, queue, threads, reviews, ledger } = first;
  const f = contextFacts(actor, p);
  const compact = input.compact;
  const ids = scalars.compact;
  const brief = contextBrief(
    project.brief_version,
    project.brief ?? {},
    compact ? COMPACT_BRIEF_CHARS : FULL_BRIEF_CHARS,
    publicUrl,
  );
  const { summary, activeTicket } = f;
  const cursor = encodeEventCursor(actor.projectId, scalars.head);
  const pendingReviewsNext = reviews ? reviews.next : ids?.reviewNext ?? null;
  return {
    resume: resumeOf({ ...f, open: claims.open, now: p.now }),
    agent: agentView(scalars.agent, actor),
    project: {
      id: project.id,
      name: project.name,
      phase: summary.phase,
      moduleCount: summary.moduleCount,
      modulesDone: scalars.modulesDone,
    },
    brief: brief.brief,
    briefTruncated: brief.briefTruncated,
    briefFetchUrl: brief.briefFetchUrl,
    openClaims: openClaimsView(claims.open, compact),
    expiredClaims: claims.expired,
    expiringClaims: claims.expiring,
    conflictRisk: conflictRiskOf(f.others, second.collisions),
    collisionWarnings: second.collisions,
    ledger: withPinned(ledger.entries, second.pinned),
    ledgerCursor: ledger.nextSeq !== null ? ledgerCursor(p.limits.filter, ledger.nextSeq) : null,
    threads: compact || !threads ? { count: scalars.threadCount, ids: ids?.threadIds ?? [] } : threads.rows,
    updates: p.updates,
    pendingActions: f.actions,
    hasBlockingActions: f.actions.some((a) => a.blocking),
    yourReviews: first.mine,
    pendingReviews: compact || !reviews
      ? { count: scalars.reviewTotal, ticketIds: ids?.reviewIds ?? [] }
      : reviews.rows,
    pendingReviewsTotal: scalars.reviewTotal,
    pendingReviewsCursor: pendingReviewsNext ? pendingReviewsCursor(pendingReviewsNext) : null,
    workqueue: queue,
    boardSummary: boardSummaryOf(summary, queue.length),
    activeSession: sessionView(session),
    connectedAgents: connectedView(first.connected, actor.agentId),
    reviewConfig: reviewConfigOf(project.review_mode, reviewColumn(project.settings ?? {}) ?? "review"),
    guidance: guidanceFor(actor.role, situation.thresholdMinutes, activeTicket !== null),
    nextAction: f.nextAction,
    isFirstSession: scalars.sessions <= 1,
    complianceScore: complianceScoreOf({
      situation,
      session,
      activeTicket,
      hasTestedEntry: second.hasTestedEntry,
      ownExpiredClaims: claims.ownExpired,
      criteriaAckRequired: f.ackRequired,
    }),
    envHealth: f.envHealth,
    repoMismatch: repoMismatchOf(f.repoReport, activeTicket),
    // (extension, issue 24) Only while a claim granted from your wait queue lives.
    ...(first.granted.length > 0 ? { claims: { granted: first.granted } } : {}),
    skillVersion: second.skill,
    skillStale: f.agentSkill !== null && f.agentSkill !== second.skill,
    schema: schemaOf(publicUrl, input.include.includes("write_schemas") ? writePayloadSchemas() : null),
    pollingHint: pollingHintOf(publicUrl, cursor, EVENTS_POLL_INTERVAL_SECONDS),
    ...(first.stale.length > 0 ? { staleTickets: first.stale } : {}),
    ...(first.releaseRequests.length > 0 ? { releaseRequests: first.releaseRequests } : {}),
    documents: contextDocuments(project.brief ?? {}, compact, publicUrl),
    mcpUrl: `${publicUrl}/mcp`,
  };
}
