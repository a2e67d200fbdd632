import { type RawBuilder, sql } from "kysely";
import { sameSubAgent } from "@/domain/core/sub-agent-sql.ts";
import type { DbOrTrx } from "@/db/database.ts";
import { CLAIM_GRACE_MS } from "@/domain/core/claim-policy.ts";
import type { ActorCtx } from "@/domain/core/context.ts";
import { DomainError } from "@/domain/core/errors.ts";
import { DEFAULT_LEDGER_STALE_MINUTES } from "@/domain/core/silence.ts";

export { DEFAULT_LEDGER_STALE_MINUTES };
/** In-progress tickets with no ledger entry for this long are listed as stale (spec: Limits). */
export const STALE_TICKET_MS = 30 * 60_000;

/** The columns of `freshnessColumns`, by their names without the prefix. */
export interface FreshnessRow {
  last_entry: Date | string | null;
  claim_since: Date | string | null;
  claim_count: number;
  ticket_since: Date | string | null;
  ticket_ref: string | null;
  settings: Record<string, unknown> | string | null;
}

/**
 * What the LEDGER_STALE gate reads, as scalar subqueries named `<prefix><column>`: `agentId` and
 * `projectId` are parameters or column references (the admission statement reads them from the token
 * row). Each subquery is an index lookup.
 */
export function freshnessColumns(
  agentId: RawBuilder<unknown> | string,
  projectId: RawBuilder<unknown> | string,
  sub: string | null,
  now: Date,
  prefix = "",
): RawBuilder<unknown> {
  const graceStart = new Date(now.getTime() - CLAIM_GRACE_MS);
  const as = (name: string) => sql.ref(`${prefix}${name}`);
  const liveClaims = sql`FROM claims cl
        WHERE cl.agent_id = ${agentId} AND ${sameSubAgent("cl.sub_agent_name", sub)}
          AND cl.released_at IS NULL AND cl.expires_at > ${now}
          AND NOT EXISTS (SELECT 1 FROM sessions s WHERE s.id = cl.session_id
            AND s.ended_at IS NOT NULL AND s.ended_at <= ${graceStart})`;
  const ownTickets = sql`FROM tickets tk JOIN projects pr ON pr.id = tk.project_id
        WHERE tk.assignee_agent_id = ${agentId} AND tk.status = 'in_progress'
          AND ${sameSubAgent("tk.sub_agent_name", sub)}`;
  return sql`(SELECT max(l.created_at) FROM ledger_entries l
        WHERE l.agent_id = ${agentId} AND ${sameSubAgent("l.sub_agent_name", sub)}
          AND l.source = 'agent') AS ${as("last_entry")},
      (SELECT min(cl.claimed_at) ${liveClaims}) AS ${as("claim_since")},
      (SELECT count(*)::int ${liveClaims}) AS ${as("claim_count")},
      (SELECT min(tk.status_changed_at) ${ownTickets}) AS ${as("ticket_since")},
      (SELECT min(pr.ticket_prefix || '-' || tk.number) ${ownTickets}) AS ${as("ticket_ref")},
      (SELECT p.settings FROM projects p WHERE p.id = ${projectId}) AS ${as("settings")}`;
}

/**
 * LEDGER_STALE gate, run before every mutating call except the ledger writes (POST /ledger, POST
 * /ledger/batch) and POST /release. It applies when the caller (agent, or sub-agent identity) holds an
 * active claim or an in-progress ticket and its silence exceeds the project's `ledgerStaleMinutes`
 * (default 15). Silence counts from its latest own ledger entry (`source: agent`; service-written
 * entries do not count), but never from before the current work began (the oldest active claim or the
 * ticket's move to in_progress), so starting work is never refused at once. One indexed query.
 */
export async function assertLedgerFresh(ctx: ActorCtx): Promise<void> {
  const { actor } = ctx;
  const now = ctx.clock.now();
  const columns = freshnessColumns(actor.agentId, actor.projectId, actor.subAgentName, now);
  const result = await sql<FreshnessRow>`SELECT ${columns}`.execute(ctx.db);
  judgeFreshness(result.rows[0], now);
}

