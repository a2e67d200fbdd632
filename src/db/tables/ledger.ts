import type { ColumnType } from "kysely";
import type { NullableTimestamp, Timestamp } from "./types.ts";

/** bigint columns: written as numbers, read back as strings. */
type BigIntColumn = ColumnType<string, number | string, number | string>;

/** Added by 0026_ledger_chain: the hash of each chained ledger entry. */
export interface LedgerChainTable {
  entry_seq: BigIntColumn;
  project_id: string;
  hash: string;
}

/** Added by 0026_ledger_chain: each project's chain head and what is not signed yet. */
export interface LedgerChainHeadsTable {
  project_id: string;
  seq: BigIntColumn;
  hash: string;
  unsigned: ColumnType<number, number | undefined, number>;
  /** `created_at` of the first entry not covered by a checkpoint. */
  unsigned_since: NullableTimestamp;
}

/** Added by 0026_ledger_chain: signed checkpoints `{ projectId, seq, hash, signedAt }`. */
export interface LedgerCheckpointsTable {
  project_id: string;
  seq: BigIntColumn;
  hash: string;
  signed_at: Timestamp;
  jws: string;
}

/** Table interfaces added by the ledger area's migrations. */
export interface LedgerTables {
  ledger_chain: LedgerChainTable;
  ledger_chain_heads: LedgerChainHeadsTable;
  ledger_checkpoints: LedgerCheckpointsTable;
}
