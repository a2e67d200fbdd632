import type { RawBuilder } from "kysely";

/**
 * Columns a route's handler will read anyway, added to the admission statement (issue 27.1) so that the
 * call needs one round trip less. `columns` reads them by the admitted token's id (an SQL reference); the
 * handler receives the admission row and decides, exactly as with its own read, what to do with them.
 * Nothing is cached: they are read in the call's own admission statement. `name` tells the shapes of the
 * compiled statement apart.
 */
export interface Prefetch {
  name: string;
  columns(tokenId: RawBuilder<unknown>): RawBuilder<unknown>;
}
