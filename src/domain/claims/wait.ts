import type { DbOrTrx, Trx } from "@/db/database.ts";
import { DomainError, recovery } from "@/domain/core/errors.ts";
import { type Holder, liveHolders } from "@/domain/core/claim-holders.ts";
import { toJson } from "@/db/tables/types.ts";
import { entriesOverlap, fileKey } from "@/shared/file-path.ts";
import { acquireClaims, conflictError, splitFiles } from "./acquire.ts";
import { refuseDeadlock } from "./deadlock.ts";
import { grantWaiting, identityKey, type QueuedRequest, requestName, waitingRequests } from "./queue.ts";
import type { AcquireInput, AcquireResult } from "./types.ts";
import { type ClaimRequestView, requestView } from "./request-view.ts";

/** Waiting requests per identity (an agent or one sub-agent) at a time (issue 24 point 2). */
export const MAX_WAITING_PER_AGENT = 5;
/** Waiting requests per file at a time. */
export const MAX_WAITING_PER_FILE = 50;

export type ClaimOrWait =
  | { claimed: AcquireResult }
  | { request: ClaimRequestView };

/**
 * `POST /claim` with `waitSeconds`, in the caller's transaction under the project's claim lock: settles the
 * queue (`grantWaiting`), then claims at once when every file is free of other holders and of other
 * waiters, or else records a waiting request (limits, then the deadlock check) that the service grants
 * later. Answers either the claim or the request.
 */
export async function claimOrWait(trx: Trx, input: AcquireInput, waitSeconds: number): Promise<ClaimOrWait> {
  await grantWaiting(trx, input.projectId, input.now, { locked: true });
  const waiting = await waitingRequests(trx, input.projectId);
  const me = identityKey(input);
  const queued = waiting.filter((r) =>
    identityKey(r) !== me && r.files.some((f) => input.files.some((file) => entriesOverlap(f, file)))
  );
  const files = [...new Set([...input.files, ...waiting.flatMap((r) => r.files)])];
  const live = await liveHolders(trx, input.projectId, files, input.now);
  const mine = live.filter((h) => input.files.some((f) => entriesOverlap(h.file, f)));
  const split = splitFiles(input.files, mine, input);
  if (split.conflicts.length === 0 && queued.length === 0) {
    return { claimed: await acquireClaims(trx, input) };
  }
  refuseOverLimit(input, waiting);
  refuseDeadlock(input, waiting, live);
  const row = await insertRequest(trx, input, waitSeconds);
  return { request: requestView(row, [...waiting, row], live) };
}

/** `409 QUEUE_FULL`: the identity already waits 5 times, or a file has 50 waiting requests. */
function refuseOverLimit(input: AcquireInput, waiting: QueuedRequest[]): void {
  const mine = waiting.filter((r) => identityKey(r) === identityKey(input)).length;
  const full = input.files.filter((file) =>
    waiting.filter((r) => r.files.some((f) => fileKey(f) === fileKey(file))).length >= MAX_WAITING_PER_FILE
  );
  if (mine < MAX_WAITING_PER_AGENT && full.length === 0) return;
  const byAgent = mine >= MAX_WAITING_PER_AGENT;
  throw new DomainError(
    "conflict",
    "QUEUE_FULL",
    byAgent
      ? `Cannot wait for ${
        input.files.join(", ")
      }: you already have ${mine} waiting requests (at most ${MAX_WAITING_PER_AGENT})`
      : `Cannot wait for ${full.join(", ")}: ${MAX_WAITING_PER_FILE} requests already wait for it`,
    {
      limit: byAgent ? MAX_WAITING_PER_AGENT : MAX_WAITING_PER_FILE,
      scope: byAgent ? "agent" : "file",
      ...(byAgent ? {} : { files: full }),
      recovery: recovery(
        "RETRY_LATER",
        byAgent ? "GET /claim/requests" : "GET /claim/check",
        byAgent
          ? "Wait for one of your requests to be granted or cancel one (DELETE /claim/requests/{id}), then retry"
          : "Retry once the queue is shorter (GET /claim/check shows it)",
      ),
    },
  );
}

