import type { z } from "zod";
import { CHECKPOINTS_DEFAULT_LIMIT, type CheckpointsQuery } from "@/contracts/ledger-checkpoints.ts";
import type { DbOrTrx } from "@/db/database.ts";
import type { ActorCtx } from "@/domain/core/context.ts";
import { advanceLedgerChains } from "./chain.ts";

export interface Checkpoint {
  seq: number;
  hash: string;
  signedAt: string;
  jws: string;
}

/** A project's checkpoints after `afterSeq`, oldest first (`limit + 1` read to know if more follow). */
export async function projectCheckpoints(
  db: DbOrTrx,
  projectId: string,
  afterSeq: number,
  limit: number,
): Promise<{ checkpoints: Checkpoint[]; hasMore: boolean }> {
  const rows = await db.selectFrom("ledger_checkpoints").select(["seq", "hash", "signed_at", "jws"])
    .where("project_id", "=", projectId).where("seq", ">", String(afterSeq)).orderBy("seq")
    .limit(limit + 1).execute();
  return {
    checkpoints: rows.slice(0, limit).map((r) => ({
      seq: Number(r.seq),
      hash: r.hash,
      signedAt: r.signed_at.toISOString(),
      jws: r.jws,
    })),
    hasMore: rows.length > limit,
  };
}

/**
 * GET /ledger/checkpoints: the caller's project's signed checkpoints. The chain is brought up to date
 * first (a checkpoint that is due is signed now, not at the job's next run).
 */
export async function listCheckpoints(ctx: ActorCtx, input: z.output<typeof CheckpointsQuery>) {
  await advanceLedgerChains(ctx, ctx.actor.projectId);
  return await projectCheckpoints(
    ctx.db,
    ctx.actor.projectId,
    input.afterSeq ?? 0,
    input.limit ?? CHECKPOINTS_DEFAULT_LIMIT,
  );
}
