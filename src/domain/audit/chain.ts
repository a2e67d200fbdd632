import { CompactSign } from "jose";
import { sql } from "kysely";
import type { Db, Trx } from "@/db/database.ts";
import { sqlState } from "@/db/errors.ts";
import type { LedgerEntriesTable } from "@/db/tables/work.ts";
import type { ServiceCtx } from "@/domain/core/context.ts";
import { currentSigningKey, SIGNING_ALG } from "@/domain/oauth/keys.ts";
import {
  type ChainEntry,
  chainHash,
  CHECKPOINT_JWS_TYPE,
  type CheckpointClaims,
  GENESIS_HASH,
} from "@/shared/ledger-chain.ts";
import type { Selectable } from "kysely";

/** A checkpoint is signed after this many new entries of a project... */
export const CHECKPOINT_EVERY_ENTRIES = 100;
/** ...or once the oldest entry it would cover is this old (minutes), whichever comes first. */
export const CHECKPOINT_EVERY_MINUTES = 10;
/** Entries hashed per transaction. */
const BATCH = 500;
/** How long the job waits for in-flight ledger writes before leaving new entries to its next run. */
const HORIZON_LOCK_TIMEOUT_MS = 200;

type EntryRow = Selectable<LedgerEntriesTable>;
type Signer = (claims: CheckpointClaims) => Promise<string>;

/** A ledger row as the chain (and the operator API) sees it. */
export function toChainEntry(row: EntryRow): ChainEntry {
  return {
    id: row.id,
    seq: Number(row.seq),
    projectId: row.project_id,
    type: row.type,
    content: row.content,
    source: row.source,
    audit: row.audit,
    agentId: row.agent_id,
    subAgentName: row.sub_agent_name,
    sessionId: row.session_id,
    ticketId: row.ticket_id,
    threadId: row.thread_id,
    fileRef: row.file_ref,
    lineRef: row.line_ref,
    labels: row.labels,
    payload: row.payload,
    severity: row.severity,
    tokensUsed: row.tokens_used,
    activity: row.activity,
    envHealth: row.env_health,
    blockedByFile: row.blocked_by_file,
    createdAt: row.created_at.toISOString(),
  };
}

/**
 * The highest ledger `seq` below which no entry can still appear. `seq` is taken when a row is inserted
 * but becomes visible at commit, so a later seq may commit first: a SHARE lock waits (at most
 * HORIZON_LOCK_TIMEOUT_MS, else null: try again next run) until every transaction writing the ledger has
 * ended, and the maximum read under it is final. The lock is held for that one read; the write path
 * itself is unchanged.
 */
async function chainHorizon(db: Db): Promise<number | null> {
  try {
    return await db.transaction().execute(async (trx) => {
      await sql.raw(`SET LOCAL lock_timeout = '${HORIZON_LOCK_TIMEOUT_MS}ms'`).execute(trx);
      await sql`LOCK TABLE ledger_entries IN SHARE MODE`.execute(trx);
      const row = await trx.selectFrom("ledger_entries").select((eb) => eb.fn.max("seq").as("m"))
        .executeTakeFirst();
      return Number(row?.m ?? 0);
    });
  } catch (err) {
    if (sqlState(err) === "55P03") return null;
    throw err;
  }
}

/**
 * Projects with entries to chain up to `horizon`, or whose unsigned entries are due for a checkpoint; the
 * furthest behind first, so a run's budget goes to the oldest work.
 */
async function projectsToChain(db: Db, horizon: number, dueBefore: Date, only?: string): Promise<string[]> {
  const rows = await sql<{ id: string }>`
    SELECT p.id FROM projects p LEFT JOIN ledger_chain_heads h ON h.project_id = p.id
    WHERE (${only ?? null}::uuid IS NULL OR p.id = ${only ?? null}::uuid)
      AND (EXISTS (SELECT 1 FROM ledger_entries e WHERE e.project_id = p.id
                   AND e.seq > coalesce(h.seq, 0) AND e.seq <= ${horizon})
        OR (h.unsigned > 0 AND h.unsigned_since <= ${dueBefore}))
    ORDER BY coalesce(h.seq, 0), p.id`.execute(db);
  return rows.rows.map((r) => r.id);
}

/** A signer of checkpoints with the service's current signing key (read once, outside transactions). */
async function checkpointSigner(ctx: ServiceCtx): Promise<Signer> {
  const { kid, key } = await currentSigningKey(ctx);
  return async (claims) =>
    await new CompactSign(new TextEncoder().encode(JSON.stringify(claims)))
      .setProtectedHeader({ alg: SIGNING_ALG, kid, typ: CHECKPOINT_JWS_TYPE })
      .sign(key);
}

