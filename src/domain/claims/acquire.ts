import { sql } from "kysely";
import type { Trx } from "@/db/database.ts";
import { identityName } from "@/domain/core/actor.ts";
import { DomainError } from "@/domain/core/errors.ts";
import { type ClaimConflict, conflictOf } from "./conflicts.ts";
import { type Holder, liveHolders } from "@/domain/core/claim-holders.ts";
import { lockProjectClaims } from "@/domain/core/claim-lock.ts";
import { entriesOverlap, fileKey, sameFile } from "@/shared/file-path.ts";
import { type GrantedFences, writeClaim } from "./write.ts";
import { sqlState } from "@/db/errors.ts";
import { DEFAULT_CLAIM_MS } from "@/domain/core/claim-policy.ts";
import type { AcquireInput, AcquireResult, ClaimPlan, ClaimView, FileSplit } from "./types.ts";

/**
 * Claims `files` (entries: files, directories, symbols) for the caller inside the caller's transaction,
 * all or nothing: the project's claim lock first (`lockProjectClaims`: every claim write takes it, so the
 * overlap check below is exact across connections and instances), then the live holders of overlapping
 * entries, then the plan and its write (`acquireLocked`).
 */
export async function acquireClaims(trx: Trx, input: AcquireInput): Promise<AcquireResult> {
  await lockProjectClaims(trx, input.projectId);
  return await acquireLocked(
    trx,
    input,
    await liveHolders(trx, input.projectId, uniqueFiles(input), input.now),
  );
}

/**
 * The plan and write of a claim whose project claim lock `trx` holds, from `holders` read after the lock:
 * dead claims of overlapping entries are released, the caller's own live claims of the same entries
 * renewed (restored when their session ended within the grace period), entries held by the parent with
 * `allowSubAgents` inherited, and the rest inserted as one new claim. Any entry overlapped by an entry of
 * another identity refuses the whole request with 409 CONFLICT (`details.conflicts`). The write
 * (`writeClaim`) runs under a savepoint and is retried as `writeWithRetries` says (the one-holder index
 * stays a backstop).
 */
export async function acquireLocked(
  trx: Trx,
  input: AcquireInput,
  holders: Holder[],
): Promise<AcquireResult> {
  return await writeWithRetries(trx, input, planClaim(input, holders));
}

/**
 * Writes of one claim: the first, and re-planned ones after losing a file to a concurrent call. One
 * loss per concurrent claim that took a free file first: the next write renews it.
 */
const MAX_WRITES = 3;

/**
 * The guarded claim statement (`writeClaim`), which writes everything or nothing: a renewal or insert
 * lost to a concurrent call aborts it (division by zero), as does a lost lock race (deadlock, unique
 * violation). The claim is then planned again from the holders now (a new statement: under READ
 * COMMITTED it sees what the winner committed, and the lost insert waited for the winner to end): a
 * file another identity took answers its 409 naming that holder, one the caller's own concurrent claim
 * took is renewed, and one that is free again is inserted (an identity is never refused by itself); an
 * own claim released meanwhile answers CLAIM-022's 409. Under the project's claim lock another claim
 * cannot win a file meanwhile; the retries stay for the one-holder index as a backstop and for own claims
 * released meanwhile. The statement runs under a savepoint rolled back when it fails, so the transaction goes on, and the
 * failed write's locks (the event counter's included) are let go before the next: a retry never waits
 * for a lock while holding the counter, which every concurrent claim of the project waits for.
 */
async function writeWithRetries(db: Trx, input: AcquireInput, first: ClaimPlan): Promise<AcquireResult> {
  let plan = first;
  await sql`SAVEPOINT claim_write`.execute(db);
  for (let write = 1;; write++) {
    try {
      // The savepoint is not released: the transaction's end does it, one round trip fewer per claim.
      const granted = await writeClaim(db, input, plan);
      return withFences(plan, granted);
    } catch (error) {
      if (!RETRIED.has(sqlState(error) ?? "")) throw error;
      await sql`ROLLBACK TO SAVEPOINT claim_write`.execute(db);
    }
    const holders = await liveHolders(db, input.projectId, plan.files, input.now);
    const byFile = new Map(holders.map((h) => [fileKey(h.file), h]));
    const { own, free } = plan.split;
    const kept = own.filter((h) => byFile.get(fileKey(h.file))?.claimId === h.claimId).map((h) => h.claimId);
    if (kept.length !== own.length) throw raceError(own, kept, input.now);
    // Refuses with the 409 of a file another identity holds now; the caller's own become renewals.
    const next = planClaim(input, holders);
    if (write >= MAX_WRITES) throw exhausted(input, free, byFile);
    plan = next;
  }
}

/**
 * Issue 25: each entry's fence: granted by the write (new and restored rows), else the live row's (a
 * renewal keeps its own, an inherited entry shows its parent's).
 */
function withFences(plan: ClaimPlan, granted: GrantedFences): AcquireResult {
  const held = new Map([...plan.split.own, ...plan.split.inherited].map((h) => [fileKey(h.file), h.fence]));
  const claims = plan.result.claims.map((c) => {
    const fence = granted.get(fileKey(c.file)) ?? held.get(fileKey(c.file));
    return fence === undefined ? c : { ...c, fence };
  });
  return { ...plan.result, claims };
}

