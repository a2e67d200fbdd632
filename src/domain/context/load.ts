import { type Expression, sql } from "kysely";
import type { DbOrTrx } from "@/db/database.ts";
import { workqueueItems, workqueueQuery } from "@/domain/projects/overview.ts";
import type { ActorCtx } from "@/domain/core/context.ts";
import { staleTicketRows, staleTicketsQuery } from "@/domain/ledger/stale.ts";
import { issueRefreshedToken } from "@/domain/sessions/refresh.ts";
import { skillVersion } from "./agent-state.ts";
import { readLists, revived, type RowOf } from "./json-lists.ts";
import {
  claimsOf,
  claimsQuery,
  collisionsOf,
  collisionsQuery,
  grantedOf,
  grantedQuery,
  queueDueQuery,
} from "./claims.ts";
import { ledgerPageOf, ledgerPageQuery, pinnedOf, pinnedQuery } from "./ledger.ts";
import type { ContextLimits } from "./limits.ts";
import { CONNECTED_AGENTS_SHOWN, PENDING_REVIEWS_SHOWN, STALE_TICKETS_SHOWN } from "./params.ts";
import { reviewPage, yourReviewRows, yourReviewsQuery } from "./reviews.ts";
import { contextScalars } from "./scalars.ts";
import { callerSituationOnce } from "@/domain/core/silence.ts";
import { threadPage } from "./threads.ts";
import { countsQuery } from "@/domain/core/project-counts.ts";
import { incomingPendingQuery, releaseRequestView } from "@/domain/claims/release-request-rows.ts";

/** Statuses of a ticket an agent is working on (its active ticket, GET /context). */
export const ACTIVE_STATUSES = ["in_progress", "blocked", "changes_requested", "claimed"];
export const SESSION_OPEN: Array<"active" | "awaiting_input" | "error"> = [
  "active",
  "awaiting_input",
  "error",
];

export function loadProject(db: DbOrTrx, projectId: string) {
  return db.selectFrom("projects")
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
    .where("id", "=", projectId).executeTakeFirstOrThrow();
}
export type ContextProject = Awaited<ReturnType<typeof loadProject>>;

function sessionQuery(db: DbOrTrx, sessionId: string | null) {
  return db.selectFrom("sessions")
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
    // No session (an API key): no row.
    .where("id", "=", sessionId ?? "00000000-0000-0000-0000-000000000000").limit(sessionId ? 1 : 0);
}
export type ContextSession = RowOf<ReturnType<typeof sessionQuery>>;

/** The caller's active ticket: its own sub-agent's first, in progress before the rest, newest move first. */
function activeTicketQuery(db: DbOrTrx, actor: ActorCtx["actor"]) {
  return db.selectFrom("tickets")
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
    .orderBy("status_changed_at", "desc").limit(1);
}
export type ActiveTicketRow = RowOf<ReturnType<typeof activeTicketQuery>>;

/** Tickets per status, from the counts kept by trigger (migration 0028), not by counting every ticket. */
function boardCountsQuery(db: DbOrTrx, projectId: string) {
  return db.selectFrom(countsQuery(db, projectId, "ticket").as("c")).select(["c.key as status", "c.n"]);
}
export type BoardCount = RowOf<ReturnType<typeof boardCountsQuery>>;

function connectedAgentsQuery(db: DbOrTrx, projectId: string) {
  return db.selectFrom("sessions as s").innerJoin("agents as a", "a.id", "s.agent_id")
    .select([
      "a.id",
      "a.name",
      "a.role",
      "a.platform",
      "s.sub_agent_name",
      "s.id as session_id",
      "s.started_at",
    ])
    .where("s.project_id", "=", projectId).where("s.status", "in", SESSION_OPEN)
    .where("a.status", "=", "active").orderBy("s.started_at", "desc").limit(CONNECTED_AGENTS_SHOWN);
}
export type ConnectedAgentRow = RowOf<ReturnType<typeof connectedAgentsQuery>>;

/**
 * First round: every section that depends only on the caller and the project. The scalars and the
 * lists (session, active ticket, claims, ledger page, board counts, your reviews, workqueue, connected
 * agents, stale tickets) are ONE statement; in full mode the thread and review pages are read beside it. Compact mode shows only the ids of the threads and of the pending reviews (CTX-035,
 * CTX-036): it reads them in that statement and skips the two row queries (`threads` and `reviews` are
 * then null).
 */
