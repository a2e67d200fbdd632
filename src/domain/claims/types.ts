/**
 * The types of a claim shared by its plan (acquire.ts) and its write (write.ts), in a file of their own
 * so that the two import each other one way only (issue 23 point 1).
 */
import type { Holder } from "@/domain/core/claim-holders.ts";
import type { ClaimConflict } from "./conflicts.ts";

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

/** What a claim writes, decided from the live holders of its files. */
export interface ClaimPlan {
  files: string[];
  split: FileSplit;
  expiresAt: Date;
  result: AcquireResult;
  /** The new claim's id, when some files are free. */
  claimId: string | null;
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
