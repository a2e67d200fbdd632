import type { Trx } from "@/db/database.ts";
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

async function acquire(trx: Trx, input: AcquireInput): Promise<AcquireResult> {
  const { projectId, now } = input;
  const files = [...new Set(input.files)];
  const expiresAt = new Date(now.getTime() + (input.estimatedSeconds ?? DEFAULT_CLAIM_MS / 1000) * 1000);

  const expiredEvent = await releaseDeadClaims(trx, projectId, files, now);
  const holders = await liveHolders(trx, projectId, files, now);
  const byFile = new Map(holders.map((h) => [h.file, h]));

  const own: Holder[] = [];
  const inherited: Holder[] = [];
  const conflicts: ClaimConflict[] = [];
  const free: string[] = [];
  for (const file of files) {
    const holder = byFile.get(file);
    if (!holder) free.push(file);
    else if (isSelf(holder, input)) own.push(holder);
    else if (inheritsFrom(holder, input)) inherited.push(holder);
    else conflicts.push(conflictOf(holder, input, now));
  }
  if (conflicts.length > 0) throw conflictError(conflicts);

  const views = new Map<string, ClaimView>();
  const restored = own.some((h) => h.sessionId !== input.sessionId && h.status === "grace_period");
  const ownClaimIds = [...new Set(own.map((h) => h.claimId))];
  if (ownClaimIds.length > 0) {
    const renewed = await trx.updateTable("claims")
      .set({
        expires_at: expiresAt,
        session_id: input.sessionId,
        ...(input.commitSha ? { commit_sha: input.commitSha } : {}),
        ...(input.allowSubAgents !== undefined ? { allow_sub_agents: input.allowSubAgents } : {}),
        ...(input.ticketId ? { ticket_id: input.ticketId } : {}),
      })
      .where("id", "in", ownClaimIds)
      .where("released_at", "is", null)
      .returning("id")
      .execute();
    if (renewed.length !== ownClaimIds.length) throw raceError(own, renewed.map((r) => r.id), now);
    for (const h of own) views.set(h.file, view(h.file, h.claimedAt, expiresAt));
  }
  for (const h of inherited) views.set(h.file, view(h.file, h.claimedAt, h.expiresAt));

  let claimId: string | null = null;
  if (free.length > 0) {
    claimId = crypto.randomUUID();
    await trx.insertInto("claims").values({
      id: claimId,
      project_id: projectId,
      agent_id: input.agentId,
      sub_agent_name: input.subAgentName,
      session_id: input.sessionId,
      ticket_id: input.ticketId,
      commit_sha: input.commitSha ?? null,
      allow_sub_agents: input.allowSubAgents ?? false,
      claimed_at: now,
      expires_at: expiresAt,
    }).execute();
    await insertFiles(trx, claimId, free, input);
    for (const file of free) views.set(file, view(file, now, expiresAt));
  }

  const result: AcquireResult = { claims: files.map((f) => views.get(f)!) };
  if (own.length === files.length) {
    result.idempotent = true;
    result.renewed = true;
  }
  if (inherited.length > 0) result.inherited = true;
  if (restored) result.restored = true;

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
    entityId: claimId ?? ownClaimIds[0] ?? inherited[0]?.claimId ?? null,
    agentId: input.agentId,
    data: {
      files,
      subAgentName: input.subAgentName,
      ticketId: input.ticketId,
      expiresAt: expiresAt.toISOString(),
      renewed: own.map((h) => h.file),
      inherited: inherited.map((h) => h.file),
    },
    now,
  });
  return result;
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
    409,
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
    claimantName: h.subAgentName ? `${h.agentName}/${h.subAgentName}` : h.agentName,
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
  const who = input.subAgentName ? `${input.agentName}/${input.subAgentName}` : input.agentName;
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
