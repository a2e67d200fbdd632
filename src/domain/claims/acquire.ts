import type { Trx } from "@/db/database.ts";
import { identityName } from "@/domain/shared/actor.ts";
import { recordEvent } from "@/domain/events/record.ts";
import { writeSystemEntry } from "@/domain/ledger/system-entry.ts";
import { DomainError } from "@/domain/shared/errors.ts";
import { type ClaimConflict, conflictOf } from "./conflicts.ts";
import { type Holder, liveHolders, releaseDeadClaims } from "./holders.ts";
import { sqlState } from "@/db/errors.ts";
import { DEFAULT_CLAIM_MS } from "./policy.ts";

export interface AcquireInput {
  projectId: string;
  agentId: string;
  agentName: string;
  subAgentName: string | null;
  sessionId: string | null;
  /** Resolved ticket id (UUID), not a key. */
  ticketId: string | null;
  files: string[];
  estimatedSeconds?: number;
  allowSubAgents?: boolean;
  commitSha?: string | null;
  now: Date;
}

export interface ClaimView {
  file: string;
  claimedAt: string;
  expiresAt: string;
}

export interface AcquireResult {
  claims: ClaimView[];
  idempotent?: true;
  renewed?: true;
  inherited?: true;
  restored?: true;
}

/**
 * Claims `files` for the caller inside the caller's transaction, all or nothing:
 * dead claims of those files are released, the caller's own live claims renewed (restored when
 * their session ended within the grace period), files held by the parent with `allowSubAgents`
 * inherited, and the rest inserted as one new claim. Any file held by another identity refuses the
 * whole request with 409 CONFLICT (`details.conflicts`), including a concurrent insert that wins the
 * one-holder index and a renewal that races a release.
 */
export async function acquireClaims(trx: Trx, input: AcquireInput): Promise<AcquireResult> {
  try {
    return await acquire(trx, input);
  } catch (error) {
    // 23505: the one-holder index refused a concurrent insert; 40P01 / 40001: a concurrent claim or
    // release won a lock race. The transaction is aborted, so the holder cannot be read back.
    const state = sqlState(error);
    if (state === "23505" || state === "40P01" || state === "40001") throw racedConflict(input);
    throw error;
  }
}

/** A 409 for files lost to a concurrent claim, without holder details. */
function racedConflict(input: AcquireInput): DomainError {
  return conflictError([...new Set(input.files)].map((file) => racedItem(file, input.now)));
}

function racedItem(file: string, now: Date): ClaimConflict {
  return {
    file,
    claimantName: "another agent",
    claimedAt: now.toISOString(),
    claimAgeMinutes: 0,
    isStale: false,
    status: "active",
    warning: `${file} was claimed or released by another agent at the same moment`,
    recovery: {
      action: "wait",
      endpoint: "GET /claim/check",
      hint: "Check who holds the file, then retry the claim",
      payloadHint: null,
    },
  };
}

/** The files of one claim request, sorted by who holds them now. */
export interface FileSplit {
  /** Held by the caller itself: renewed. */
  own: Holder[];
  /** Held by the caller's parent agent, which allows sub-agents: worked under. */
  inherited: Holder[];
  /** Held by anyone else: the whole request is refused. */
  conflicts: ClaimConflict[];
  /** Held by nobody: claimed anew. */
  free: string[];
}

/** Sorts each requested file by its live holder (own, inherited, conflict or free). */
export function splitFiles(files: string[], holders: Holder[], input: AcquireInput): FileSplit {
  const byFile = new Map(holders.map((h) => [h.file, h]));
  const split: FileSplit = { own: [], inherited: [], conflicts: [], free: [] };
  for (const file of files) {
    const holder = byFile.get(file);
    if (!holder) split.free.push(file);
    else if (isSelf(holder, input)) split.own.push(holder);
    else if (inheritsFrom(holder, input)) split.inherited.push(holder);
    else split.conflicts.push(conflictOf(holder, input, input.now));
  }
  return split;
}

