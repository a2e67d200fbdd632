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
 * Appends an event to the project's feed inside the caller's transaction. The per-project sequence
 * is taken with a row lock, so sequence order is commit order and a poller never skips an event.
 * Call it last in a transaction to keep the lock short.
 */
export async function recordEvent(trx: Trx, input: EventInput): Promise<number> {
  const row = await trx.updateTable("event_cursors")
    .set({ seq: sql`seq + 1` })
    .where("project_id", "=", input.projectId)
    .returning("seq")
    .executeTakeFirst();
  let seq: number;
  if (row) {
    seq = Number(row.seq);
  } else {
    await trx.insertInto("event_cursors").values({ project_id: input.projectId, seq: 1 })
      .onConflict((oc) => oc.column("project_id").doUpdateSet({ seq: sql`event_cursors.seq + 1` }))
      .execute();
    const again = await trx.selectFrom("event_cursors").select("seq").where(
      "project_id",
      "=",
      input.projectId,
    )
      .executeTakeFirstOrThrow();
    seq = Number(again.seq);
  }
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
