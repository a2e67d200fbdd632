import { sql } from "kysely";
import type { DbOrTrx } from "@/db/database.ts";

/**
 * Serialises the claim writes of one project that cannot be made exact by a unique index alone (wait
 * queues, deadlock checks, directory and symbol entries): a transaction-scoped advisory lock keyed by the
 * project, held until the caller's transaction ends. Call it first inside `db.transaction()`, before any
 * read that decides the write; every writer that must see the others' result takes the same lock, so two
 * instances on one PostgreSQL serialise too. PGlite has one connection and serialises anyway.
 */
export async function lockProjectClaims(trx: DbOrTrx, projectId: string): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(hashtextextended(${"claims:" + projectId}, 0))`.execute(trx);
}