export async function loadSections(
  ctx: ActorCtx,
  prefix: string,
  limits: ContextLimits,
  now: Date,
  compact = false,
) {
  const { actor, db } = ctx;
  const q = {
    session: sessionQuery(db, actor.sessionId),
    active: activeTicketQuery(db, actor),
    claims: claimsQuery(db, actor.projectId, actor.agentId, now),
    granted: grantedQuery(db, actor, now),
    queueDue: queueDueQuery(db, actor.projectId, now),
    mine: yourReviewsQuery(db, actor.projectId, actor.agentId),
    queue: workqueueQuery(db, actor.projectId, 20),
    board: boardCountsQuery(db, actor.projectId),
    connected: connectedAgentsQuery(db, actor.projectId),
    stale: staleTicketsQuery(db, actor.projectId, now, STALE_TICKETS_SHOWN),
    releaseRequests: incomingPendingQuery(db, actor, now),
    ...(limits.shownLedger > 0
      ? { ledger: ledgerPageQuery(db, actor.projectId, limits.filter, limits.shownLedger, null) }
      : {}),
  };
  const [scalars, threads, reviews, situation] = await Promise.all([
    contextScalars(db, {
      projectId: actor.projectId,
      agentId: actor.agentId,
      subAgentName: actor.subAgentName,
      threadStatus: limits.threadStatus,
      compact: compact ? { threadLimit: limits.threadLimit, reviewLimit: PENDING_REVIEWS_SHOWN } : undefined,
      lists: q,
    }),
    compact ? null : threadPage(db, actor.projectId, limits.threadStatus, limits.threadLimit, null),
    compact ? null : reviewPage(db, {
      projectId: actor.projectId,
      agentId: actor.agentId,
      order: "oldest",
      limit: PENDING_REVIEWS_SHOWN,
    }),
    callerSituationOnce(actor, db, {
      projectId: actor.projectId,
      agentId: actor.agentId,
      subAgentName: actor.subAgentName,
      sessionId: actor.sessionId,
      now,
    }).then((s) => ({ ...s })),
  ]);
  const l = scalars.lists;
  return {
    scalars,
    session: revived(q.session, l.session, ["started_at", "report_at"])[0],
    activeRow: revived(q.active, l.active, ["criteria_acknowledged_at"])[0],
    claims: claimsOf(revived(q.claims, l.claims), actor.agentId, now, actor.subAgentName),
    granted: grantedOf(revived(q.granted, l.granted)),
    queueDue: revived(q.queueDue, l.queueDue).length > 0,
    ledger: q.ledger
      ? ledgerPageOf(revived(q.ledger, l.ledger, ["created_at"]), limits.shownLedger)
      : { entries: [], nextSeq: null },
    threads,
    reviews,
    mine: yourReviewRows(revived(q.mine, l.mine), prefix),
    queue: workqueueItems(revived(q.queue, l.queue), prefix),
    board: revived(q.board, l.board),
    connected: revived(q.connected, l.connected, ["started_at"]),
    situation,
    stale: staleTicketRows(revived(q.stale, l.stale), now),
    releaseRequests: revived(q.releaseRequests, l.releaseRequests).map(releaseRequestView),
  };
}
export type ContextSections = Awaited<ReturnType<typeof loadSections>>;

/**
 * Second round: what depends on the active ticket and the caller's claims, in ONE statement (the pinned
 * CONTEXT entries only in compact mode, the collisions only when the caller has files).
 */
export async function loadTicketSections(
  ctx: ActorCtx,
  prefix: string,
  compact: boolean,
  shownLedger: number,
  first: Pick<ContextSections, "activeRow" | "claims">,
) {
  const { actor, db } = ctx;
  const { activeRow, claims } = first;
  const expected = activeRow?.expected_files ?? [];
  const ownFiles = claims.open.filter((c) => c.isSelf).map((c) => c.file);
  const collide = {
    projectId: actor.projectId,
    agentId: actor.agentId,
    prefix,
    files: [...new Set([...expected, ...ownFiles])],
  };
  const q = {
    pinned: compact && activeRow && shownLedger > 0 ? pinnedQuery(db, actor.projectId, activeRow.id) : null,
    collisions: collide.files.length > 0 ? collisionsQuery(db, collide) : null,
    tested: activeRow
      ? db.selectFrom("ledger_entries").select("id").where("ticket_id", "=", activeRow.id)
        .where("type", "in", ["TESTED", "VERIFIED"]).limit(1)
      : null,
  };
  const asked = Object.fromEntries(Object.entries(q).filter(([, query]) => query !== null)) as Record<
    string,
    Expression<unknown>
  >;
  const [lists, skill, refreshedToken] = await Promise.all([
    readLists(db, asked),
    skillVersion(),
    // A replacement token near the 7-day limit (meta.refreshedToken). Issued before the delivery that
    // follows: if the answer then fails, it is an unused replacement (revoked by the next refresh), not a loss.
    issueRefreshedToken(ctx),
  ]);
  return {
    pinned: q.pinned ? pinnedOf(revived(q.pinned, lists.pinned, ["created_at"])) : [],
    collisions: q.collisions ? collisionsOf(revived(q.collisions, lists.collisions), collide) : [],
    hasTestedEntry: (lists.tested ?? []).length > 0,
    skill,
    refreshedToken,
  };
}
export type TicketSections = Awaited<ReturnType<typeof loadTicketSections>>;
