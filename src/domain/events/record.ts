import { sql } from "kysely";
import type { OperationNodeSource } from "kysely";
import type { DbOrTrx, Trx } from "@/db/database.ts";
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

/**
 * One statement: `write` (an INSERT or UPDATE with RETURNING) and, when it wrote a row, the event it
 * causes, numbered as `recordEvent` numbers it. A single statement is atomic and holds the cursor row's
 * lock until it commits, so the exactly-once argument above holds unchanged; it saves the transaction's
 * BEGIN, COMMIT and two round trips. Answers the written row (undefined when `write` wrote nothing, in
 * which case no event is recorded either).
 */
export async function writeWithEvent<Row>(
  db: DbOrTrx,
  write: OperationNodeSource,
  input: EventInput,
): Promise<Row | undefined> {
  const result = await sql<Row>`WITH w AS (${write}),
    cur AS (
      INSERT INTO event_cursors (project_id, seq) SELECT ${input.projectId}::uuid, 1 FROM w LIMIT 1
      ON CONFLICT (project_id) DO UPDATE SET seq = event_cursors.seq + 1 RETURNING seq
    ),
    ev AS (
      INSERT INTO events (project_id, seq, kind, entity_type, entity_id, agent_id, data, created_at)
      SELECT ${input.projectId}::uuid, cur.seq, ${input.kind}::text, ${input.entityType}::text,
        ${input.entityId}::text, ${input.agentId}::uuid, ${toJson(input.data)}::jsonb,
        ${input.now}::timestamptz
      FROM cur RETURNING seq
    )
    SELECT w.* FROM w`.execute(db);
  return result.rows[0];
}
