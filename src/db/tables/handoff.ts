/** Table interfaces added by the handoff area's migration (none yet). */
// deno-lint-ignore no-empty-interface
export interface HandoffTables {}
