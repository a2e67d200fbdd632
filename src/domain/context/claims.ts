import { sql } from "kysely";
import type { DbOrTrx } from "@/db/database.ts";
import { STALE_CLAIM_MS } from "@/domain/core/claim-policy.ts";
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