/**
 * The answer of a claim that wrote: each file's view in request order (a renewed claim keeps its start,
 * an inherited one its parent's times), and the flags `idempotent`+`renewed` (all files were the
 * caller's), `inherited`, `restored` (a claim of an ended session, in its grace period, came back).
 */
export function acquireResult(
  files: string[],
  split: FileSplit,
  input: AcquireInput,
  expiresAt: Date,
): AcquireResult {
  const views = new Map<string, ClaimView>();
  for (const h of split.own) views.set(h.file, view(h.file, h.claimedAt, expiresAt));
  for (const h of split.inherited) views.set(h.file, view(h.file, h.claimedAt, h.expiresAt));
  for (const file of split.free) views.set(file, view(file, input.now, expiresAt));
  const result: AcquireResult = { claims: files.map((f) => views.get(f)!) };
  if (split.own.length === files.length) {
    result.idempotent = true;
    result.renewed = true;
  }
  if (split.inherited.length > 0) result.inherited = true;
  if (split.own.some((h) => h.sessionId !== input.sessionId && h.status === "grace_period")) {
    result.restored = true;
  }
  return result;
}

async function acquire(trx: Trx, input: AcquireInput): Promise<AcquireResult> {
  const { projectId, now } = input;
  const files = [...new Set(input.files)];
  const expiresAt = new Date(now.getTime() + (input.estimatedSeconds ?? DEFAULT_CLAIM_MS / 1000) * 1000);

  const expiredEvent = await releaseDeadClaims(trx, projectId, files, now);
  const split = splitFiles(files, await liveHolders(trx, projectId, files, now), input);
  if (split.conflicts.length > 0) throw conflictError(split.conflicts);
  const ownClaimIds = await renewOwn(trx, split.own, input, expiresAt);
  const claimId = await insertClaim(trx, split.free, input, expiresAt);
  const result = acquireResult(files, split, input, expiresAt);

  if (expiredEvent) await recordEvent(trx, expiredEvent);
  await writeSystemEntry(trx, {
    projectId,
    type: "CONTEXT",
    content: describe(input, files, expiresAt, result),
    agentId: input.agentId,
    subAgentName: input.subAgentName,
    sessionId: input.sessionId,
    ticketId: input.ticketId,
    fileRef: files.length === 1 ? files[0] : null,
    payload: { action: "claim", files, expiresAt: expiresAt.toISOString() },
    now,
  });
  await recordEvent(trx, {
    projectId,
    kind: "claim.acquired",
    entityType: "claim",
    entityId: claimId ?? ownClaimIds[0] ?? split.inherited[0]?.claimId ?? null,
    agentId: input.agentId,
    data: {
      files,
      subAgentName: input.subAgentName,
      ticketId: input.ticketId,
      expiresAt: expiresAt.toISOString(),
      renewed: split.own.map((h) => h.file),
      inherited: split.inherited.map((h) => h.file),
    },
    now,
  });
  return result;
}

/** Renews the caller's own live claims; one released meanwhile is a 409. Returns the claim ids. */
async function renewOwn(trx: Trx, own: Holder[], input: AcquireInput, expiresAt: Date): Promise<string[]> {
  const ids = [...new Set(own.map((h) => h.claimId))];
  if (ids.length === 0) return ids;
  const renewed = await trx.updateTable("claims")
    .set({
      expires_at: expiresAt,
      session_id: input.sessionId,
      ...(input.commitSha ? { commit_sha: input.commitSha } : {}),
      ...(input.allowSubAgents !== undefined ? { allow_sub_agents: input.allowSubAgents } : {}),
      ...(input.ticketId ? { ticket_id: input.ticketId } : {}),
    })
    .where("id", "in", ids)
    .where("released_at", "is", null)
    .returning("id")
    .execute();
  if (renewed.length !== ids.length) throw raceError(own, renewed.map((r) => r.id), input.now);
  return ids;
}

