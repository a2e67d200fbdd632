import type { z } from "zod";
import type { LedgerSourceFilter } from "@/shared/vocabulary.ts";
import type { ContextLedgerEntry as ContextLedgerEntrySchema } from "@/contracts/context.ts";
import type { DbOrTrx } from "@/db/database.ts";
import type { LedgerType } from "@/db/tables/work.ts";

/** The ledger filters of GET /context; a ledger cursor carries them so that /context/more continues alike. */
export interface LedgerFilter {
  source: LedgerSourceFilter;
  includeAudit: boolean;
  types?: LedgerType[] | undefined;
  sessionId?: string | undefined;
  fileRef?: string | undefined;
  subAgent?: string | undefined;
  /** ISO 8601: entries created after it. */
  since?: string | undefined;
}

export const DEFAULT_LEDGER_FILTER: LedgerFilter = { source: "agent", includeAudit: false };

/** A ledger entry as context lists it: the contract's shape. */
export type ContextLedgerEntry = z.infer<typeof ContextLedgerEntrySchema>;

function baseQuery(db: DbOrTrx, projectId: string) {
  return db.selectFrom("ledger_entries as l")
    .leftJoin("agents as a", "a.id", "l.agent_id")
    .select([
      "l.id",
      "l.seq",
      "l.type",
      "l.content",
      "l.source",
      "l.audit",
      "l.agent_id",
      "a.name as agent_name",
      "l.sub_agent_name",
      "l.session_id",
      "l.ticket_id",
      "l.thread_id",
      "l.file_ref",
      "l.line_ref",
      "l.labels",
      "l.payload",
      "l.severity",
      "l.created_at",
    ])
    .where("l.project_id", "=", projectId);
}

export type LedgerRow = Awaited<ReturnType<ReturnType<typeof baseQuery>["execute"]>>[number];

function serialize(r: Omit<LedgerRow, "seq">): ContextLedgerEntry {
  return {
    id: r.id,
    type: r.type,
    content: r.content,
    source: r.source,
    audit: r.audit,
    agentId: r.agent_id,
    agentName: r.agent_name,
    subAgentName: r.sub_agent_name,
    sessionId: r.session_id,
    ticketId: r.ticket_id,
    threadId: r.thread_id,
    fileRef: r.file_ref,
    lineRef: r.line_ref,
    labels: r.labels,
    payload: r.payload,
    severity: r.severity,
    createdAt: r.created_at.toISOString(),
  };
}

/**
 * One page of the ledger, newest first (by insertion sequence), after the filters, strictly before
 * `beforeSeq` when given. Returns the entries and the sequence to continue from (null at the end).
 */
export async function ledgerPage(
  db: DbOrTrx,
  projectId: string,
  filter: LedgerFilter,
  limit: number,
  beforeSeq: number | null,
): Promise<{ entries: ContextLedgerEntry[]; nextSeq: number | null }> {
  if (limit <= 0) return { entries: [], nextSeq: null };
  return ledgerPageOf(await ledgerPageQuery(db, projectId, filter, limit, beforeSeq).execute(), limit);
}

/** The rows `ledgerPage` reads (`limit` above 0): one more than the page, to know whether more follow. */
export function ledgerPageQuery(
  db: DbOrTrx,
  projectId: string,
  filter: LedgerFilter,
  limit: number,
  beforeSeq: number | null,
) {
  let q = baseQuery(db, projectId);
  if (filter.source !== "all") q = q.where("l.source", "=", filter.source);
  if (!filter.includeAudit) q = q.where("l.audit", "=", false);
  if (filter.types && filter.types.length > 0) q = q.where("l.type", "in", filter.types);
  if (filter.sessionId) q = q.where("l.session_id", "=", filter.sessionId);
  if (filter.fileRef) q = q.where("l.file_ref", "=", filter.fileRef);
  if (filter.subAgent) q = q.where("l.sub_agent_name", "=", filter.subAgent);
  if (filter.since) q = q.where("l.created_at", ">", new Date(filter.since));
  if (beforeSeq !== null) q = q.where("l.seq", "<", String(beforeSeq));
  return q.orderBy("l.seq", "desc").limit(limit + 1);
}

/** `ledgerPage` from the rows of `ledgerPageQuery` (`seq` as text from the driver, a number from JSON). */
export function ledgerPageOf(
  rows: Array<Omit<LedgerRow, "seq"> & { seq: string | number }>,
  limit: number,
): { entries: ContextLedgerEntry[]; nextSeq: number | null } {
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    entries: page.map(serialize),
    nextSeq: rows.length > limit && last ? Number(last.seq) : null,
  };
}

/**
 * The `CONTEXT` entries pinned to a ticket that nothing superseded: for each subject (file, else
 * thread, else the entry itself) only the latest entry counts. At most `limit`, newest first.
 */
export async function pinnedContextEntries(
  db: DbOrTrx,
  projectId: string,
  ticketId: string,
  limit = 10,
): Promise<ContextLedgerEntry[]> {
  return pinnedOf(await pinnedQuery(db, projectId, ticketId).execute(), limit);
}

/** The candidate rows of `pinnedContextEntries`. */
export function pinnedQuery(db: DbOrTrx, projectId: string, ticketId: string) {
  return baseQuery(db, projectId).where("l.ticket_id", "=", ticketId)
    .where("l.type", "=", "CONTEXT").orderBy("l.seq", "desc").limit(200);
}

/** `pinnedContextEntries` from the rows of `pinnedQuery`. */
export function pinnedOf(rows: LedgerRow[], limit = 10): ContextLedgerEntry[] {
  const seen = new Set<string>();
  const kept: ContextLedgerEntry[] = [];
  for (const row of rows) {
    const subject = row.file_ref ? `f:${row.file_ref}` : row.thread_id ? `t:${row.thread_id}` : `e:${row.id}`;
    if (seen.has(subject)) continue;
    seen.add(subject);
    kept.push(serialize(row));
    if (kept.length >= limit) break;
  }
  return kept;
}
