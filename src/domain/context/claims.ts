import { sql } from "kysely";
import type { DbOrTrx } from "@/db/database.ts";
import { CLAIM_GRACE_MS as STALE_GRACE_MS, STALE_CLAIM_MS } from "@/domain/core/claim-policy.ts";
import { OPEN_CLAIMS_SHOWN } from "./params.ts";

/** `expiringClaims`: live claims of the caller that expire within this window (CTX-024). */
export const EXPIRING_WINDOW_MS = 5 * 60_000;

export interface OpenClaimRow {
  claimId: string;
  file: string;
  agentId: string;
  agentName: string;
  subAgentName: string | null;
  ticketId: string | null;
  claimedAt: string;
  expiresAt: string;
  isSelf: boolean;
  isStale: boolean;
}

/**
 * Every live (unreleased, unexpired) claimed file of the project, newest claim first, at most 200 rows,
 * and the caller's own expired and soon-expiring claims.
 */
export async function claimsOverview(
  db: DbOrTrx,
  projectId: string,
  agentId: string,
  now: Date,
  subAgentName: string | null = null,
) {
  return claimsOf(await claimsQuery(db, projectId, agentId, now).execute(), agentId, now, subAgentName);
}

/** The rows `claimsOverview` reads. */
export function claimsQuery(db: DbOrTrx, projectId: string, agentId: string, now: Date) {
  return db.selectFrom("claim_files as f")
    .innerJoin("claims as c", "c.id", "f.claim_id")
    .innerJoin("agents as a", "a.id", "c.agent_id")
    .select([
      "c.id",
      "f.file",
      "c.agent_id",
      "a.name",
      "c.sub_agent_name",
      "c.ticket_id",
      "c.claimed_at",
      "c.expires_at",
    ])
    .where("f.project_id", "=", projectId).where("f.released_at", "is", null)
    .where("c.released_at", "is", null)
    .where((eb) => eb.or([eb("c.expires_at", ">", now), eb("c.agent_id", "=", agentId)]))
    .orderBy("c.claimed_at", "desc").orderBy("f.file").limit(OPEN_CLAIMS_SHOWN + 100);
}

/** `claimsOverview` from the rows of `claimsQuery` (timestamps as Date, or as text when read through JSON). */
export function claimsOf(
  raw: Array<{
    id: string;
    file: string;
    agent_id: string;
    name: string;
    sub_agent_name: string | null;
    ticket_id: string | null;
    claimed_at: Date | string;
    expires_at: Date | string;
  }>,
  agentId: string,
  now: Date,
  subAgentName: string | null,
) {
  const rows = raw.map((r) => ({
    ...r,
    claimed_at: new Date(r.claimed_at),
    expires_at: new Date(r.expires_at),
  }));
  const open: OpenClaimRow[] = [];
  const expired: Array<{ claimId: string; file: string; ticketId: string | null; expiredAt: string }> = [];
  /** Expired claims of the exact identity (agent or one sub-agent): each is graded on its own (SUB-024). */
  let ownExpired = 0;
  const expiring: Array<
    { claimId: string; file: string; ticketId: string | null; expiresAt: string; secondsLeft: number }
  > = [];
  for (const r of rows) {
    const self = r.agent_id === agentId;
    const left = r.expires_at.getTime() - now.getTime();
    if (left <= 0) {
      if (self) {
        expired.push({ claimId: r.id, file: r.file, ticketId: r.ticket_id, expiredAt: iso(r.expires_at) });
        if ((r.sub_agent_name ?? null) === subAgentName) ownExpired++;
      }
      continue;
    }
    if (self && left <= EXPIRING_WINDOW_MS) {
      expiring.push({
        claimId: r.id,
        file: r.file,
        ticketId: r.ticket_id,
        expiresAt: iso(r.expires_at),
        secondsLeft: Math.floor(left / 1000),
      });
    }
    if (open.length < OPEN_CLAIMS_SHOWN) {
      open.push({
        claimId: r.id,
        file: r.file,
        agentId: r.agent_id,
        agentName: r.name,
        subAgentName: r.sub_agent_name,
        ticketId: r.ticket_id,
        claimedAt: iso(r.claimed_at),
        expiresAt: iso(r.expires_at),
        isSelf: self,
        isStale: now.getTime() - r.claimed_at.getTime() > STALE_CLAIM_MS,
      });
    }
  }
  return { open, expired, expiring, ownExpired };
}