/** One new claim for the free files, or null when there are none. */
async function insertClaim(
  trx: Trx,
  free: string[],
  input: AcquireInput,
  expiresAt: Date,
): Promise<string | null> {
  if (free.length === 0) return null;
  const claimId = crypto.randomUUID();
  await trx.insertInto("claims").values({
    id: claimId,
    project_id: input.projectId,
    agent_id: input.agentId,
    sub_agent_name: input.subAgentName,
    session_id: input.sessionId,
    ticket_id: input.ticketId,
    commit_sha: input.commitSha ?? null,
    allow_sub_agents: input.allowSubAgents ?? false,
    claimed_at: input.now,
    expires_at: expiresAt,
  }).execute();
  await insertFiles(trx, claimId, free, input);
  return claimId;
}

/**
 * Inserts the claim's files in sorted order (a stable lock order, so two overlapping claims cannot
 * deadlock). A file the one-holder index refuses was won by a concurrent claim: that is a 409.
 */
async function insertFiles(trx: Trx, claimId: string, files: string[], input: AcquireInput): Promise<void> {
  const sorted = [...files].sort();
  const inserted = await trx.insertInto("claim_files")
    .values(sorted.map((file) => ({ claim_id: claimId, project_id: input.projectId, file })))
    .onConflict((oc) => oc.columns(["project_id", "file"]).where("released_at", "is", null).doNothing())
    .returning("file")
    .execute();
  if (inserted.length === files.length) return;
  const got = new Set(inserted.map((r) => r.file));
  const lost = files.filter((f) => !got.has(f));
  const holders = await liveHolders(trx, input.projectId, lost, input.now);
  const byFile = new Map(holders.map((h) => [h.file, h]));
  throw conflictError(lost.map((file) => {
    const holder = byFile.get(file);
    return holder ? conflictOf(holder, input, input.now) : racedItem(file, input.now);
  }));
}

function isSelf(h: Holder, input: AcquireInput): boolean {
  return h.agentId === input.agentId && h.subAgentName === input.subAgentName;
}

/** A sub-agent works under its parent's claim when the parent allowed sub-agents. */
function inheritsFrom(h: Holder, input: AcquireInput): boolean {
  return h.agentId === input.agentId && h.subAgentName === null && input.subAgentName !== null &&
    h.allowSubAgents;
}

function view(file: string, claimedAt: Date, expiresAt: Date): ClaimView {
  return { file, claimedAt: claimedAt.toISOString(), expiresAt: expiresAt.toISOString() };
}

export function conflictError(conflicts: ClaimConflict[]): DomainError {
  const names = [...new Set(conflicts.map((c) => c.claimantName))].join(", ");
  return new DomainError(
    "conflict",
    "CONFLICT",
    `Cannot claim ${conflicts.map((c) => c.file).join(", ")}: held by ${names}. Nothing was claimed.`,
    { conflicts },
  );
}

function raceError(own: Holder[], renewedIds: string[], now: Date): DomainError {
  const kept = new Set(renewedIds);
  const lost = own.filter((h) => !kept.has(h.claimId));
  return conflictError(lost.map((h) => ({
    file: h.file,
    claimantName: identityName(h.agentName, h.subAgentName),
    claimedAt: h.claimedAt.toISOString(),
    claimAgeMinutes: Math.floor((now.getTime() - h.claimedAt.getTime()) / 60_000),
    isStale: false,
    status: "active" as const,
    warning: `Your claim on ${h.file} was released while it was being renewed`,
    recovery: {
      action: "wait",
      endpoint: "POST /claim",
      hint: "The claim was released concurrently; claim the file again",
      payloadHint: { files: [h.file] },
    },
  })));
}

function describe(input: AcquireInput, files: string[], expiresAt: Date, result: AcquireResult): string {
  const who = identityName(input.agentName, input.subAgentName);
  const verb = result.renewed
    ? "renewed its claim on"
    : result.restored
    ? "restored its claim on"
    : "claimed";
  const shown = files.length > 5
    ? `${files.slice(0, 5).join(", ")} and ${files.length - 5} more`
    : files.join(", ");
  return `${who} ${verb} ${shown} until ${expiresAt.toISOString()}`;
}
