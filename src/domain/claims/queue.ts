import { sql } from "kysely";
import type { Db, DbOrTrx, Trx } from "@/db/database.ts";
import { identityName } from "@/domain/core/actor.ts";
import { DomainError } from "@/domain/core/errors.ts";
import { lockProjectClaims } from "@/domain/core/claim-lock.ts";
import { liveHolders } from "@/domain/core/claim-holders.ts";
import { CLAIM_GRACE_MS } from "@/domain/core/claim-policy.ts";
import { recordEvent } from "@/domain/core/record-event.ts";
import { entriesOverlap } from "@/shared/file-path.ts";
import { acquireClaims } from "./acquire.ts";
import type { AcquireInput } from "./types.ts";

/** A waiting claim request as the queue reads it (arrival order is `seq`). */
export interface QueuedRequest {
  id: string;
  seq: number;
  agentId: string;
  agentName: string;
  agentStatus: string;
  subAgentName: string | null;
  sessionId: string | null;
  ticketId: string | null;
  files: string[];
  estimatedSeconds: number | null;
  allowSubAgents: boolean | null;
  commitSha: string | null;
  createdAt: Date;
  expiresAt: Date;
}

/** The identity key of a holder or waiter: an agent, or one of its sub-agents (their own identities). */
export function identityKey(who: { agentId: string; subAgentName: string | null }): string {
  return `${who.agentId}/${who.subAgentName ?? ""}`;
}

/** A claim request's columns as `QueuedRequest` names them (`claim_requests as r` joined to `agents as a`). */
export const REQUEST_COLUMNS = [
  "r.id",
  "r.seq",
  "r.agent_id as agentId",
  "a.name as agentName",
  "a.status as agentStatus",
  "r.sub_agent_name as subAgentName",
  "r.session_id as sessionId",
  "r.ticket_id as ticketId",
  "r.files",
  "r.estimated_seconds as estimatedSeconds",
  "r.allow_sub_agents as allowSubAgents",
  "r.commit_sha as commitSha",
  "r.created_at as createdAt",
  "r.expires_at as expiresAt",
] as const;

/** The project's waiting requests, in arrival order (inside the claim lock for a decision). */
export async function waitingRequests(db: DbOrTrx, projectId: string): Promise<QueuedRequest[]> {
  const rows = await db.selectFrom("claim_requests as r").innerJoin("agents as a", "a.id", "r.agent_id")
    .select(REQUEST_COLUMNS)
    .where("r.project_id", "=", projectId).where("r.status", "=", "waiting").orderBy("r.seq").execute();
  return rows.map((r) => ({
    ...r,
    seq: Number(r.seq),
    createdAt: new Date(r.createdAt),
    expiresAt: new Date(r.expiresAt),
  }));
}

/**
 * The one grant path of the wait queue, called inside the transaction of whatever ends or may end a
 * blocking claim (a release, a handoff, a revocation, a cancelled or expired request, the expiry sweep):
 * takes the project's claim lock, ends waiting requests that are past `expiresAt` (`claim.wait_expired`)
 * or whose agent was revoked (cancelled), then grants, in arrival order, every waiting request whose
 * files are all free (or the waiter's own) and wanted by no earlier waiting request. A grant is the
 * waiter's `POST /claim` at `now` (same rows, CONTEXT entry and `claim.acquired`) plus `claim.granted`.
 * Answers the ids of the granted requests.
 */
export async function grantWaiting(
  trx: Trx,
  projectId: string,
  now: Date,
  options: { locked?: boolean } = {},
): Promise<string[]> {
  // `locked`: the caller took the project's claim lock already in this transaction (one statement less).
  if (!options.locked) await lockProjectClaims(trx, projectId);
  const all = await waitingRequests(trx, projectId);
  if (all.length === 0) return [];
  const waiting = await endStale(trx, projectId, all, now);
  if (waiting.length === 0) return [];
  const files = [...new Set(waiting.flatMap((r) => r.files))];
  // Entries compared with the overlap rule (directories, files, symbols), as claims themselves are.
  const held = (await liveHolders(trx, projectId, files, now)).map((h) => ({
    file: h.file,
    who: identityKey(h),
  }));
  const wanted: string[] = [];
  const granted: string[] = [];
  for (const r of waiting) {
    const me = identityKey(r);
    const free = r.files.every((f) =>
      !wanted.some((w) => entriesOverlap(w, f)) &&
      held.every((h) => h.who === me || !entriesOverlap(h.file, f))
    );
    if (free && await grantOne(trx, projectId, r, now)) {
      for (const file of r.files) held.push({ file, who: me });
      granted.push(r.id);
      continue;
    }
    wanted.push(...r.files);
  }
  return granted;
}

