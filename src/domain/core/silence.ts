import { type RawBuilder, sql } from "kysely";
import { sameSubAgent } from "@/domain/core/sub-agent-sql.ts";
import type { DbOrTrx } from "@/db/database.ts";

/** Minutes of silence after which LEDGER_STALE refuses an identity's writes (project setting overrides). */
export const DEFAULT_LEDGER_STALE_MINUTES = 15;

/** meta.context and pendingActions warn this long before LEDGER_STALE starts refusing writes. */
export const STALE_WARNING_MINUTES = 5;

export interface CallerSituation {
  unreadNotifications: number;
  expiringClaims: number;
  expiredClaims: number;
  holdsWork: boolean;
  minutesSilent: number | null;
  thresholdMinutes: number;
}

const perRequest = new WeakMap<object, Promise<CallerSituation>>();

/** Whose situation: the caller's identity (agent, sub-agent), session and project, at `now`. */
export interface SituationInput {
  projectId: string;
  agentId: string;
  subAgentName?: string | null;
  sessionId: string | null;
  now: Date;
}

/**
 * The caller's situation computed once per request: `key` is the request's actor object, shared by the
 * meta.context middleware and GET /context, so the statement runs once.
 */
export function callerSituationOnce(
  key: object,
  db: DbOrTrx,
  input: SituationInput,
): Promise<CallerSituation> {
  let found = perRequest.get(key);
  if (!found) {
    found = callerSituation(db, input);
    perRequest.set(key, found);
  }
  return found;
}

/** The columns of `situationColumns`, by their names without the prefix. */
export interface SituationRow {
  unread: number;
  expiring: number;
  expired: number;
  claim_since: Date | string | null;
  ticket_since: Date | string | null;
  last_entry: Date | string | null;
  threshold: string | null;
}

const SITUATION_COLUMNS: readonly (keyof SituationRow)[] = [
  "unread",
  "expiring",
  "expired",
  "claim_since",
  "ticket_since",
  "last_entry",
  "threshold",
];

/**
 * The caller's situation as scalar subqueries (each an index lookup), named `<prefix><column>`. The last
 * own entry is `max(created_at)`, exactly as the LEDGER_STALE gate reads it, and read in `created_at` order
 * from the agent's index: an `ORDER BY seq DESC LIMIT 1` let the planner walk the whole ledger backwards
 * by `seq` when it could not see the agent (generic plans, the agents page's correlated subqueries), which
 * for an agent without entries of its own is every row.
 * `agentId` and `projectId` are parameters or column references (the admission statement reads them
 * from the token row; the dashboard's agents page reads every identity of a project), so that the same
 * SQL serves all; `subAgentName` too (see `sameSubAgent`).
 */
export function situationColumns(
  agentId: RawBuilder<unknown> | string,
  projectId: RawBuilder<unknown> | string,
  subAgentName: string | null | RawBuilder<unknown>,
  now: Date,
  prefix = "",
): RawBuilder<unknown> {
  const soon = new Date(now.getTime() + 5 * 60_000);
  const as = (name: string) => sql.ref(`${prefix}${name}`);
  return sql`(SELECT count(*)::int FROM notifications n
        WHERE n.recipient_agent_id = ${agentId} AND n.read_at IS NULL) AS ${as("unread")},
      (SELECT count(*)::int FROM claims c WHERE c.agent_id = ${agentId} AND c.released_at IS NULL
        AND c.expires_at > ${now} AND c.expires_at <= ${soon}) AS ${as("expiring")},
      (SELECT count(*)::int FROM claims c WHERE c.agent_id = ${agentId} AND c.released_at IS NULL
        AND c.expires_at <= ${now}) AS ${as("expired")},
      (SELECT min(c.claimed_at) FROM claims c WHERE c.agent_id = ${agentId}
        AND ${sameSubAgent("c.sub_agent_name", subAgentName)} AND c.released_at IS NULL
        AND c.expires_at > ${now}) AS ${as("claim_since")},
      (SELECT min(t.status_changed_at) FROM tickets t WHERE t.assignee_agent_id = ${agentId}
        AND ${sameSubAgent("t.sub_agent_name", subAgentName)} AND t.status = 'in_progress') AS ${
    as("ticket_since")
  },
      (SELECT max(l.created_at) FROM ledger_entries l WHERE l.agent_id = ${agentId}
        AND ${sameSubAgent("l.sub_agent_name", subAgentName)} AND l.source = 'agent') AS ${as("last_entry")},
      (SELECT p.settings->>'ledgerStaleMinutes' FROM projects p WHERE p.id = ${projectId}) AS ${
    as("threshold")
  }`;
}

