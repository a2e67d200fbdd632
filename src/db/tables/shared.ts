/** Table interfaces added by the shared area's migration (none yet). */
// deno-lint-ignore no-empty-interface
export interface SharedTables {}