/**
 * Failures of the guarded statement that leave nothing written and are retried: 22012 (the guard), 23505
 * (the one-holder index refused an insert), 40P01 / 40001 (a lock race was lost).
 */
const RETRIED = new Set(["22012", "23505", "40P01", "40001"]);

/**
 * The 409 of a claim that lost every write: the files it meant to insert that are held now (by the
 * caller's own concurrent claims, named so), or raced items when none is.
 */
function exhausted(input: AcquireInput, free: string[], byFile: Map<string, Holder>): DomainError {
  const lost = free.filter((f) => byFile.has(fileKey(f)));
  if (lost.length === 0) return racedConflict(input);
  return conflictError(lost.map((file) => conflictFor(file, byFile.get(fileKey(file))!, input)));
}

/** The requested files, each once: spellings that differ only in letter case count once (the first kept). */
export function uniqueFiles(input: Pick<AcquireInput, "files">): string[] {
  const byKey = new Map<string, string>();
  for (const file of input.files) if (!byKey.has(fileKey(file))) byKey.set(fileKey(file), file);
  return [...byKey.values()];
}

/** Sorts the files by holder and refuses a conflict; the answer is known before anything is written. */
export function planClaim(input: AcquireInput, holders: Holder[]): ClaimPlan {
  const files = uniqueFiles(input);
  const expiresAt = new Date(
    input.now.getTime() + (input.estimatedSeconds ?? DEFAULT_CLAIM_MS / 1000) * 1000,
  );
  const split = splitFiles(files, holders, input);
  if (split.conflicts.length > 0) throw conflictError(split.conflicts);
  const result = acquireResult(files, split, input, expiresAt);
  return { files, split, expiresAt, result, claimId: split.free.length > 0 ? crypto.randomUUID() : null };
}

/** A 409 for files lost to a concurrent claim, without holder details. */
function racedConflict(input: AcquireInput): DomainError {
  return conflictError(uniqueFiles(input).map((file) => racedItem(file, input.now)));
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

/**
 * Sorts each requested entry by the live holders of overlapping entries (`entriesOverlap`): a conflict
 * when another identity holds one (the earliest claimed is named), else own or inherited when the caller
 * (or its parent, with `allowSubAgents`) holds the same entry, else free. An entry that only overlaps the
 * caller's own entries (a file inside a directory it holds, a symbol of a file it holds) is free: the
 * same identity may hold overlapping entries, each claimed, renewed and released on its own.
 */
export function splitFiles(files: string[], holders: Holder[], input: AcquireInput): FileSplit {
  const ordered = [...holders].sort(byClaimedAt);
  const split: FileSplit = { own: [], inherited: [], conflicts: [], free: [] };
  for (const file of files) {
    const overlapping = ordered.filter((h) => entriesOverlap(h.file, file));
    const other = overlapping.find((h) => !isSelf(h, input) && !inheritsFrom(h, input));
    const same = overlapping.find((h) => sameFile(h.file, file));
    if (other) split.conflicts.push(conflictFor(file, other, input));
    else if (!same) split.free.push(file);
    else if (isSelf(same, input)) split.own.push(same);
    else split.inherited.push(same);
  }
  return split;
}

/** Holders in the order they claimed (then by entry): the first conflicting holder is the earliest. */
export function byClaimedAt(a: Holder, b: Holder): number {
  return a.claimedAt.getTime() - b.claimedAt.getTime() || (a.file < b.file ? -1 : a.file > b.file ? 1 : 0);
}

/**
 * The 409 item of a requested file held by someone else, under the spelling requested; when the holder
 * spelled it in another letter case, the warning says so (one file either way).
 */
function conflictFor(file: string, holder: Holder, input: AcquireInput): ClaimConflict {
  const conflict = conflictOf(holder, input, input.now);
  if (holder.file === file) return conflict;
  if (!sameFile(holder.file, file)) {
    return {
      ...conflict,
      file,
      warning:
        `${conflict.warning} (${holder.file} overlaps ${file}: a directory covers everything under it, ` +
        `a file every symbol of it)`,
    };
  }
  return {
    ...conflict,
    file,
    warning:
      `${conflict.warning} (claimed as ${holder.file}: paths that differ only in letter case are one file)`,
  };
}

/**
 * The answer of a claim that wrote: each file's view in request order (a renewed claim keeps its start,
 * an inherited one its parent's times; a held file shows the spelling it was claimed under), and the flags `idempotent`+`renewed` (all files were the
 * caller's), `inherited`, `restored` (a claim of an ended session, in its grace period, came back).
 */
export function acquireResult(
  files: string[],
  split: FileSplit,
  input: AcquireInput,
  expiresAt: Date,
): AcquireResult {
  const views = new Map<string, ClaimView>();
  for (const h of split.own) views.set(fileKey(h.file), view(h.file, h.claimedAt, expiresAt));
  for (const h of split.inherited) views.set(fileKey(h.file), view(h.file, h.claimedAt, h.expiresAt));
  for (const file of split.free) views.set(fileKey(file), view(file, input.now, expiresAt));
  const result: AcquireResult = { claims: files.map((f) => views.get(fileKey(f))!) };
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