/**
 * The caller's own situation in ONE statement (scalar subqueries, each an index lookup), cheap enough
 * to run on every authenticated call for `meta.context`. Silence is measured as the LEDGER_STALE gate
 * does (domain/ledger/stale.ts): from the identity's latest own entry, never from before its current
 * work began (oldest live claim, or the in-progress ticket's start).
 */
export async function callerSituation(
  db: DbOrTrx,
  input: SituationInput,
): Promise<CallerSituation> {
  const columns = situationColumns(input.agentId, input.projectId, input.subAgentName ?? null, input.now);
  const result = await sql<SituationRow>`SELECT ${columns}`.execute(db);
  return situationOf(result.rows[0], input.now);
}

/** Reads the columns of `situationColumns` (named with `prefix`). */
export function situationOf(raw: unknown, now: Date, prefix = ""): CallerSituation {
  const all = (raw ?? {}) as Record<string, unknown>;
  // The seven columns by name (the admission row has forty: copying it per call showed in the profile).
  const row: Partial<Record<keyof SituationRow, unknown>> = {};
  for (const column of SITUATION_COLUMNS) row[column] = all[prefix + column];
  const starts = [toDate(row.claim_since), toDate(row.ticket_since)].filter((d): d is Date => d !== null);
  const workStart = starts.length > 0 ? starts.reduce((a, b) => (a < b ? a : b)) : null;
  const lastEntry = toDate(row.last_entry);
  const since = workStart && lastEntry && lastEntry > workStart ? lastEntry : workStart;
  const configured = Number(row.threshold);
  const threshold = Number.isFinite(configured) && configured > 0 ? configured : DEFAULT_LEDGER_STALE_MINUTES;
  return {
    unreadNotifications: Number(row.unread ?? 0),
    expiringClaims: Number(row.expiring ?? 0),
    expiredClaims: Number(row.expired ?? 0),
    holdsWork: workStart !== null,
    minutesSilent: since ? Math.max(0, Math.floor((now.getTime() - since.getTime()) / 60_000)) : null,
    thresholdMinutes: threshold,
  };
}

/** Records the situation the admission statement already read, for callerSituationOnce. */
export function primeCallerSituation(key: object, situation: CallerSituation): void {
  perRequest.set(key, Promise.resolve(situation));
}

function toDate(value: unknown): Date | null {
  if (value instanceof Date) return value;
  if (typeof value === "string") {
    const d = new Date(value);
    return Number.isNaN(d.getTime()) ? null : d;
  }
  return null;
}

/** Ledger silence that matters: only while holding work, from the warning point on. */
export function silenceWarning(s: CallerSituation) {
  if (!s.holdsWork || s.minutesSilent === null) return null;
  if (s.minutesSilent < s.thresholdMinutes - STALE_WARNING_MINUTES) return null;
  return {
    minutesSilent: s.minutesSilent,
    thresholdMinutes: s.thresholdMinutes,
    stale: s.minutesSilent >= s.thresholdMinutes,
  };
}

/**
 * `meta.context` (CONV-009/010): counts and warnings about the caller's own situation, each key present
 * only when non-zero; an empty result means "nothing to report" and the key is left out of `meta`.
 */
export function metaContextOf(s: CallerSituation): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (s.unreadNotifications > 0) out.unreadNotifications = s.unreadNotifications;
  if (s.expiringClaims > 0) out.expiringClaims = s.expiringClaims;
  if (s.expiredClaims > 0) out.expiredClaims = s.expiredClaims;
  const warning = silenceWarning(s);
  if (warning) out.ledgerStale = warning;
  return out;
}
