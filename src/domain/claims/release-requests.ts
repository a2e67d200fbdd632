/**
 * Release requests (issue 24 point 3): an agent asks the one identity that holds some files to release
 * them; the holder answers `release` (those files are freed at once, through POST /release's code path,
 * `releaseAndGrant` with `onlyFiles`, which grants the files' waiters) or `decline`. Another agent's claim is never taken without its
 * holder: only the holder may answer.
 */
import type { ActorCtx } from "@/domain/core/context.ts";
import type { Trx } from "@/db/database.ts";
import { identityName } from "@/domain/core/actor.ts";
import { fail } from "@/domain/core/errors.ts";
import { type Holder, liveHolders } from "@/domain/core/claim-holders.ts";
import { recordEvent } from "@/domain/core/record-event.ts";
import { toJson } from "@/db/tables/types.ts";
import { fileKey } from "@/shared/file-path.ts";
import { uniqueFiles } from "./acquire.ts";
import { releaseAndGrant } from "./release.ts";
import { lockProjectClaims } from "@/domain/core/claim-lock.ts";
import {
  type ReleaseRequestRow,
  releaseRequestsQuery,
  type ReleaseRequestView,
  releaseRequestView,
} from "./release-request-rows.ts";

/** Requests a list answers (newest first). */
export const RELEASE_REQUESTS_LISTED = 100;

type Identity = { agentId: string; subAgentName: string | null };

function sameIdentity(a: Identity, agentId: string, subAgentName: string | null): boolean {
  return a.agentId === agentId && a.subAgentName === subAgentName;
}

/**
 * POST /claim/release-requests: records a request to the holder of `files`. Every file must be held now
 * by one identity other than the caller (otherwise 400 VALIDATION_ERROR naming the files).
 */
export async function requestRelease(
  ctx: ActorCtx,
  input: { files: string[]; message?: string | undefined },
): Promise<ReleaseRequestView> {
  const { actor } = ctx;
  const now = ctx.clock.now();
  const files = uniqueFiles(input);
  const holders = await liveHolders(ctx.db, actor.projectId, files, now);
  const holder = soleOtherHolder(files, holders, actor);
  const id = crypto.randomUUID();
  const holderName = identityName(holder.agentName, holder.subAgentName);
  const askerName = identityName(actor.agentName, actor.subAgentName);
  await ctx.db.transaction().execute(async (trx) => {
    await trx.insertInto("claim_release_requests").values({
      id,
      project_id: actor.projectId,
      asker_agent_id: actor.agentId,
      asker_sub_agent_name: actor.subAgentName,
      holder_agent_id: holder.agentId,
      holder_sub_agent_name: holder.subAgentName,
      files: toJson(files),
      claim_ids: toJson([...new Set(holders.map((h) => h.claimId))].sort()),
      message: input.message ?? null,
      status: "pending",
      created_at: now,
    }).execute();
    await recordEvent(trx, {
      projectId: actor.projectId,
      kind: "claim.release_requested",
      entityType: "claim_release_request",
      entityId: id,
      agentId: actor.agentId,
      data: { requestId: id, files, holder: holderName, asker: askerName },
      now,
    });
  });
  return (await readRequest(ctx, id))!;
}

/**
 * The one identity other than `me` that holds every file, or the 400 that names each file that is not
 * held, held by the caller, or held by a second identity.
 */
function soleOtherHolder(files: string[], holders: Holder[], me: Identity): Holder {
  const byFile = new Map(holders.map((h) => [fileKey(h.file), h]));
  const first = holders.find((h) => !sameIdentity(me, h.agentId, h.subAgentName));
  const problems: Array<{ path: string; message: string; code: string }> = [];
  files.forEach((file, i) => {
    const h = byFile.get(fileKey(file));
    const name = h ? identityName(h.agentName, h.subAgentName) : "";
    const message = !h
      ? `${file} is not held by anyone: claim it instead`
      : sameIdentity(me, h.agentId, h.subAgentName)
      ? `${file} is held by you`
      : first && !sameIdentity(first, h.agentId, h.subAgentName)
      ? `${file} is held by ${name}, not by ${identityName(first.agentName, first.subAgentName)}: ` +
        "ask each holder in a request of its own"
      : null;
    if (message) problems.push({ path: `files.${i}`, message, code: "custom" });
  });
  if (problems.length > 0 || !first) {
    throw fail.validation(
      `Cannot request the release of ${files.join(", ")}: the files must all be held by one other identity`,
      { fields: problems, files: problems.map((p) => files[Number(p.path.slice(6))]) },
    );
  }
  return first;
}

async function readRequest(ctx: ActorCtx, id: string): Promise<ReleaseRequestView | null> {
  const row = await releaseRequestsQuery(ctx.db, ctx.actor.projectId, ctx.clock.now())
    .where("r.id", "=", id).executeTakeFirst();
  return row ? releaseRequestView(row as ReleaseRequestRow) : null;
}

