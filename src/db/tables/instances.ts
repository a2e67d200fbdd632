import type { ColumnType } from "kysely";
import type { Json, Timestamp } from "./types.ts";

/** The test clock's shared offset (one row; see domain/maintenance/test-clock.ts). bigint reads as string. */
export interface ServiceClockTable {
  id: ColumnType<boolean, boolean | undefined, never>;
  offset_ms: ColumnType<string, string | number | undefined, string | number>;
}

/** `GET /me` bodies cached 30 seconds per token and sub-agent name ('' for none). */
export interface MeCacheTable {
  token_id: string;
  sub_agent_name: string;
  body: Json<Record<string, unknown>>;
  cached_at: Timestamp;
}

/** Tables added by migration 0012 (many instances). */
export interface InstancesTables {
  service_clock: ServiceClockTable;
  me_cache: MeCacheTable;
}
