import { type RawBuilder, sql } from "kysely";
import type { ActorCtx } from "@/domain/core/context.ts";
import { DomainError, fail } from "@/domain/core/errors.ts";
import { checkEntry } from "@/shared/file-path.ts";
import { lockProjectClaims } from "@/domain/core/claim-lock.ts";
import type { Trx } from "@/db/database.ts";
import { ticketIdQuery, ticketNotFound } from "@/domain/core/ticket-refs.ts";
import { backpressureHit, backpressureRefusal } from "@/domain/ledger/backpressure.ts";
import { acquireLocked, byClaimedAt, uniqueFiles } from "./acquire.ts";
import { dueRequestsQuery, grantWaiting, requestName, settleQueue } from "./queue.ts";
import { claimOrWait, queuedConflict, queueOnFiles } from "./wait.ts";
import type { ClaimRequestView } from "./request-view.ts";
import type { AcquireInput, AcquireResult } from "./types.ts";
import {
  type Holder,
  holderOf,
  type HolderRow,
  holdersQuery,
  liveHolders,
} from "@/domain/core/claim-holders.ts";
import { entriesOverlap, fileKey } from "@/shared/file-path.ts";
import { MAX_CLAIM_FILES } from "@/contracts/claims.ts";
import { isStale } from "@/domain/core/claim-policy.ts";
import { identityName } from "@/domain/core/actor.ts";
import { releaseAndGrant } from "./release.ts";

export interface ClaimRequest {
  files: string[];
  ticketId?: string | undefined;
  estimatedSeconds?: number | undefined;
  allowSubAgents?: boolean | undefined;
  commitSha?: string | undefined;
  /** Wait up to this many seconds for held files instead of a 409 (issue 24 point 1). */
  waitSeconds?: number | undefined;
}

type Next = { nextAction: { action: string; message: string } };

/**
 * POST /claim: claims entries for the caller (all or nothing), with the per-agent claim budget. One
 * transaction: the project's claim lock (every claim write takes it: overlaps between a directory, a file
 * and a symbol, and the wait queue, are exact across instances), then one statement with the budget's hit,
 * the ticket, the holders of overlapping entries and the state of the wait queue, then, decided from them,
 * every write at once (`acquireLocked`). A file other agents wait for is refused (409 CONFLICT with
 * `details.queue`); with `waitSeconds` the claim waits instead (`claimOrWait`: the claim, or a waiting
 * request). A refusal commits the budget's hit alone (every attempt counts) and is thrown after.
 */
export async function claimFiles(
  ctx: ActorCtx,
  input: ClaimRequest,
): Promise<(AcquireResult & Next) | { request: ClaimRequestView } & Next> {
  const { actor } = ctx;
  const now = ctx.clock.now();
  const hit = backpressureHit(actor, "claim", now);
  const files = uniqueFiles(input);
  const outcome = await ctx.db.transaction().execute(async (trx) => {
    await lockProjectClaims(trx, actor.projectId);
    const loaded = await loadClaim(trx, actor.projectId, hit.query, files, input.ticketId, now);
    const refusal = backpressureRefusal("claim", loaded.count, hit.resetAt, now);
    if (refusal) return { refused: refusal };
    if (input.ticketId && !loaded.ticketId) return { refused: ticketNotFound(input.ticketId) };
    const acquire = acquireInput(ctx, input, files, loaded.ticketId, now);
    try {
      return await claimLocked(trx, acquire, loaded, input.waitSeconds);
    } catch (error) {
      if (error instanceof DomainError) return { refused: error };
      throw error;
    }
  });
  if ("refused" in outcome) throw outcome.refused;
  if ("request" in outcome) return { request: outcome.request, nextAction: waitNextAction(outcome.request) };
  return { ...outcome.claimed, nextAction: resumeNextAction(outcome.claimed) };
}

