import type { Kysely } from "kysely";
import { runStatements } from "./run-statements.ts";

/**
 * The ledger's hash chain and its signed checkpoints (issue 26.5). The chain is kept beside the ledger,
 * never in it: `ledger_entries` stays append-only and its write path unchanged; a background job hashes
 * new entries in `seq` order per project (`ledger_chain`), keeps each project's head
 * (`ledger_chain_heads`), and signs checkpoints (`ledger_checkpoints`).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, [
    `CREATE TABLE ledger_chain (
      entry_seq bigint PRIMARY KEY,
      project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      hash text NOT NULL
    )`,
    `CREATE INDEX ledger_chain_project_idx ON ledger_chain (project_id, entry_seq)`,
    `CREATE TABLE ledger_chain_heads (
      project_id uuid PRIMARY KEY REFERENCES projects(id) ON DELETE CASCADE,
      seq bigint NOT NULL,
      hash text NOT NULL,
      unsigned integer NOT NULL DEFAULT 0,
      unsigned_since timestamptz
    )`,
    `CREATE TABLE ledger_checkpoints (
      project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      seq bigint NOT NULL,
      hash text NOT NULL,
      signed_at timestamptz NOT NULL,
      jws text NOT NULL,
      PRIMARY KEY (project_id, seq)
    )`,
  ]);
}
