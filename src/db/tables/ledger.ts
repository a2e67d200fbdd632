/** Table interfaces added by the ledger area's migration (none yet). */
// deno-lint-ignore no-empty-interface
export interface LedgerTables {}
