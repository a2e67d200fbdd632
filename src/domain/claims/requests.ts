import type { DbOrTrx } from "@/db/database.ts";
import type { ActorCtx } from "@/domain/core/context.ts";
import { DomainError } from "@/domain/core/errors.ts";
import { liveHolders } from "@/domain/core/claim-holders.ts";
import { grantWaiting, REQUEST_COLUMNS, settleQueue, waitingRequests } from "./queue.ts";
import {
  type ClaimRequestStatus,
  type ClaimRequestView,
  requestView,
  type StoredRequest,
} from "./request-view.ts";

/** The caller's stored requests (one id, or all, newest first, at most 100), any status unless filtered. */
async function ownRequests(
  db: DbOrTrx,
  ctx: ActorCtx,
  filter: { id?: string; status?: ClaimRequestStatus },
): Promise<StoredRequest[]> {
  const { actor } = ctx;
  let query = db.selectFrom("claim_requests as r").innerJoin("agents as a", "a.id", "r.agent_id")
    .select([
      ...REQUEST_COLUMNS,
      "r.status",
      "r.ended_at as endedAt",
      "r.claim_id as claimId",
    ])
    .where("r.project_id", "=", actor.projectId).where("r.agent_id", "=", actor.agentId)
    .where((eb) =>
      actor.subAgentName === null
        ? eb("r.sub_agent_name", "is", null)
        : eb("r.sub_agent_name", "=", actor.subAgentName)
    );
  if (filter.id) query = query.where("r.id", "=", filter.id);
  if (filter.status) query = query.where("r.status", "=", filter.status);
  const rows = await query.orderBy("r.seq", "desc").limit(100).execute();
  return rows.map((r) => ({
    ...r,
    seq: Number(r.seq),
    createdAt: new Date(r.createdAt),
    expiresAt: new Date(r.expiresAt),
    endedAt: r.endedAt ? new Date(r.endedAt) : null,
  }));
}

/** The views of `rows`, with positions and holders read now; a granted one lists its claim's files. */
async function viewsOf(db: DbOrTrx, ctx: ActorCtx, rows: StoredRequest[]): Promise<ClaimRequestView[]> {
  const { projectId } = ctx.actor;
  const now = ctx.clock.now();
  const waiting = rows.some((r) => r.status === "waiting") ? await waitingRequests(db, projectId) : [];
  const files = [...new Set(rows.filter((r) => r.status === "waiting").flatMap((r) => r.files))];
  const holders = await liveHolders(db, projectId, files, now);
  const claimIds = rows.flatMap((r) => r.status === "granted" && r.claimId ? [r.claimId] : []);
  const claimFiles = claimIds.length === 0 ? [] : await db.selectFrom("claim_files as f")
    .innerJoin("claims as c", "c.id", "f.claim_id")
    .select(["f.claim_id", "f.file", "f.fence", "c.claimed_at", "c.expires_at"])
    .where("f.claim_id", "in", claimIds).orderBy("f.file").execute();
  return rows.map((r) => {
    const view = requestView(r, waiting, holders);
    if (r.status !== "granted") return view;
    const claims = claimFiles.filter((f) => f.claim_id === r.claimId).map((f) => ({
      file: f.file,
      claimedAt: new Date(f.claimed_at).toISOString(),
      expiresAt: new Date(f.expires_at).toISOString(),
      fence: Number(f.fence),
    }));
    return { ...view, claims };
  });
}

/** GET /claim/requests: the caller's requests, newest first (at most 100), filtered by `status`. */
export async function listClaimRequests(
  ctx: ActorCtx,
  status: ClaimRequestStatus | undefined,
): Promise<{ requests: ClaimRequestView[] }> {
  await settleQueue(ctx.db, ctx.actor.projectId, ctx.clock.now());
  const rows = await ownRequests(ctx.db, ctx, status ? { status } : {});
  return { requests: await viewsOf(ctx.db, ctx, rows) };
}

/** GET /claim/requests/{id}: one of the caller's requests; another identity's is 404. */
export async function getClaimRequest(ctx: ActorCtx, id: string): Promise<ClaimRequestView> {
  await settleQueue(ctx.db, ctx.actor.projectId, ctx.clock.now());
  const rows = await ownRequests(ctx.db, ctx, { id });
  if (rows.length === 0) throw requestNotFound(id);
  return (await viewsOf(ctx.db, ctx, rows))[0]!;
}

/**
 * DELETE /claim/requests/{id}: cancels one of the caller's waiting requests (a cancelled one answers
 * as it is); one granted or expired is 409 CONFLICT. The cancel may free the queue for later waiters,
 * so the queue is settled in the same transaction.
 */
export async function cancelClaimRequest(ctx: ActorCtx, id: string): Promise<ClaimRequestView> {
  const { projectId } = ctx.actor;
  const now = ctx.clock.now();
  return await ctx.db.transaction().execute(async (trx) => {
    await grantWaiting(trx, projectId, now);
    const [row] = await ownRequests(trx, ctx, { id });
    if (!row) throw requestNotFound(id);
    if (row.status === "granted" || row.status === "expired") {
      throw new DomainError(
        "conflict",
        "CONFLICT",
        `Cannot cancel claim request "${id}": it is ${row.status}`,
        { status: row.status },
      );
    }
    if (row.status === "waiting") {
      await trx.updateTable("claim_requests").set({ status: "cancelled", ended_at: now })
        .where("id", "=", id).execute();
      await grantWaiting(trx, projectId, now);
    }
    return (await viewsOf(trx, ctx, [{ ...row, status: "cancelled", endedAt: row.endedAt ?? now }]))[0]!;
  });
}

function requestNotFound(id: string): DomainError {
  return new DomainError("not_found", "NOT_FOUND", `Cannot find claim request "${id}": not one of yours`);
}
