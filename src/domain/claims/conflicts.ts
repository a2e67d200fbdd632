import type { Recovery } from "@/domain/core/errors.ts";
import type { ClaimHoldStatus } from "@/shared/vocabulary.ts";
import type { Holder } from "@/domain/core/claim-holders.ts";
import { ageMinutes, isStale } from "@/domain/core/claim-policy.ts";
import { identityName } from "@/domain/core/actor.ts";

/** One entry of a 409 CONFLICT's `details.conflicts`. */
export interface ClaimConflict {
  file: string;
  claimantName: string;
  claimedAt: string;
  expiresAt?: string;
  claimAgeMinutes: number;
  isStale: boolean;
  /** `grace_period`: the holder's session ended and it may still reconnect and restore the claim. */
  status: ClaimHoldStatus;
  ticketId?: string | null;
  warning: string;
  recovery: Recovery;
}

interface Requester {
  agentId: string;
  subAgentName: string | null;
}

/**
 * Describes a file held by someone else. Recovery (design):
 * - `release`: the holder is the caller's own agent under another identity (the parent, one of its
 *   sub-agents, or a sibling sub-agent); that identity releases with POST /release, or the parent
 *   re-claims with allowSubAgents. The hint names that identity.
 * - `wait_or_contact`: the claim is stale (older than 10 minutes) and not in its grace period; it is
 *   never taken over, so wait for its expiry or ask the holder (open a thread) to release it.
 * - `wait`: a fresh claim, or one in its grace period; retry after `expiresAt` (or the grace period).
 */
export function conflictOf(holder: Holder, requester: Requester, now: Date): ClaimConflict {
  const name = identityName(holder.agentName, holder.subAgentName);
  const stale = isStale(holder.claimedAt, now);
  const age = ageMinutes(holder.claimedAt, now);
  const base = {
    file: holder.file,
    claimantName: name,
    claimedAt: holder.claimedAt.toISOString(),
    expiresAt: holder.expiresAt.toISOString(),
    claimAgeMinutes: age,
    isStale: stale,
    status: holder.status,
    ticketId: holder.ticketId,
  };
  if (holder.agentId === requester.agentId) return ownAgentConflict(holder, requester, base, name);
  if (holder.status === "grace_period") {
    return {
      ...base,
      warning:
        `${holder.file} is held by ${name}, whose session ended; the claim is kept for a grace period so it can reconnect`,
      recovery: {
        action: "wait",
        endpoint: "GET /claim/check",
        hint: "Wait for the grace period to end, then claim again",
        payloadHint: null,
      },
    };
  }
  if (stale) {
    return {
      ...base,
      warning:
        `${holder.file} has been held by ${name} for ${age} minutes (stale); stale claims are never taken over`,
      recovery: {
        action: "wait_or_contact",
        endpoint: "POST /thread",
        hint: `Wait until ${holder.expiresAt.toISOString()} or ask ${name} to release the file`,
        payloadHint: { intent: `Please release ${holder.file}`, expectedFiles: [holder.file] },
      },
    };
  }
  return {
    ...base,
    warning: `${holder.file} is held by ${name} (claimed ${age} minutes ago)`,
    recovery: {
      action: "wait",
      endpoint: "GET /claim/check",
      hint: `Wait until ${holder.expiresAt.toISOString()} or until ${name} releases it, then claim again`,
      payloadHint: null,
    },
  };
}

/**
 * A file held by the caller's own agent under another identity, named as it is. (The caller's own
 * identity is never a conflict: a concurrent claim of its own is renewed, see `acquireLocked`; the
 * last branch only answers a claim that kept losing that race.)
 */
function ownAgentConflict(
  holder: Holder,
  requester: Requester,
  base: Omit<ClaimConflict, "warning" | "recovery">,
  name: string,
): ClaimConflict {
  const file = holder.file;
  const payloadHint = { files: [file] };
  if (holder.subAgentName === requester.subAgentName) {
    return {
      ...base,
      warning: `${file} was claimed by your own concurrent request (${name}) at the same moment`,
      recovery: { action: "wait", endpoint: "POST /claim", hint: "Claim the files again", payloadHint },
    };
  }
  const hint = holder.subAgentName === null
    ? `Your parent agent ${name} holds ${file} without allowSubAgents: it should release it, or re-claim it with allowSubAgents: true`
    : requester.subAgentName === null
    ? `Your sub-agent ${name} holds ${file}: release it with the sub-agent's credentials`
    : `Your sibling sub-agent ${name} holds ${file}: it should release it (POST /release with its credentials)`;
  return {
    ...base,
    warning: `${file} is held by ${name}, another identity of your own agent`,
    recovery: { action: "release", endpoint: "POST /release", hint, payloadHint },
  };
}
