import type { z } from "zod";
import type { LedgerQuery } from "@/contracts/ledger.ts";
import { sql } from "kysely";
import { LEDGER_TYPES } from "@/db/tables/work.ts";
import type { LedgerType } from "@/db/tables/work.ts";
import type { ActorCtx } from "@/domain/core/context.ts";
import { type Pagination, paginationOf } from "@/domain/core/pagination.ts";
import { fail } from "@/domain/core/errors.ts";
import { findTicketId } from "@/domain/core/ticket-refs.ts";
import { type LedgerEntry, toLedgerEntry } from "@/domain/core/ledger-serialize.ts";

/** GET /ledger's query, as the route has parsed it. */
export type LedgerQueryInput = z.output<typeof LedgerQuery>;

export const DEFAULT_LEDGER_LIMIT = 50;

/** Parses the `type` comma list; any unknown type answers 400 with the valid list. */
export function parseTypes(list: string): LedgerType[] {
  const types = [...new Set(list.split(",").map((t) => t.trim()).filter((t) => t.length > 0))];
  const known: readonly string[] = LEDGER_TYPES;
  const unknown = types.filter((t) => !known.includes(t));
  if (types.length === 0 || unknown.length > 0) {
    throw fail.validation(`Unknown ledger type(s): ${unknown.join(", ") || "(empty)"}`, {
      fields: [{
        path: "type",
        message: `Unknown: ${unknown.join(", ") || "(empty)"}`,
        code: "invalid_value",
      }],
      validTypes: [...LEDGER_TYPES],
    });
  }
  return types as LedgerType[];
}

/** GET /ledger: the project's entries, filtered, offset-paginated. */
export async function listLedger(
  ctx: ActorCtx,
  q: LedgerQueryInput,
): Promise<{ entries: LedgerEntry[]; pagination: Pagination }> {
  const projectId = ctx.actor.projectId;
  const limit = q.limit ?? DEFAULT_LEDGER_LIMIT;
  const offset = q.offset ?? 0;
  const types = q.type !== undefined ? parseTypes(q.type) : null;
  const since = q.since ? new Date(q.since) : null;
  const until = q.until ? new Date(q.until) : null;
  if (since && until && since > until) {
    throw fail.validation("since is after until", {
      fields: [{ path: "since", message: "must not be after until", code: "custom" }],
    });
  }
  let ticketId: string | null = null;
  if (q.ticketId !== undefined) {
    ticketId = await findTicketId(ctx.db, projectId, q.ticketId);
    if (!ticketId) return { entries: [], pagination: paginationOf({ limit, offset }, 0, 0) };
  }

  let base = ctx.db.selectFrom("ledger_entries as l").where("l.project_id", "=", projectId);
  if (ticketId) base = base.where("l.ticket_id", "=", ticketId);
  if (types) base = base.where("l.type", "in", types);
  if (q.agentId) base = base.where("l.agent_id", "=", q.agentId.toLowerCase());
  if (q.sessionId) base = base.where("l.session_id", "=", q.sessionId.toLowerCase());
  const source = q.source ?? "all";
  if (source !== "all") base = base.where("l.source", "=", source);
  if (q.include_audit !== "true") base = base.where("l.audit", "=", false);
  if (since) base = base.where("l.created_at", ">=", since);
  if (until) base = base.where("l.created_at", "<=", until);

  const [count, rows] = await Promise.all([
    base.select(sql<number>`count(*)::int`.as("n")).executeTakeFirstOrThrow(),
    base.leftJoin("agents as a", "a.id", "l.agent_id").selectAll("l").select("a.name as agent_name")
      .orderBy("l.created_at", q.order ?? "desc").orderBy("l.seq", q.order ?? "desc")
      .limit(limit).offset(offset).execute(),
  ]);
  const total = Number(count.n);
  return {
    entries: rows.map(toLedgerEntry),
    pagination: paginationOf({ limit, offset }, rows.length, total),
  };
}
