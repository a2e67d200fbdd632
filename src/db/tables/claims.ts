/** Table interfaces added by the claims area's migration (none yet). */
// deno-lint-ignore no-empty-interface
export interface ClaimsTables {}