/** Expires the requests past `expiresAt` and cancels those of revoked agents; answers the others. */
async function endStale(
  trx: Trx,
  projectId: string,
  all: QueuedRequest[],
  now: Date,
): Promise<QueuedRequest[]> {
  const expired = all.filter((r) => r.expiresAt <= now);
  const revoked = all.filter((r) => r.expiresAt > now && r.agentStatus === "revoked");
  if (revoked.length > 0) {
    await trx.updateTable("claim_requests").set({ status: "cancelled", ended_at: now })
      .where("id", "in", revoked.map((r) => r.id)).execute();
  }
  for (const r of expired) {
    await trx.updateTable("claim_requests").set({ status: "expired", ended_at: r.expiresAt })
      .where("id", "=", r.id).execute();
    await recordEvent(trx, {
      projectId,
      kind: "claim.wait_expired",
      entityType: "claim_request",
      entityId: r.id,
      agentId: r.agentId,
      data: { requestId: r.id, files: r.files, agentId: r.agentId },
      now,
    });
  }
  return all.filter((r) => r.expiresAt > now && r.agentStatus !== "revoked");
}

/**
 * Creates the waiter's claim as its own `POST /claim` would now (`acquireClaims`, under a savepoint),
 * marks the request granted and records `claim.granted`. A claim refused after all (a concurrent write
 * the lock does not cover) leaves the request waiting: answers false.
 */
async function grantOne(trx: Trx, projectId: string, r: QueuedRequest, now: Date): Promise<boolean> {
  const input: AcquireInput = {
    projectId,
    agentId: r.agentId,
    agentName: r.agentName,
    subAgentName: r.subAgentName,
    sessionId: r.sessionId,
    ticketId: r.ticketId,
    files: r.files,
    ...(r.estimatedSeconds !== null ? { estimatedSeconds: r.estimatedSeconds } : {}),
    ...(r.allowSubAgents !== null ? { allowSubAgents: r.allowSubAgents } : {}),
    commitSha: r.commitSha,
    now,
  };
  try {
    await acquireClaims(trx, input);
  } catch (error) {
    if (error instanceof DomainError && error.kind === "conflict") return false;
    throw error;
  }
  const holder = (await liveHolders(trx, projectId, [r.files[0]!], now))[0];
  await trx.updateTable("claim_requests")
    .set({ status: "granted", ended_at: now, claim_id: holder?.claimId ?? null })
    .where("id", "=", r.id).execute();
  await recordEvent(trx, {
    projectId,
    kind: "claim.granted",
    entityType: "claim_request",
    entityId: r.id,
    agentId: r.agentId,
    data: { requestId: r.id, files: r.files, agentId: r.agentId },
    now,
  });
  return true;
}

/**
 * SQL: the waiting requests (of `projectId`, or of every project) that are due: past `expiresAt`, or
 * with a file no live claim holds (a blocking claim ended without a release: expiry, grace period).
 */
export function dueRequestsQuery(projectId: string | null, now: Date) {
  const graceStart = new Date(now.getTime() - CLAIM_GRACE_MS);
  return sql<{ project_id: string }>`SELECT DISTINCT r.project_id FROM claim_requests AS r
    WHERE r.status = 'waiting' ${projectId ? sql`AND r.project_id = ${projectId}::uuid` : sql``}
      AND (r.expires_at <= ${now}::timestamptz OR EXISTS (
        SELECT 1 FROM jsonb_array_elements_text(r.files) AS w(file)
        WHERE NOT EXISTS (
          SELECT 1 FROM claim_files AS f JOIN claims AS c ON c.id = f.claim_id
            LEFT JOIN sessions AS s ON s.id = c.session_id
          WHERE f.project_id = r.project_id AND lower(f.file) = lower(w.file) AND f.released_at IS NULL
            AND c.released_at IS NULL AND c.expires_at > ${now}::timestamptz
            AND (s.ended_at IS NULL OR s.ended_at > ${graceStart}::timestamptz))))`;
}

/**
 * The queue's work that time makes due (request expiry, grants of files whose claims expired), done by
 * the request that observes it: nothing when no waiting request of the project is due.
 */
export async function settleQueue(db: Db, projectId: string, now: Date): Promise<void> {
  const { rows } = await dueRequestsQuery(projectId, now).execute(db);
  if (rows.length === 0) return;
  await db.transaction().execute((trx) => grantWaiting(trx, projectId, now));
}

/** The background sweep (every instance, about every second): settles each project with due requests. */
export async function settleAllQueues(db: Db, now: Date): Promise<number> {
  const { rows } = await dueRequestsQuery(null, now).execute(db);
  for (const row of rows) {
    await db.transaction().execute((trx) => grantWaiting(trx, row.project_id, now));
  }
  return rows.length;
}

/** `agentName` or `agentName/subAgentName` of a waiting request. */
export function requestName(r: Pick<QueuedRequest, "agentName" | "subAgentName">): string {
  return identityName(r.agentName, r.subAgentName);
}
