import type { ActorCtx } from "@/domain/shared/context.ts";

/**
 * LEDGER_STALE gate, run before every mutating call except ledger writes.
 * Throws 429 LEDGER_STALE when the caller holds an active claim or in-progress ticket and has been
 * silent in the ledger longer than the project's threshold. (Implemented by the work-loop area.)
 */
export async function assertLedgerFresh(_ctx: ActorCtx): Promise<void> {
  // Filled in by the work-loop issue.
}
