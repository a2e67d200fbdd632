import type { ProjectSettings } from "@/db/tables/foundation.ts";
import type { LedgerFilter } from "./ledger.ts";
import {
  ceilings,
  COMPACT_LEDGER_ENTRIES,
  type ContextInput,
  DEFAULT_LEDGER_LIMIT,
  DEFAULT_UPDATES_LIMIT,
  outOfCeiling,
} from "./params.ts";
import type { ThreadStatusFilter } from "./threads.ts";

/** The page sizes and filters of one GET /context call, decided from the input and the project ceilings. */
export interface ContextLimits {
  ledgerLimit: number;
  /** Ledger entries shown: the limit, or fewer in compact mode. */
  shownLedger: number;
  threadLimit: number;
  threadStatus: ThreadStatusFilter;
  updatesLimit: number;
  filter: LedgerFilter;
}

/** CTX-006: limits above the project ceiling are refused (ledger first, then threads); defaults fit under it. */
export function contextLimits(settings: ProjectSettings, input: ContextInput): ContextLimits {
  const ceiling = ceilings(settings);
  const ledgerLimit = input.ledgerLimit ?? Math.min(DEFAULT_LEDGER_LIMIT, ceiling.ledger);
  if (ledgerLimit > ceiling.ledger) throw outOfCeiling("ledger_limit", ledgerLimit, 0, ceiling.ledger);
  const threadLimit = input.threadLimit ?? ceiling.threads;
  if (threadLimit > ceiling.threads || threadLimit < 1) {
    throw outOfCeiling("thread_limit", threadLimit, 1, ceiling.threads);
  }
  const threadStatus: ThreadStatusFilter =
    input.threadStatus === "open" || input.threadStatus === "closed" || input.threadStatus === "all"
      ? input.threadStatus
      : "open";
  const filter: LedgerFilter = {
    source: input.ledgerSource ?? (input.includeSystemLedger ? "all" : "agent"),
    includeAudit: input.includeAudit,
    ...(input.ledgerTypes?.length ? { types: input.ledgerTypes } : {}),
    ...(input.ledgerSessionId ? { sessionId: input.ledgerSessionId } : {}),
    ...(input.ledgerFileRef ? { fileRef: input.ledgerFileRef } : {}),
    ...(input.ledgerSubAgent ? { subAgent: input.ledgerSubAgent } : {}),
    ...(input.since ? { since: new Date(input.since).toISOString() } : {}),
  };
  return {
    ledgerLimit,
    shownLedger: input.compact ? Math.min(ledgerLimit, COMPACT_LEDGER_ENTRIES) : ledgerLimit,
    threadLimit,
    threadStatus,
    updatesLimit: input.updatesLimit ?? DEFAULT_UPDATES_LIMIT,
    filter,
  };
}
