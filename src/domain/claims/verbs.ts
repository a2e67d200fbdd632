import { type RawBuilder, sql } from "kysely";
import type { ActorCtx } from "@/domain/core/context.ts";
import { fail } from "@/domain/core/errors.ts";
import { checkPath } from "@/shared/file-path.ts";
import { ticketIdQuery, ticketNotFound } from "@/domain/core/ticket-refs.ts";
import { backpressureHit, backpressureRefusal } from "@/domain/ledger/backpressure.ts";
import { planClaim, uniqueFiles, writeClaimAlone } from "./acquire.ts";
import type { AcquireInput, AcquireResult } from "./types.ts";
import {
  type Holder,
  holderOf,
  type HolderRow,
  holdersQuery,
  liveHolders,
} from "@/domain/core/claim-holders.ts";
import { fileKey } from "@/shared/file-path.ts";
import { MAX_CLAIM_FILES } from "@/contracts/claims.ts";
import { isStale } from "@/domain/core/claim-policy.ts";
import { identityName } from "@/domain/core/actor.ts";
import { releaseWithBudget } from "./release.ts";

export interface ClaimRequest {
  files: string[];
  ticketId?: string | undefined;
  estimatedSeconds?: number | undefined;
  allowSubAgents?: boolean | undefined;
  commitSha?: string | undefined;
}

/**
 * POST /claim: claims files for the caller (all or nothing), with the per-agent claim budget. Two
 * statements, no transaction: the budget's hit (counted for every attempt), the ticket and the holders
 * of the files; then, decided from them, every write at once (`writeClaimAlone`).
 */
export async function claimFiles(
  ctx: ActorCtx,
  input: ClaimRequest,
): Promise<AcquireResult & { nextAction: { action: string; message: string } }> {
  const { actor } = ctx;
  const now = ctx.clock.now();
  const hit = backpressureHit(actor, "claim", now);
  const files = uniqueFiles(input);
  const loaded = await loadClaim(ctx, hit.query, files, input.ticketId, now);
  const refusal = backpressureRefusal("claim", loaded.count, hit.resetAt, now);
  if (refusal) throw refusal;
  if (input.ticketId && !loaded.ticketId) throw ticketNotFound(input.ticketId);
  const acquire: AcquireInput = {
    projectId: actor.projectId,
    agentId: actor.agentId,
    agentName: actor.agentName,
    subAgentName: actor.subAgentName,
    sessionId: actor.sessionId,
    ticketId: loaded.ticketId,
    files,
    ...(input.estimatedSeconds !== undefined ? { estimatedSeconds: input.estimatedSeconds } : {}),
    ...(input.allowSubAgents !== undefined ? { allowSubAgents: input.allowSubAgents } : {}),
    commitSha: input.commitSha ?? null,
    now,
  };
  const result = await writeClaimAlone(ctx.db, acquire, planClaim(acquire, loaded.holders));
  const until = result.claims.map((c) => c.expiresAt).sort()[0];
  return {
    ...result,
    nextAction: {
      action: "RESUME_WORK",
      message:
        `Work on the files; log a PROGRESS entry (POST /ledger) at least every 15 minutes, re-claim before ` +
        `${until} if you need longer, and release (POST /release) or hand off when done`,
    },
  };
}

/** One statement: the budget's hit, the ticket a reference names (null when none), the live holders. */
async function loadClaim(
  ctx: ActorCtx,
  hit: RawBuilder<unknown>,
  files: string[],
  ticketRef: string | undefined,
  now: Date,
): Promise<{ count: number; ticketId: string | null; holders: Holder[] }> {
  const { projectId } = ctx.actor;
  const ticket = ticketRef ? ticketIdQuery(ctx.db, projectId, ticketRef) : null;
  const { rows } = await sql<{ count: number | string; ticket_id: string | null; holders: HolderRow[] }>`
    WITH bp AS (${hit})
    SELECT (SELECT count FROM bp) AS count, ${ticket ? sql`(${ticket})` : sql`NULL::uuid`} AS ticket_id,
      (SELECT coalesce(json_agg(h), '[]'::json) FROM (${holdersQuery(ctx.db, projectId, files, now)}) AS h)
        AS holders`.execute(ctx.db);
  const row = rows[0]!;
  return { count: Number(row.count), ticketId: row.ticket_id, holders: row.holders.map(holderOf) };
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
  fence?: number;
}

/**
 * GET /claim/check: who holds each file now (expired and past-grace claims do not count), in any letter
 * case: each file is answered under the spelling asked.
 */
export async function checkClaims(ctx: ActorCtx, filesParam: string): Promise<{ files: CheckItem[] }> {
  const checked = filesParam.split(",").map(checkPath);
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
  const holders = await liveHolders(ctx.db, ctx.actor.projectId, files, now);
  const byFile = new Map(holders.map((h) => [fileKey(h.file), h]));
  return {
    files: files.map((file) => {
      const h = byFile.get(fileKey(file));
      if (!h) return { file, available: true };
      return {
        file,
        available: false,
        claimant: identityName(h.agentName, h.subAgentName),
        isSelf: h.agentId === ctx.actor.agentId && h.subAgentName === ctx.actor.subAgentName,
        isStale: isStale(h.claimedAt, now),
        claimedAt: h.claimedAt.toISOString(),
        expiresAt: h.expiresAt.toISOString(),
        status: h.status,
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
  const { released, count } = await releaseWithBudget(ctx.db, {
    projectId: actor.projectId,
    agentId: actor.agentId,
    subAgentName: actor.subAgentName,
    sessionId: actor.sessionId,
    ...(input.all ? { all: true } : { files: input.files ?? [] }),
    now,
  }, hit);
  const refusal = backpressureRefusal("release", count ?? 0, hit.resetAt, now);
  if (refusal) throw refusal;
  return { released };
}