async function insertRequest(trx: Trx, input: AcquireInput, waitSeconds: number): Promise<QueuedRequest> {
  const id = crypto.randomUUID();
  const expiresAt = new Date(input.now.getTime() + waitSeconds * 1000);
  const row = await trx.insertInto("claim_requests").values({
    id,
    project_id: input.projectId,
    agent_id: input.agentId,
    sub_agent_name: input.subAgentName,
    session_id: input.sessionId,
    ticket_id: input.ticketId,
    files: toJson(input.files),
    estimated_seconds: input.estimatedSeconds ?? null,
    allow_sub_agents: input.allowSubAgents ?? null,
    commit_sha: input.commitSha ?? null,
    created_at: input.now,
    expires_at: expiresAt,
  }).returning("seq").executeTakeFirstOrThrow();
  return {
    id,
    seq: Number(row.seq),
    agentId: input.agentId,
    agentName: input.agentName,
    agentStatus: "active",
    subAgentName: input.subAgentName,
    sessionId: input.sessionId,
    ticketId: input.ticketId,
    files: input.files,
    estimatedSeconds: input.estimatedSeconds ?? null,
    allowSubAgents: input.allowSubAgents ?? null,
    commitSha: input.commitSha ?? null,
    createdAt: input.now,
    expiresAt,
  };
}

/**
 * Waiting requests of other identities that want an entry overlapping each of `files`, keyed by that
 * file's `fileKey`: POST /claim's queue check.
 */
export async function queueOnFiles(
  db: DbOrTrx,
  projectId: string,
  who: { agentId: string; subAgentName: string | null },
  files: string[],
): Promise<Map<string, QueuedRequest[]>> {
  const byFile = new Map<string, QueuedRequest[]>();
  for (const r of await waitingRequests(db, projectId)) {
    if (identityKey(r) === identityKey(who)) continue;
    for (const file of files) {
      if (!r.files.some((f) => entriesOverlap(f, file))) continue;
      byFile.set(fileKey(file), [...(byFile.get(fileKey(file)) ?? []), r]);
    }
  }
  return byFile;
}

/**
 * The 409 CONFLICT of a claim without `waitSeconds` on files other agents wait for: today's conflicts
 * (files held by others) plus one item per free file with waiters (named for the first waiter), and
 * `details.queue.waiting` (the waiting requests on the contested files).
 */
export function queuedConflict(
  input: AcquireInput,
  holders: Holder[],
  queue: Map<string, QueuedRequest[]>,
): DomainError {
  const split = splitFiles(input.files, holders, input);
  const held = new Set(split.conflicts.map((c) => fileKey(c.file)));
  const queuedItems = input.files.filter((f) => !held.has(fileKey(f)) && queue.has(fileKey(f))).map(
    (file) => {
      const first = queue.get(fileKey(file))![0]!;
      const waiting = queue.get(fileKey(file))!.length;
      return {
        file,
        claimantName: requestName(first),
        claimedAt: first.createdAt.toISOString(),
        claimAgeMinutes: 0,
        isStale: false,
        status: "active" as const,
        warning:
          `${file} is free, but ${waiting} earlier request(s) wait for it; it is granted to them first`,
        recovery: {
          action: "wait" as const,
          endpoint: "POST /claim",
          hint: "Claim again with waitSeconds to join the queue; the service grants it to you in turn",
          payloadHint: { files: [file], waitSeconds: 600 },
        },
      };
    },
  );
  const base = conflictError([...split.conflicts, ...queuedItems]);
  const ids = new Set([...queue.values()].flat().map((r) => r.id));
  return new DomainError(base.kind, base.code, base.message, {
    ...base.details,
    queue: { waiting: ids.size },
  });
}

/**
 * Fair order for claims made outside POST /claim (POST /begin): refuses files other identities wait for
 * with the 409 CONFLICT of `queuedConflict` (nothing when no one waits for them).
 */
export async function refuseQueued(db: DbOrTrx, input: AcquireInput): Promise<void> {
  const queue = await queueOnFiles(db, input.projectId, input, input.files);
  if (queue.size === 0) return;
  throw queuedConflict(input, await liveHolders(db, input.projectId, input.files, input.now), queue);
}
