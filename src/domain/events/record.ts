import { sql } from "kysely";
import type { Trx } from "@/db/database.ts";
import { toJson } from "@/db/tables/types.ts";

export interface EventInput {
  projectId: string;
  /** Dotted kind: `ticket.created`, `ticket.moved`, `claim.acquired`, `ledger.appended`, ... */
  kind: string;
  entityType: string;
  entityId: string | null;
  agentId: string | null;
  data: Record<string, unknown>;
  now: Date;
}

/**
 * Appends an event to the project's feed inside the caller's transaction and returns its sequence.
 *
 * Why a poller of GET /events never skips or repeats an event: the per-project counter row in
 * `event_cursors` is incremented by one upsert, which takes that row's lock until the transaction
 * ends. A second writer of the same project waits for the first to commit (or roll back) before it
 * gets the next number, so sequence numbers are handed out in commit order and every committed
 * prefix 1..n is gap-free. A reader's snapshot that contains event n therefore contains 1..n-1 too,
 * and "seq > cursor ORDER BY seq" is exactly-once. A rolled-back writer releases its number (the
 * counter update rolls back with it), so no hole is left behind either.
 * Call it last in a transaction to keep the lock short.
 */
export async function recordEvent(trx: Trx, input: EventInput): Promise<number> {
  const row = await trx.insertInto("event_cursors")
    .values({ project_id: input.projectId, seq: 1 })
    .onConflict((oc) => oc.column("project_id").doUpdateSet({ seq: sql`event_cursors.seq + 1` }))
    .returning("seq")
    .executeTakeFirstOrThrow();
  const seq = Number(row.seq);
  await trx.insertInto("events").values({
    project_id: input.projectId,
    seq,
    kind: input.kind,
    entity_type: input.entityType,
    entity_id: input.entityId,
    agent_id: input.agentId,
    data: toJson(input.data),
    created_at: input.now,
  }).execute();
  return seq;
}
