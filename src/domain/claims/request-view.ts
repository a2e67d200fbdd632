import type { Holder } from "@/domain/core/claim-holders.ts";
import { identityName } from "@/domain/core/actor.ts";
import { entriesOverlap } from "@/shared/file-path.ts";
import { identityKey, type QueuedRequest } from "./queue.ts";

export type ClaimRequestStatus = "waiting" | "granted" | "expired" | "cancelled";

/** A claim request as the API answers it (`data.request` of POST /claim's 202, GET /claim/requests/{id}). */
export interface ClaimRequestView {
  id: string;
  files: string[];
  status: ClaimRequestStatus;
  position: Record<string, number>;
  holders: Record<string, string>;
  createdAt: string;
  expiresAt: string;
  grantedAt?: string;
  endedAt?: string;
  claims?: Array<{ file: string; claimedAt: string; expiresAt: string }>;
}

/** A stored request with its outcome (`status` waiting until granted, expired or cancelled). */
export interface StoredRequest extends QueuedRequest {
  status: ClaimRequestStatus;
  endedAt: Date | null;
  claimId: string | null;
}

/**
 * The view of `r`: for a waiting request, `position` (for each file that is held by another identity or
 * has earlier waiters, the number of waiting requests ahead of it, 0 = next) and `holders` (each held
 * file's claimant); `waiting` is the project's waiting requests, `holders` the live holders (entries compared by the overlap rule).
 */
export function requestView(
  r: QueuedRequest & { status?: ClaimRequestStatus; endedAt?: Date | null },
  waiting: QueuedRequest[],
  holders: Holder[],
): ClaimRequestView {
  const status = r.status ?? "waiting";
  const position: Record<string, number> = {};
  const held: Record<string, string> = {};
  if (status === "waiting") {
    for (const file of r.files) {
      const ahead = waiting.filter((w) => w.seq < r.seq && w.files.some((f) => entriesOverlap(f, file)));
      const other = holders.find((h) => entriesOverlap(h.file, file) && identityKey(h) !== identityKey(r));
      if (other) held[file] = identityName(other.agentName, other.subAgentName);
      if (other || ahead.length > 0) position[file] = ahead.length;
    }
  }
  const view: ClaimRequestView = {
    id: r.id,
    files: r.files,
    status,
    position,
    holders: held,
    createdAt: r.createdAt.toISOString(),
    expiresAt: r.expiresAt.toISOString(),
  };
  if (r.endedAt) {
    if (status === "granted") view.grantedAt = r.endedAt.toISOString();
    else view.endedAt = r.endedAt.toISOString();
  }
  return view;
}
