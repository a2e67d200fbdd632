/** Table interfaces added by the tickets area's migration (none yet). */
// deno-lint-ignore no-empty-interface
export interface TicketsTables {}
