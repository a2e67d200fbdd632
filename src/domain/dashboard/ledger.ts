import { sql } from "kysely";
import { LEDGER_TYPES, type LedgerType } from "@/db/tables/work.ts";
import { type LedgerEntry, toLedgerEntry } from "@/domain/core/ledger-serialize.ts";
import type { ServiceCtx } from "@/domain/core/context.ts";
import type { DashboardMember } from "./access.ts";

export const LEDGER_PAGE_SIZE = 50;

export interface LedgerFeedFilters {
  type?: string | undefined;
  agentId?: string | undefined;
  /** Ticket key (`PREFIX-12`) or number. */
  ticket?: string | undefined;
  /** Include the service's own entries (`source: system`); default true. */
  system?: boolean | undefined;
  /**
   * Include the service's CONTEXT entries (claim notes, thread activity: the bulk of a busy ledger);
   * default false, true when asked or when the type filter is CONTEXT.
   */
  context?: boolean | undefined;
  /** Entries older than this sequence (keyset paging, newest first). */
  before?: string | undefined;
  ticketId?: string | undefined;
}

export type FeedEntry = LedgerEntry & { seq: string; ticketKey: string | null };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether the feed shows the service's CONTEXT entries (hidden unless asked). */
export function showsSystemContext(filters: LedgerFeedFilters): boolean {
  return filters.context === true || filters.type === "CONTEXT" || filters.ticketId !== undefined;
}

/**
 * The project's ledger as a feed, newest first, one keyset page (`before` = the last seq shown), with
 * each entry's agent name and ticket key. One query whatever the filters; unknown filter values match
 * nothing rather than failing.
 */
export async function ledgerFeed(
  ctx: ServiceCtx,
  member: DashboardMember,
  filters: LedgerFeedFilters,
  limit = LEDGER_PAGE_SIZE,
): Promise<{ entries: FeedEntry[]; nextBefore: string | null }> {
  const { project } = member;
  let q = ctx.db.selectFrom("ledger_entries as l")
    .leftJoin("agents as a", "a.id", "l.agent_id")
    .leftJoin("tickets as t", "t.id", "l.ticket_id")
    .selectAll("l").select(["a.name as agent_name", "t.number as ticket_number"])
    .where("l.project_id", "=", project.id).where("l.audit", "=", false);
  if (filters.type) {
    const known: readonly string[] = LEDGER_TYPES;
    q = known.includes(filters.type)
      ? q.where("l.type", "=", filters.type as LedgerType)
      : q.where(sql<boolean>`false`);
  }
  if (filters.agentId) {
    q = UUID.test(filters.agentId)
      ? q.where("l.agent_id", "=", filters.agentId)
      : q.where(sql<boolean>`false`);
  }
  if (filters.ticketId) q = q.where("l.ticket_id", "=", filters.ticketId);
  if (filters.ticket) {
    const m = /^(?:[A-Za-z]+-)?(\d{1,9})$/.exec(filters.ticket.trim());
    q = m ? q.where("t.number", "=", Number(m[1])) : q.where(sql<boolean>`false`);
  }
  if (filters.system === false) q = q.where("l.source", "=", "agent");
  else if (!showsSystemContext(filters)) {
    q = q.where((eb) => eb.or([eb("l.source", "=", "agent"), eb("l.type", "!=", "CONTEXT")]));
  }
  if (filters.before && /^\d{1,18}$/.test(filters.before)) q = q.where("l.seq", "<", filters.before);
  const rows = await q.orderBy("l.seq", "desc").limit(limit + 1).execute();
  const more = rows.length > limit;
  const shown = more ? rows.slice(0, limit) : rows;
  return {
    entries: shown.map((r) => ({
      ...toLedgerEntry(r),
      seq: String(r.seq),
      ticketKey: r.ticket_number === null ? null : `${project.prefix}-${r.ticket_number}`,
    })),
    nextBefore: more ? String(shown.at(-1)!.seq) : null,
  };
}
