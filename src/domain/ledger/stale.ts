import { sql } from "kysely";
import { sameSubAgent } from "@/domain/shared/sub-agent-sql.ts";
import type { DbOrTrx } from "@/db/database.ts";
import { CLAIM_GRACE_MS } from "@/domain/claims/policy.ts";
import type { ActorCtx } from "@/domain/shared/context.ts";
import { DomainError } from "@/domain/shared/errors.ts";

export const DEFAULT_LEDGER_STALE_MINUTES = 15;
/** In-progress tickets with no ledger entry for this long are listed as stale (spec: Limits). */
export const STALE_TICKET_MS = 30 * 60_000;

interface FreshnessRow {
  last_entry: Date | null;
  claim_since: Date | null;
  claim_count: number;
  ticket_since: Date | null;
  ticket_ref: string | null;
  settings: Record<string, unknown> | null;
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
  const graceStart = new Date(now.getTime() - CLAIM_GRACE_MS);
  const sub = actor.subAgentName;
  const result = await sql<FreshnessRow>`
    SELECT
      (SELECT max(l.created_at) FROM ledger_entries l
        WHERE l.agent_id = ${actor.agentId} AND ${sameSubAgent("l.sub_agent_name", sub)}
          AND l.source = 'agent') AS last_entry,
      c.claim_since, c.claim_count, t.ticket_since, t.ticket_ref,
      (SELECT p.settings FROM projects p WHERE p.id = ${actor.projectId}) AS settings
    FROM
      (SELECT min(cl.claimed_at) AS claim_since, count(*)::int AS claim_count FROM claims cl
        WHERE cl.agent_id = ${actor.agentId} AND ${sameSubAgent("cl.sub_agent_name", sub)}
          AND cl.released_at IS NULL AND cl.expires_at > ${now}
          AND NOT EXISTS (SELECT 1 FROM sessions s WHERE s.id = cl.session_id
            AND s.ended_at IS NOT NULL AND s.ended_at <= ${graceStart})) c,
      (SELECT min(tk.status_changed_at) AS ticket_since,
          min(pr.ticket_prefix || '-' || tk.number) AS ticket_ref
        FROM tickets tk JOIN projects pr ON pr.id = tk.project_id
        WHERE tk.assignee_agent_id = ${actor.agentId} AND tk.status = 'in_progress'
          AND ${sameSubAgent("tk.sub_agent_name", sub)}) t
  `.execute(ctx.db);
  const row = result.rows[0];
  if (!row || (row.claim_since === null && row.ticket_since === null)) return;

  const settings = typeof row.settings === "string" ? JSON.parse(row.settings) : row.settings;
  const configured = Number(settings?.ledgerStaleMinutes);
  const thresholdMinutes = Number.isFinite(configured) && configured > 0
    ? configured
    : DEFAULT_LEDGER_STALE_MINUTES;
  const workStart = [row.claim_since, row.ticket_since].filter((d): d is Date => d !== null)
    .map((d) => new Date(d)).reduce((a, b) => (a < b ? a : b));
  const lastEntry = row.last_entry ? new Date(row.last_entry) : null;
  const since = lastEntry && lastEntry > workStart ? lastEntry : workStart;
  const silentMs = now.getTime() - since.getTime();
  if (silentMs <= thresholdMinutes * 60_000) return;

  const minutesSilent = Math.floor(silentMs / 60_000);
  const reason = row.claim_since !== null && row.ticket_since !== null
    ? "active_claim_and_in_progress_ticket"
    : row.claim_since !== null
    ? "active_claim"
    : "in_progress_ticket";
  const holding = [
    row.claim_since !== null ? `${row.claim_count} active claim(s)` : null,
    row.ticket_since !== null ? `in-progress ticket ${row.ticket_ref}` : null,
  ].filter(Boolean).join(" and ");
  throw new DomainError(
    429,
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
    { "X-Ledger-Stale-Reason": reason, "Retry-After": "1" },
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
export async function staleTickets(
  db: DbOrTrx,
  projectId: string,
  now: Date,
  limit = 100,
): Promise<StaleTicket[]> {
  const cutoff = new Date(now.getTime() - STALE_TICKET_MS);
  const rows = await db.selectFrom("tickets as t")
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
    .orderBy("since").orderBy("t.id").limit(limit)
    .execute();
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
