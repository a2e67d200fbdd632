/** Table interfaces added by the context area's migration (none yet). */
// deno-lint-ignore no-empty-interface
export interface ContextTables {}
