import type { Timestamp } from "./types.ts";

/** A replacement session token (`meta.refreshedToken`) and the token it replaces. */
export interface TokenRotationsTable {
  new_token_id: string;
  old_token_id: string;
  created_at: Timestamp;
}

/** Table interfaces added by the sessions area's migration. */
export interface SessionsTables {
  token_rotations: TokenRotationsTable;
}