/** The decided part of `claimFiles`, under the project's claim lock: wait, refuse for the queue, or claim. */
async function claimLocked(
  trx: Trx,
  acquire: AcquireInput,
  loaded: Awaited<ReturnType<typeof loadClaim>>,
  waitSeconds: number | undefined,
): Promise<{ claimed: AcquireResult } | { request: ClaimRequestView }> {
  const { projectId, files, now } = acquire;
  if (waitSeconds !== undefined) return await claimOrWait(trx, acquire, waitSeconds);
  let holders = loaded.holders;
  if (loaded.due) {
    await grantWaiting(trx, projectId, now, { locked: true });
    holders = await liveHolders(trx, projectId, files, now);
  }
  const queue = loaded.waiting > 0 ? await queueOnFiles(trx, projectId, acquire, files) : new Map();
  if (queue.size > 0) throw queuedConflict(acquire, holders, queue);
  return { claimed: await acquireLocked(trx, acquire, holders) };
}

function acquireInput(
  ctx: ActorCtx,
  input: ClaimRequest,
  files: string[],
  ticketId: string | null,
  now: Date,
): AcquireInput {
  const { actor } = ctx;
  return {
    projectId: actor.projectId,
    agentId: actor.agentId,
    agentName: actor.agentName,
    subAgentName: actor.subAgentName,
    sessionId: actor.sessionId,
    ticketId,
    files,
    ...(input.estimatedSeconds !== undefined ? { estimatedSeconds: input.estimatedSeconds } : {}),
    ...(input.allowSubAgents !== undefined ? { allowSubAgents: input.allowSubAgents } : {}),
    commitSha: input.commitSha ?? null,
    now,
  };
}

function resumeNextAction(result: AcquireResult): Next["nextAction"] {
  const until = result.claims.map((c) => c.expiresAt).sort()[0];
  return {
    action: "RESUME_WORK",
    message:
      `Work on the files; log a PROGRESS entry (POST /ledger) at least every 15 minutes, re-claim before ` +
      `${until} if you need longer, and release (POST /release) or hand off when done`,
  };
}

function waitNextAction(request: ClaimRequestView): Next["nextAction"] {
  return {
    action: "WAIT_FOR_GRANT",
    message:
      `Do not poll POST /claim: the service grants these files to you itself, in arrival order, as soon as ` +
      `they are free (event claim.granted with requestId ${request.id} in GET /events, claims.granted in ` +
      `GET /context, or GET /claim/requests/${request.id}). Work on something else meanwhile; the request ` +
      `expires at ${request.expiresAt} (cancel it with DELETE /claim/requests/${request.id})`,
  };
}

/**
 * One statement: the budget's hit, the ticket a reference names (null when none), the live holders, the
 * project's waiting requests (a count) and whether any of them is due (`dueRequestsQuery`).
 */
async function loadClaim(
  db: Trx,
  projectId: string,
  hit: RawBuilder<unknown>,
  files: string[],
  ticketRef: string | undefined,
  now: Date,
): Promise<{ count: number; ticketId: string | null; holders: Holder[]; waiting: number; due: boolean }> {
  const ticket = ticketRef ? ticketIdQuery(db, projectId, ticketRef) : null;
  const { rows } = await sql<
    { count: number | string; ticket_id: string | null; holders: HolderRow[]; waiting: number; due: boolean }
  >`
    WITH bp AS (${hit})
    SELECT (SELECT count FROM bp) AS count, ${ticket ? sql`(${ticket})` : sql`NULL::uuid`} AS ticket_id,
      (SELECT coalesce(json_agg(h), '[]'::json) FROM (${holdersQuery(db, projectId, files, now)}) AS h)
        AS holders,
      (SELECT count(*)::int FROM claim_requests AS q WHERE q.project_id = ${projectId}::uuid
        AND q.status = 'waiting') AS waiting,
      EXISTS (${dueRequestsQuery(projectId, now)}) AS due`.execute(db);
  const row = rows[0]!;
  return {
    count: Number(row.count),
    ticketId: row.ticket_id,
    holders: row.holders.map(holderOf),
    waiting: Number(row.waiting),
    due: Boolean(row.due),
  };
}

export interface CheckItem {
  file: string;
  available: boolean;
  claimant?: string;
  isSelf?: boolean;
  isStale?: boolean;
  claimedAt?: string;
  expiresAt?: string;
  status?: "active" | "grace_period";
  holders?: Array<{ file: string; claimant: string }>;
  /** Waiting requests of other agents on the file (issue 24 point 2); a free file with waiters is not available. */
  queue?: number;
  fence?: number;
}

