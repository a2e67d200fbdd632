import type { ServiceCtx } from "@/domain/core/context.ts";
import { fail } from "@/domain/core/errors.ts";
import type { ChainEntry } from "@/shared/ledger-chain.ts";
import { advanceLedgerChains, toChainEntry } from "./chain.ts";
import { type Checkpoint, projectCheckpoints } from "./checkpoints.ts";

/** Entries per page of the operator's chain export. */
export const CHAIN_PAGE_MAX = 1000;

export interface ChainPage {
  /** Entries after `afterSeq` in `seq` order, each with the hash the chain stored for it (null: not chained yet). */
  entries: (ChainEntry & { chainHash: string | null })[];
  /** Chain hashes in this page's range whose entry no longer exists (a deleted row). */
  orphans: { seq: number; hash: string }[];
  /** `afterSeq` of the next page, null on the last. */
  nextAfterSeq: number | null;
}

async function assertProject(ctx: ServiceCtx, projectId: string): Promise<void> {
  const row = await ctx.db.selectFrom("projects").select("id").where("id", "=", projectId).executeTakeFirst();
  if (!row) throw fail.notFound(`Project "${projectId}" not found`);
}

/**
 * The operator API's export of a project's ledger for `ledger verify`: entries with their stored chain
 * hashes, and the chain rows left without an entry. The first page brings the chain up to date.
 */
export async function chainPage(
  ctx: ServiceCtx,
  projectId: string,
  afterSeq: number,
  limit: number,
): Promise<ChainPage> {
  await assertProject(ctx, projectId);
  if (afterSeq === 0) await advanceLedgerChains(ctx, projectId);
  const rows = await ctx.db.selectFrom("ledger_entries").selectAll().where("project_id", "=", projectId)
    .where("seq", ">", String(afterSeq)).orderBy("seq").limit(limit + 1).execute();
  const page = rows.slice(0, limit);
  const more = rows.length > limit;
  const last = page.at(-1);
  let hashes = ctx.db.selectFrom("ledger_chain").select(["entry_seq", "hash"])
    .where("project_id", "=", projectId).where("entry_seq", ">", String(afterSeq));
  if (more && last) hashes = hashes.where("entry_seq", "<=", last.seq);
  const stored = new Map((await hashes.execute()).map((h) => [Number(h.entry_seq), h.hash]));
  const entries = page.map((row) => {
    const entry = toChainEntry(row);
    const chainHash = stored.get(entry.seq) ?? null;
    stored.delete(entry.seq);
    return { ...entry, chainHash };
  });
  const orphans = [...stored].map(([seq, hash]) => ({ seq, hash })).sort((a, b) => a.seq - b.seq);
  return { entries, orphans, nextAfterSeq: more && last ? Number(last.seq) : null };
}

/** The operator API's list of a project's checkpoints (all of them after `afterSeq`, a page at a time). */
export async function operatorCheckpoints(
  ctx: ServiceCtx,
  projectId: string,
  afterSeq: number,
  limit: number,
): Promise<{ checkpoints: Checkpoint[]; hasMore: boolean }> {
  await assertProject(ctx, projectId);
  if (afterSeq === 0) await advanceLedgerChains(ctx, projectId);
  return await projectCheckpoints(ctx.db, projectId, afterSeq, limit);
}
