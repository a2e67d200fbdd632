/**
 * The types of a claim shared by its plan (acquire.ts) and its write (write.ts), in a file of their own
 * so that the two import each other one way only (issue 23 point 1).
 */
import type { z } from "zod";
import type { ClaimData, ClaimItem } from "@/contracts/claims.ts";
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

/** A claim as POST /claim shows it. */
export type ClaimView = z.output<typeof ClaimItem>;

/** What acquiring answers: POST /claim's `data` before its nextAction is added. */
export type AcquireResult = Omit<z.output<typeof ClaimData>, "nextAction">;

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