/** Throws LEDGER_STALE when the columns of `freshnessColumns` (named with `prefix`) say so. */
export function judgeFreshness(raw: unknown, now: Date, prefix = ""): void {
  const all = (raw ?? {}) as Record<string, unknown>;
  const row = Object.fromEntries(
    Object.entries(all).filter(([k]) => k.startsWith(prefix)).map(([k, v]) => [k.slice(prefix.length), v]),
  ) as Partial<FreshnessRow>;
  const claimSince = row.claim_since ?? null;
  const ticketSince = row.ticket_since ?? null;
  if (claimSince === null && ticketSince === null) return;

  const settings = typeof row.settings === "string" ? JSON.parse(row.settings) : row.settings;
  const configured = Number(settings?.ledgerStaleMinutes);
  const thresholdMinutes = Number.isFinite(configured) && configured > 0
    ? configured
    : DEFAULT_LEDGER_STALE_MINUTES;
  const workStart = [claimSince, ticketSince].filter((d): d is Date | string => d !== null)
    .map((d) => new Date(d)).reduce((a, b) => (a < b ? a : b));
  const lastEntry = row.last_entry ? new Date(row.last_entry) : null;
  const since = lastEntry && lastEntry > workStart ? lastEntry : workStart;
  const silentMs = now.getTime() - since.getTime();
  if (silentMs <= thresholdMinutes * 60_000) return;

  const minutesSilent = Math.floor(silentMs / 60_000);
  const reason = claimSince !== null && ticketSince !== null
    ? "active_claim_and_in_progress_ticket"
    : claimSince !== null
    ? "active_claim"
    : "in_progress_ticket";
  const holding = [
    claimSince !== null ? `${row.claim_count} active claim(s)` : null,
    ticketSince !== null ? `in-progress ticket ${row.ticket_ref}` : null,
  ].filter(Boolean).join(" and ");
  throw new DomainError(
    "limited",
    "LEDGER_STALE",
    `You hold ${holding} and have not written a ledger entry for ${minutesSilent} minutes ` +
      `(threshold ${thresholdMinutes}): log your progress (POST /ledger) before anything else`,
    {
      minutesSilent,
      thresholdMinutes,
      reason,
      lastEntryAt: lastEntry ? lastEntry.toISOString() : null,
      suggestedLogEntry: {
        type: "PROGRESS",
        ...(row.ticket_ref ? { ticketId: row.ticket_ref } : {}),
        payload: {
          did: "<what you did since your last entry>",
          next: "<what you will do next>",
          blockers: [],
        },
      },
    },
    { staleReason: reason, retryAfterSeconds: 1 },
  );
}

export interface StaleTicket {
  ticketId: string;
  ticketRef: string;
  title: string;
  assigneeAgentId: string | null;
  subAgentName: string | null;
  lastEntryAt: string | null;
  minutesSilent: number;
}

/**
 * In-progress tickets of the project with no ledger entry (any source) for 30 minutes, counted from
 * the latest entry on the ticket or, when none is newer, from the ticket's move to in_progress;
 * longest silent first, at most `limit`. Reads the board index and `tickets.last_ledger_at` (kept by a
 * trigger), so it stays cheap however many tickets are in progress.
 */
export function staleTicketsQuery(db: DbOrTrx, projectId: string, now: Date, limit = 100) {
  const cutoff = new Date(now.getTime() - STALE_TICKET_MS);
  return db.selectFrom("tickets as t")
    .innerJoin("projects as p", "p.id", "t.project_id")
    .select([
      "t.id",
      "t.number",
      "t.title",
      "t.assignee_agent_id",
      "t.sub_agent_name",
      "t.last_ledger_at",
      "p.ticket_prefix",
      sql<Date>`greatest(t.status_changed_at, coalesce(t.last_ledger_at, t.status_changed_at))`.as("since"),
    ])
    .where("t.project_id", "=", projectId)
    .where("t.status", "=", "in_progress")
    .where(
      sql<
        boolean
      >`greatest(t.status_changed_at, coalesce(t.last_ledger_at, t.status_changed_at)) <= ${cutoff}`,
    )
    .orderBy("since").orderBy("t.id").limit(limit);
}

/** The rows of `staleTicketsQuery` (timestamps as Date, or as text when read through JSON). */
export function staleTicketRows(
  rows: Array<{
    id: string;
    number: number;
    title: string;
    assignee_agent_id: string | null;
    sub_agent_name: string | null;
    last_ledger_at: Date | string | null;
    ticket_prefix: string;
    since: Date | string;
  }>,
  now: Date,
): StaleTicket[] {
  return rows.map((r) => ({
    ticketId: r.id,
    ticketRef: `${r.ticket_prefix}-${r.number}`,
    title: r.title,
    assigneeAgentId: r.assignee_agent_id,
    subAgentName: r.sub_agent_name,
    lastEntryAt: r.last_ledger_at ? new Date(r.last_ledger_at).toISOString() : null,
    minutesSilent: Math.floor((now.getTime() - new Date(r.since).getTime()) / 60_000),
  }));
}

export async function staleTickets(
  db: DbOrTrx,
  projectId: string,
  now: Date,
  limit = 100,
): Promise<StaleTicket[]> {
  return staleTicketRows(await staleTicketsQuery(db, projectId, now, limit).execute(), now);
}
