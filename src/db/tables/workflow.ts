/** Table interfaces added by the workflow area's migration (none yet). */
// deno-lint-ignore no-empty-interface
export interface WorkflowTables {}