interface HeadState {
  seq: number;
  hash: string;
  unsigned: number;
  since: Date | null;
}

/**
 * Hashes the next batch of one project's entries (up to `horizon`) and signs the checkpoints that fall
 * due, in one transaction. The head row is locked with SKIP LOCKED: another instance busy with the
 * project leaves it alone. Returns whether more entries may wait.
 */
async function chainBatch(ctx: ServiceCtx, projectId: string, horizon: number, sign: Signer) {
  const now = ctx.clock.now();
  return await ctx.db.transaction().execute(async (trx) => {
    await trx.insertInto("ledger_chain_heads").values({ project_id: projectId, seq: 0, hash: GENESIS_HASH })
      .onConflict((oc) => oc.column("project_id").doNothing()).execute();
    const head = await trx.selectFrom("ledger_chain_heads").selectAll().where("project_id", "=", projectId)
      .forUpdate().skipLocked().executeTakeFirst();
    if (!head) return false;
    const rows = await trx.selectFrom("ledger_entries").selectAll().where("project_id", "=", projectId)
      .where("seq", ">", head.seq).where("seq", "<=", String(horizon)).orderBy("seq").limit(BATCH).execute();
    const state: HeadState = {
      seq: Number(head.seq),
      hash: head.hash,
      unsigned: head.unsigned,
      since: head.unsigned_since,
    };
    const chained: { entry_seq: number; project_id: string; hash: string }[] = [];
    const checkpoints: CheckpointClaims[] = [];
    const checkpoint = () => {
      checkpoints.push({ projectId, seq: state.seq, hash: state.hash, signedAt: now.toISOString() });
      state.unsigned = 0;
      state.since = null;
    };
    for (const row of rows) {
      state.hash = await chainHash(state.hash, toChainEntry(row));
      state.seq = Number(row.seq);
      chained.push({ entry_seq: state.seq, project_id: projectId, hash: state.hash });
      state.since ??= row.created_at;
      if (++state.unsigned >= CHECKPOINT_EVERY_ENTRIES) checkpoint();
    }
    const due = now.getTime() - CHECKPOINT_EVERY_MINUTES * 60_000;
    if (state.unsigned > 0 && state.since && state.since.getTime() <= due) checkpoint();
    await saveBatch(trx, projectId, state, chained, checkpoints, sign);
    return rows.length === BATCH;
  });
}

async function saveBatch(
  trx: Trx,
  projectId: string,
  state: HeadState,
  chained: { entry_seq: number; project_id: string; hash: string }[],
  checkpoints: CheckpointClaims[],
  sign: Signer,
): Promise<void> {
  if (chained.length > 0) await trx.insertInto("ledger_chain").values(chained).execute();
  for (const claims of checkpoints) {
    await trx.insertInto("ledger_checkpoints").values({
      project_id: projectId,
      seq: claims.seq,
      hash: claims.hash,
      signed_at: new Date(claims.signedAt),
      jws: await sign(claims),
    }).execute();
  }
  await trx.updateTable("ledger_chain_heads").set({
    seq: state.seq,
    hash: state.hash,
    unsigned: state.unsigned,
    unsigned_since: state.since,
  }).where("project_id", "=", projectId).execute();
}

/** Batches one run hashes at most (a large backlog, such as the ledger before the chain existed, takes
 * several runs, so a run never holds up the worker's other duties or a shutdown for long). */
export const CHAIN_BATCHES_PER_RUN = 20;

/**
 * The background job of the ledger chain (run by src/worker.ts, and by the reads that serve checkpoints
 * when they observe work is due): hashes every project's new entries in `seq` order and signs the
 * checkpoints that are due. `only` limits it to one project. Returns the number of batches run.
 */
export async function advanceLedgerChains(ctx: ServiceCtx, only?: string): Promise<number> {
  const dueBefore = new Date(ctx.clock.now().getTime() - CHECKPOINT_EVERY_MINUTES * 60_000);
  // Nothing new anywhere (the common case of a poll): no lock taken at all.
  if ((await projectsToChain(ctx.db, Number.MAX_SAFE_INTEGER, dueBefore, only)).length === 0) return 0;
  const horizon = await chainHorizon(ctx.db) ?? 0;
  const projects = await projectsToChain(ctx.db, horizon, dueBefore, only);
  if (projects.length === 0) return 0;
  const sign = await checkpointSigner(ctx);
  let batches = 0;
  for (const projectId of projects) {
    let more = true;
    while (more && batches < CHAIN_BATCHES_PER_RUN) {
      more = await chainBatch(ctx, projectId, horizon, sign);
      batches++;
    }
  }
  return batches;
}
