import type { Generated } from "./types.ts";

/** Folded counts per project (migration 0028): kind `ticket`/`pickable` by status, `thread` by status. */
export interface ProjectCountsTable {
  project_id: string;
  kind: string;
  key: string;
  /** bigint: read through `sum(...)::int` casts. */
  n: string | number;
}

/** Changes to the counts since the last fold, written by triggers on tickets and threads. */
export interface ProjectCountDeltasTable {
  id: Generated<string>;
  project_id: string;
  kind: string;
  key: string;
  d: string | number;
}

export interface CountsTables {
  project_counts: ProjectCountsTable;
  project_count_deltas: ProjectCountDeltasTable;
}
