/** Table interfaces added by the sessions area's migration (none yet). */
// deno-lint-ignore no-empty-interface
export interface SessionsTables {}
