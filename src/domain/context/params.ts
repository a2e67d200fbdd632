import type { ProjectSettings } from "@/db/tables/foundation.ts";
import type { LedgerSourceFilter } from "@/shared/vocabulary.ts";
import type { LedgerType } from "@/db/tables/work.ts";
import type { ActorCtx } from "@/domain/core/context.ts";
import { fail } from "@/domain/core/errors.ts";

/** Service-wide maximum of each project ceiling (CTX-006); a project may set lower ones in its settings. */
export const LEDGER_CEILING_MAX = 100;
export const THREAD_CEILING_MAX = 50;
export const DEFAULT_LEDGER_LIMIT = 10;
export const DEFAULT_UPDATES_LIMIT = 20;
export const COMPACT_LEDGER_ENTRIES = 5;
export const PENDING_REVIEWS_SHOWN = 20;
/** `yourReviews`: tickets in review naming the caller, oldest first. */
export const YOUR_REVIEWS_SHOWN = 20;
/** `connectedAgents`: agents with an open session, newest first. */
export const CONNECTED_AGENTS_SHOWN = 50;
/** `openClaims`: live claimed files of the project, newest claim first. */
export const OPEN_CLAIMS_SHOWN = 200;
/** Longest-silent first; the rest are on the board. */
export const STALE_TICKETS_SHOWN = 20;

export interface ContextInput {
  compact: boolean;
  ledgerLimit?: number | undefined;
  threadLimit?: number | undefined;
  threadStatus?: string | undefined;
  updatesLimit?: number | undefined;
  since?: string | undefined;
  includeSystemLedger: boolean;
  includeAudit: boolean;
  ledgerSource?: LedgerSourceFilter | undefined;
  ledgerTypes?: LedgerType[] | undefined;
  ledgerSessionId?: string | undefined;
  ledgerFileRef?: string | undefined;
  ledgerSubAgent?: string | undefined;
  include: string[];
  expectedPlatform?: string | undefined;
  headerPlatform?: string | undefined;
  /** A `contextCursor` of an earlier answer: answer with the changed sections only (delta.ts). */
  delta?: string | undefined;
}

/** The project ceilings: settings `contextLedgerCeiling` (0..100) and `contextThreadCeiling` (1..50). */
export function ceilings(settings: ProjectSettings): { ledger: number; threads: number } {
  const pick = (value: unknown, min: number, max: number) =>
    typeof value === "number" && Number.isInteger(value) && value >= min && value <= max ? value : max;
  return {
    ledger: pick(settings.contextLedgerCeiling, 0, LEDGER_CEILING_MAX),
    threads: pick(settings.contextThreadCeiling, 1, THREAD_CEILING_MAX),
  };
}

/** CTX-017/039: the platform the caller claims must be the one recorded for its token. */
export function checkPlatform(ctx: ActorCtx, input: ContextInput): void {
  const recorded = ctx.actor.platform;
  for (const requested of [input.headerPlatform, input.expectedPlatform]) {
    if (requested === undefined || requested === "") continue;
    if (recorded === null || requested.trim().toLowerCase() !== recorded.trim().toLowerCase()) {
      throw fail.conflict(
        `This token belongs to platform "${recorded ?? "unknown"}", not "${requested}"`,
        { tokenPlatform: recorded, requestedPlatform: requested, tokenAgentName: ctx.actor.agentName },
        "IDENTITY_MISMATCH",
      );
    }
  }
}

export function outOfCeiling(field: string, value: number, min: number, max: number) {
  const message = `${field} must be between ${min} and ${max} (the project ceiling)`;
  return fail.validation(`Invalid ${field}: ${message}`, {
    target: "query",
    fields: [{ path: field, message, code: value < min ? "too_small" : "too_big" }],
    ceiling: max,
  });
}
