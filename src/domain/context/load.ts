import { sql } from "kysely";
import type { DbOrTrx } from "@/db/database.ts";
import { workqueue } from "@/domain/projects/overview.ts";
import type { ActorCtx } from "@/domain/shared/context.ts";
import { staleTickets } from "@/domain/ledger/stale.ts";
import { issueRefreshedToken } from "@/domain/sessions/refresh.ts";
import { skillVersion } from "./agent-state.ts";
import { claimsOverview, collisionWarnings } from "./claims.ts";
import { ledgerPage, pinnedContextEntries } from "./ledger.ts";
import type { ContextLimits } from "./limits.ts";
import { PENDING_REVIEWS_SHOWN, STALE_TICKETS_SHOWN } from "./params.ts";
import { reviewPage, yourReviews } from "./reviews.ts";
import { contextScalars } from "./scalars.ts";
import { callerSituationOnce } from "./silence.ts";
import { threadPage } from "./threads.ts";

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

function loadSession(db: DbOrTrx, sessionId: string | null) {
  return sessionId
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
      .where("id", "=", sessionId).executeTakeFirst()
    : Promise.resolve(undefined);
}
export type ContextSession = NonNullable<Awaited<ReturnType<typeof loadSession>>>;

/** The caller's active ticket: its own sub-agent's first, in progress before the rest, newest move first. */
function loadActiveTicket(db: DbOrTrx, actor: ActorCtx["actor"]) {
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
    .orderBy("status_changed_at", "desc").limit(1).executeTakeFirst();
}
export type ActiveTicketRow = NonNullable<Awaited<ReturnType<typeof loadActiveTicket>>>;

function loadBoardCounts(db: DbOrTrx, projectId: string) {
  return db.selectFrom("tickets").select(["status", sql<number>`count(*)::int`.as("n")])
    .where("project_id", "=", projectId).groupBy("status").execute();
}
export type BoardCount = Awaited<ReturnType<typeof loadBoardCounts>>[number];

function loadConnectedAgents(db: DbOrTrx, projectId: string) {
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
    .where("a.status", "=", "active").orderBy("s.started_at", "desc").limit(50).execute();
}
export type ConnectedAgentRow = Awaited<ReturnType<typeof loadConnectedAgents>>[number];

/** First round: every section that depends only on the caller and the project, read concurrently. */
export async function loadSections(ctx: ActorCtx, prefix: string, limits: ContextLimits, now: Date) {
  const { actor, db } = ctx;
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
      threadStatus: limits.threadStatus,
    }),
    loadSession(db, actor.sessionId),
    loadActiveTicket(db, actor),
    claimsOverview(db, actor.projectId, actor.agentId, now, actor.subAgentName),
    ledgerPage(db, actor.projectId, limits.filter, limits.shownLedger, null),
    threadPage(db, actor.projectId, limits.threadStatus, limits.threadLimit, null),
    reviewPage(db, {
      projectId: actor.projectId,
      agentId: actor.agentId,
      order: "oldest",
      limit: PENDING_REVIEWS_SHOWN,
    }),
    yourReviews(db, actor.projectId, actor.agentId, prefix),
    workqueue(db, actor.projectId, prefix, 20),
    loadBoardCounts(db, actor.projectId),
    loadConnectedAgents(db, actor.projectId),
    callerSituationOnce(actor, db, {
      projectId: actor.projectId,
      agentId: actor.agentId,
      subAgentName: actor.subAgentName,
      sessionId: actor.sessionId,
      now,
    }).then((s) => ({ ...s })),
    staleTickets(db, actor.projectId, now, STALE_TICKETS_SHOWN),
  ]);
  return {
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
  };
}
export type ContextSections = Awaited<ReturnType<typeof loadSections>>;

/** Second round: what depends on the active ticket and the caller's claims, read concurrently. */
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
    // A replacement token near the 7-day limit (meta.refreshedToken). Issued before the delivery that
    // follows: if the answer then fails, it is an unused replacement (revoked by the next refresh), not a loss.
    issueRefreshedToken(ctx),
  ]);
  return { pinned, collisions, hasTestedEntry: tested !== undefined, skill, refreshedToken };
}
export type TicketSections = Awaited<ReturnType<typeof loadTicketSections>>;
