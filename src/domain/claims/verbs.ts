import type { ActorCtx } from "@/domain/shared/context.ts";
import { fail } from "@/domain/shared/errors.ts";
import { checkPath } from "@/shared/file-path.ts";
import { resolveTicketRef } from "@/domain/tickets/refs.ts";
import { assertBackpressure, backpressureHit, backpressureRefusal } from "@/domain/ledger/backpressure.ts";
import { acquireClaims, type AcquireResult } from "./acquire.ts";
import { liveHolders } from "./holders.ts";
import { isStale, MAX_CLAIM_FILES } from "./policy.ts";
import { identityName } from "@/domain/shared/actor.ts";
import { releaseWithBudget } from "./release.ts";

export interface ClaimRequest {
  files: string[];
  ticketId?: string | undefined;
  estimatedSeconds?: number | undefined;
  allowSubAgents?: boolean | undefined;
  commitSha?: string | undefined;
}

/** POST /claim: claims files for the caller (all or nothing), with the per-agent claim budget. */
export async function claimFiles(
  ctx: ActorCtx,
  input: ClaimRequest,
): Promise<AcquireResult & { nextAction: { action: string; message: string } }> {
  const { actor } = ctx;
  const now = ctx.clock.now();
  await assertBackpressure(ctx.db, actor, "claim", now);
  const ticketId = input.ticketId ? await resolveTicketRef(ctx.db, actor.projectId, input.ticketId) : null;
  const result = await ctx.db.transaction().execute((trx) =>
    acquireClaims(trx, {
      projectId: actor.projectId,
      agentId: actor.agentId,
      agentName: actor.agentName,
      subAgentName: actor.subAgentName,
      sessionId: actor.sessionId,
      ticketId,
      files: input.files,
      ...(input.estimatedSeconds !== undefined ? { estimatedSeconds: input.estimatedSeconds } : {}),
      ...(input.allowSubAgents !== undefined ? { allowSubAgents: input.allowSubAgents } : {}),
      commitSha: input.commitSha ?? null,
      now,
    })
  );
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

export interface CheckItem {
  file: string;
  available: boolean;
  claimant?: string;
  isSelf?: boolean;
  isStale?: boolean;
  claimedAt?: string;
  expiresAt?: string;
  status?: "active" | "grace_period";
}

/** GET /claim/check: who holds each file now (expired and past-grace claims do not count). */
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
  const byFile = new Map(holders.map((h) => [h.file, h]));
  return {
    files: files.map((file) => {
      const h = byFile.get(file);
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