/**
 * GET /claim/check: who holds each entry now (expired and past-grace claims do not count), in any letter
 * case of its path: each entry is answered under the spelling asked. An entry overlapped by live claims
 * (the same entry, a directory above it, a file under it, a symbol of it: `entriesOverlap`) is not
 * available; `claimant` and its fields name the earliest of them, `holders[]` lists them all.
 */
export async function checkClaims(ctx: ActorCtx, filesParam: string): Promise<{ files: CheckItem[] }> {
  const checked = filesParam.split(",").map(checkEntry);
  const refused = checked.flatMap((c, i) => c.ok ? [] : [{ index: i, reason: c.reason }]);
  if (refused.length > 0) {
    throw fail.validation(`Invalid path in \`files\`: ${refused[0]!.reason}`, {
      fields: refused.map((r) => ({ path: `files.${r.index}`, message: r.reason, code: "custom" })),
    });
  }
  const files = [...new Set(checked.map((c) => c.ok ? c.path : ""))];
  if (files.some((f) => f.length > 500)) {
    throw fail.validation("Each path in `files` must be at most 500 characters", {
      fields: [{ path: "files", message: "too long path in the list", code: "too_big" }],
    });
  }
  if (files.length > MAX_CLAIM_FILES) {
    throw fail.validation(`At most ${MAX_CLAIM_FILES} files per check`, {
      fields: [{ path: "files", message: `Too many files: ${files.length} > 20`, code: "too_big" }],
    });
  }
  const now = ctx.clock.now();
  await settleQueue(ctx.db, ctx.actor.projectId, now);
  const holders = (await liveHolders(ctx.db, ctx.actor.projectId, files, now)).sort(byClaimedAt);
  const queue = await queueOnFiles(ctx.db, ctx.actor.projectId, ctx.actor, files);
  return {
    files: files.map((file) => {
      const overlapping = holders.filter((h) => entriesOverlap(h.file, file));
      const h = overlapping[0];
      const waiters = queue.get(fileKey(file)) ?? [];
      const queued = waiters.length > 0 ? { queue: waiters.length } : {};
      if (!h && waiters.length > 0) {
        return { file, available: false, claimant: requestName(waiters[0]!), isSelf: false, ...queued };
      }
      if (!h) return { file, available: true };
      return {
        ...queued,
        file,
        available: false,
        claimant: identityName(h.agentName, h.subAgentName),
        isSelf: h.agentId === ctx.actor.agentId && h.subAgentName === ctx.actor.subAgentName,
        isStale: isStale(h.claimedAt, now),
        claimedAt: h.claimedAt.toISOString(),
        expiresAt: h.expiresAt.toISOString(),
        status: h.status,
        holders: overlapping.map((o) => ({
          file: o.file,
          claimant: identityName(o.agentName, o.subAgentName),
        })),
        ...(h.fence !== undefined ? { fence: h.fence } : {}),
      };
    }),
  };
}

/**
 * POST /release: frees the caller's own claims (whole claims) by file, or all of them. The budget's hit
 * and the release are one statement: every attempt counts, and a refused one releases nothing.
 */
export async function releaseOwnClaims(
  ctx: ActorCtx,
  input: { files?: string[] | undefined; all?: true | undefined },
): Promise<{ released: string[] }> {
  const { actor } = ctx;
  const now = ctx.clock.now();
  const hit = backpressureHit(actor, "release", now);
  // One transaction: the release and the wait queue's grants it makes possible (`releaseAndGrant`).
  const { released, count } = await ctx.db.transaction().execute((trx) =>
    releaseAndGrant(trx, {
      projectId: actor.projectId,
      agentId: actor.agentId,
      subAgentName: actor.subAgentName,
      sessionId: actor.sessionId,
      ...(input.all ? { all: true } : { files: input.files ?? [] }),
      now,
    }, hit)
  );
  const refusal = backpressureRefusal("release", count ?? 0, hit.resetAt, now);
  if (refusal) throw refusal;
  return { released };
}