/** GET /claim/release-requests: the caller's own requests, or with `incoming` those addressed to it. */
export async function listReleaseRequests(
  ctx: ActorCtx,
  input: { incoming?: boolean | undefined },
): Promise<{ requests: ReleaseRequestView[] }> {
  const { actor } = ctx;
  const side = input.incoming ? "holder" : "asker";
  const rows = await releaseRequestsQuery(ctx.db, actor.projectId, ctx.clock.now())
    .where(`r.${side}_agent_id`, "=", actor.agentId)
    .where(`r.${side}_sub_agent_name`, actor.subAgentName === null ? "is" : "=", actor.subAgentName)
    .orderBy("r.created_at", "desc").orderBy("r.id", "desc").limit(RELEASE_REQUESTS_LISTED).execute();
  return { requests: rows.map((r) => releaseRequestView(r as ReleaseRequestRow)) };
}

/** GET /claim/release-requests/{id}: the asker or the holder reads it; anyone else gets 404. */
export async function getReleaseRequest(ctx: ActorCtx, id: string): Promise<ReleaseRequestView> {
  const row = await releaseRequestsQuery(ctx.db, ctx.actor.projectId, ctx.clock.now())
    .where("r.id", "=", id).executeTakeFirst();
  if (!row || !isParty(row as ReleaseRequestRow, ctx.actor)) throw notFound(id);
  return releaseRequestView(row as ReleaseRequestRow);
}

function isParty(row: ReleaseRequestRow, me: Identity): boolean {
  return sameIdentity(me, row.asker_agent_id, row.asker_sub_agent_name) ||
    sameIdentity(me, row.holder_agent_id, row.holder_sub_agent_name);
}

function notFound(id: string) {
  return fail.notFound(`Release request "${id}" not found`);
}

export type ReleaseAnswer = { answer: "release" | "decline"; message?: string | undefined };

/**
 * POST /claim/release-requests/{id}/answer, by the holder only (the asker: 403 FORBIDDEN; anyone else:
 * 404). `release` frees exactly the requested files of the holder's claims, at once, through the release
 * path of POST /release (which also serves the files' waiters); `decline` keeps them. One transaction:
 * the request locked, the release, the status and the `claim.release_answered` event. A request already
 * answered, or whose claims ended, is 409 CONFLICT.
 */
export async function answerReleaseRequest(
  ctx: ActorCtx,
  id: string,
  input: ReleaseAnswer,
): Promise<ReleaseRequestView> {
  const { actor } = ctx;
  const now = ctx.clock.now();
  await ctx.db.transaction().execute(async (trx) => {
    // The claim lock first (the order every claim write takes): a release grants the files' waiters.
    await lockProjectClaims(trx, actor.projectId);
    await trx.selectFrom("claim_release_requests").select("id").where("id", "=", id)
      .where("project_id", "=", actor.projectId).forUpdate().executeTakeFirst();
    const found = await releaseRequestsQuery(trx, actor.projectId, now).where("r.id", "=", id)
      .executeTakeFirst();
    const row = found as ReleaseRequestRow | undefined;
    if (!row || !isParty(row, actor)) throw notFound(id);
    if (!sameIdentity(actor, row.holder_agent_id, row.holder_sub_agent_name)) {
      throw fail.forbidden(`Cannot answer release request "${id}": only its holder may answer`);
    }
    const view = releaseRequestView(row);
    if (view.status !== "pending") {
      throw fail.conflict(
        `Cannot answer release request "${id}": it is already ${view.status}` +
          (view.claimEnded ? " (your claims of its files ended before an answer)" : ""),
        { request: view },
      );
    }
    await settle(trx, ctx, row, input, now);
  });
  return (await readRequest(ctx, id))!;
}

/** The answer's writes, in the caller's transaction: the release (when `release`), the row, the event. */
async function settle(trx: Trx, ctx: ActorCtx, row: ReleaseRequestRow, input: ReleaseAnswer, now: Date) {
  const { actor } = ctx;
  const released = input.answer === "release"
    ? (await releaseAndGrant(trx, {
      projectId: actor.projectId,
      agentId: actor.agentId,
      subAgentName: actor.subAgentName,
      sessionId: actor.sessionId,
      files: row.files,
      onlyFiles: true,
      now,
    }, null)).released
    : null;
  await trx.updateTable("claim_release_requests").set({
    status: input.answer === "release" ? "released" : "declined",
    answer_message: input.message ?? null,
    released_files: released === null ? null : toJson(released),
    answered_at: now,
  }).where("id", "=", row.id).execute();
  await recordEvent(trx, {
    projectId: actor.projectId,
    kind: "claim.release_answered",
    entityType: "claim_release_request",
    entityId: row.id,
    agentId: actor.agentId,
    data: {
      requestId: row.id,
      files: row.files,
      holder: identityName(row.holder_name, row.holder_sub_agent_name),
      asker: identityName(row.asker_name, row.asker_sub_agent_name),
      answer: input.answer,
      ...(released === null ? {} : { releasedFiles: released }),
    },
    now,
  });
}
