import { type RawBuilder, sql } from "kysely";
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
 * causes, numbered as `recordEvent` numbers it (`eventCtes`). A single statement is atomic and holds the
 * cursor row's lock until it commits, so the exactly-once argument above holds unchanged; it saves the
 * transaction's BEGIN, COMMIT and two round trips. `ctes` come before the write (it may read them);
 * `after` names those whose row locks must be taken before the cursor's. Answers the written row
 * (undefined when `write` wrote nothing, in which case no event is recorded either).
 */
export async function writeWithEvent<Row>(
  db: DbOrTrx,
  write: OperationNodeSource | RawBuilder<unknown>,
  input: EventInput,
  options: { ctes?: RawBuilder<unknown>; after?: string[] } = {},
): Promise<Row | undefined> {
  const event: EventSql = {
    kind: input.kind,
    entityType: input.entityType,
    entityId: input.entityId,
    agentId: input.agentId,
    data: input.data,
    when: sql`EXISTS (SELECT 1 FROM w)`,
  };
  const result = await sql<Row>`WITH ${options.ctes ? sql`${options.ctes},` : sql``} w AS (${write}),
    ${eventCtes(input.projectId, input.now, [event], ["w", ...(options.after ?? [])])}
    SELECT w.* FROM w`.execute(db);
  return result.rows[0];
}

/** One event of a statement that writes several (`eventCtes`); a field may be an SQL expression. */
export interface EventSql {
  kind: string;
  entityType: string;
  entityId: string | null | RawBuilder<unknown>;
  agentId: string | null | RawBuilder<unknown>;
  /** A JSON object, or a jsonb expression. */
  data: Record<string, unknown> | RawBuilder<unknown>;
  /** Written only when this holds (default: always). */
  when?: RawBuilder<unknown>;
  /**
   * One event per row of this query instead of one (none when it has no rows): the fields may read its
   * columns as `src.<column>`; its column `m` orders the events among themselves.
   */
  each?: RawBuilder<unknown>;
}

/**
 * The CTEs `ev_in`, `cur` and `ev` of a statement that records `events` (in this order, the ones whose
 * `when` holds), numbered as `recordEvent` numbers them: one upsert of the project's counter row by the
 * number of events, so the statement holds that row's lock until it commits and the exactly-once
 * argument above holds unchanged. `after` names the statement's CTEs whose writes must finish first:
 * the counter row is locked last (after the contested row locks), as `recordEvent` asks. Put them after
 * those CTEs: `WITH a AS (...), ${eventCtes(...)} SELECT ...`.
 */
export function eventCtes(
  projectId: string,
  now: Date,
  events: EventSql[],
  after: string[],
): RawBuilder<unknown> {
  const value = (v: string | null | RawBuilder<unknown>) =>
    typeof v === "string" || v === null ? sql`${v}` : v;
  const rows = events.map((e, i) =>
    sql`SELECT ${i + 1}::int AS n, ${e.each ? sql`src.m` : sql`0`}::bigint AS m, ${e.kind}::text AS kind,
      ${e.entityType}::text AS entity_type, (${value(e.entityId)})::text AS entity_id,
      (${value(e.agentId)})::uuid AS agent_id, ${
      isRaw(e.data) ? e.data : sql`${toJson(e.data)}`
    }::jsonb AS data
      ${e.each ? sql`FROM (${e.each}) AS src` : sql``} WHERE ${e.when ?? sql`true`}`
  );
  const settled = after.map((name) =>
    sql`, (SELECT count(*) FROM ${sql.ref(name)}) AS ${sql.ref(`${name}_done`)}`
  );
  return sql`ev_in AS (${sql.join(rows, sql` UNION ALL `)}),
    cur AS (
      INSERT INTO event_cursors (project_id, seq)
      SELECT ${projectId}::uuid, t.total FROM (SELECT count(*) AS total FROM ev_in) AS t ${
    settled.length > 0 ? sql.join(settled, sql``) : sql``
  }
      WHERE t.total > 0
      ON CONFLICT (project_id) DO UPDATE SET seq = event_cursors.seq + excluded.seq RETURNING seq
    ),
    ev AS (
      INSERT INTO events (project_id, seq, kind, entity_type, entity_id, agent_id, data, created_at)
      SELECT ${projectId}::uuid, cur.seq - e.total + e.k, e.kind, e.entity_type, e.entity_id, e.agent_id, e.data,
        ${now}::timestamptz
      FROM (SELECT ev_in.*, row_number() OVER (ORDER BY n, m) AS k, count(*) OVER () AS total FROM ev_in) AS e, cur
      RETURNING seq
    )`;
}

function isRaw(v: unknown): v is RawBuilder<unknown> {
  return typeof v === "object" && v !== null && "toOperationNode" in v;
}