function iso(d: Date): string {
  return d.toISOString();
}

/**
 * Other agents' in-progress tickets whose expected files overlap `files` (advisory, like the board's
 * `collisionWarnings`): `[{ agentName, ticketRef, conflictingFiles }]`.
 */
export async function collisionWarnings(
  db: DbOrTrx,
  input: { projectId: string; agentId: string; prefix: string; files: string[] },
) {
  if (input.files.length === 0) return [];
  return collisionsOf(await collisionsQuery(db, input).execute(), input);
}

/** The rows of `collisionWarnings` (`files` not empty). */
export function collisionsQuery(db: DbOrTrx, input: { projectId: string; agentId: string; files: string[] }) {
  return db.selectFrom("tickets as t").innerJoin("agents as a", "a.id", "t.assignee_agent_id")
    .select(["a.name", "t.number", "t.expected_files"])
    .where("t.project_id", "=", input.projectId).where("t.status", "=", "in_progress")
    .where("t.assignee_agent_id", "!=", input.agentId)
    .where(sql<boolean>`t.expected_files ?| ${sql.val(input.files)}::text[]`)
    .orderBy("t.number").limit(20);
}

export function collisionsOf(
  rows: Array<{ name: string; number: number; expected_files: string[] }>,
  input: { prefix: string; files: string[] },
) {
  const mine = new Set(input.files);
  return rows.map((r) => ({
    agentName: r.name,
    ticketRef: `${input.prefix}-${r.number}`,
    conflictingFiles: r.expected_files.filter((f) => mine.has(f)),
  }));
}

/** Granted wait requests listed in `claims.granted` (issue 24 point 1), newest first. */
const MAX_GRANTED_SHOWN = 20;

/**
 * The caller's (exact identity's) granted wait requests whose claim still lives: `claims.granted[]` of
 * GET /context, `{ requestId, files, grantedAt }` once revived.
 */
export function grantedQuery(
  db: DbOrTrx,
  actor: { projectId: string; agentId: string; subAgentName: string | null },
  now: Date,
) {
  return db.selectFrom("claim_requests as r")
    .innerJoin("claims as c", "c.id", "r.claim_id")
    .select(["r.id as requestId", "r.files", "r.ended_at as grantedAt"])
    .where("r.project_id", "=", actor.projectId).where("r.agent_id", "=", actor.agentId)
    .where((eb) =>
      actor.subAgentName === null
        ? eb("r.sub_agent_name", "is", null)
        : eb("r.sub_agent_name", "=", actor.subAgentName)
    )
    .where("r.status", "=", "granted").where("c.released_at", "is", null).where("c.expires_at", ">", now)
    .orderBy("r.ended_at", "desc").limit(MAX_GRANTED_SHOWN);
}

/** `claims.granted[]` items from the rows of `grantedQuery` (times as Date, or as text through JSON). */
export function grantedOf(
  rows: Array<{ requestId: string; files: string[]; grantedAt: Date | string | null }>,
) {
  return rows.map((r) => ({
    requestId: r.requestId,
    files: r.files,
    grantedAt: r.grantedAt ? new Date(r.grantedAt).toISOString() : "",
  }));
}

/** One waiting request of the project that is due (expired, or with a file no live claim holds), if any. */
export function queueDueQuery(db: DbOrTrx, projectId: string, now: Date) {
  const graceStart = new Date(now.getTime() - STALE_GRACE_MS);
  return db.selectFrom("claim_requests as r").select("r.id")
    .where("r.project_id", "=", projectId).where("r.status", "=", "waiting")
    .where(sql<boolean>`(r.expires_at <= ${now}::timestamptz OR EXISTS (
        SELECT 1 FROM jsonb_array_elements_text(r.files) AS w(file)
        WHERE NOT EXISTS (
          SELECT 1 FROM claim_files AS f JOIN claims AS c ON c.id = f.claim_id
            LEFT JOIN sessions AS s ON s.id = c.session_id
          WHERE f.project_id = r.project_id AND lower(f.file) = lower(w.file) AND f.released_at IS NULL
            AND c.released_at IS NULL AND c.expires_at > ${now}::timestamptz
            AND (s.ended_at IS NULL OR s.ended_at > ${graceStart}::timestamptz))))`)
    .limit(1);
}
