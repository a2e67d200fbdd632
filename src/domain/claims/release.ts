import { type RawBuilder, sql } from "kysely";
import type { DbOrTrx } from "@/db/database.ts";
import { eventCtes } from "@/domain/events/record.ts";
import { lockEntryTicket } from "@/domain/ledger/system-entry.ts";

export interface ReleaseInput {
  projectId: string;
  agentId: string;
  /** The holding identity; omitted or null means the agent itself, not its sub-agents. */
  subAgentName?: string | null;
  /** Frees every claim that includes any of these files (whole claims). */
  files?: string[];
  /** Frees every claim of the identity (or of the ticket, with `ticketId`). */
  all?: boolean;
  /** Restricts to claims linked to this ticket (resolved id). */
  ticketId?: string;
  /** Frees matching claims of any holder (ticket approval); ignores `agentId`/`subAgentName`. */
  anyHolder?: boolean;
  sessionId?: string | null;
  now: Date;
}

/** A counter hit (`INSERT ... RETURNING count`) that the release runs first; it releases within `limit`. */
export interface ReleaseBudget {
  query: RawBuilder<unknown>;
  limit: number;
}

/**
 * Releases whole claims, in the caller's transaction or alone, and returns the files that were actively
 * held (sorted, no duplicates). Expired claims that match are released too but not reported.
 * Nothing matches when neither `files`, `all` nor `ticketId` is given.
 */
export async function releaseClaims(db: DbOrTrx, input: ReleaseInput): Promise<string[]> {
  return (await releaseWithBudget(db, input, null)).released;
}

/**
 * One statement: the budget's hit (when given), the claims and their files released (only within the
 * budget), and when any file was actively held, the `CONTEXT` entry that records it with its
 * `ledger.appended` event and the `claim.released` event. One statement is atomic, so the release and
 * its record are all or nothing without a transaction. Answers the files and the budget's count.
 */
export async function releaseWithBudget(
  db: DbOrTrx,
  input: ReleaseInput,
  budget: ReleaseBudget | null,
): Promise<{ released: string[]; count: number | null }> {
  const { projectId, now } = input;
  const matches = Boolean(input.all || input.files || input.ticketId) && input.files?.length !== 0;
  const entryId = crypto.randomUUID();
  const who = input.anyHolder
    ? { agent: sql`h.agent_id`, sub: sql`h.sub_agent_name` }
    : { agent: sql`${input.agentId}::uuid`, sub: sql`${input.subAgentName ?? null}::text` };
  const ticket = sql`coalesce(${input.ticketId ?? null}::uuid, h.ticket_id)`;
  const { rows } = await sql<{ files: string[]; count: number | string | null }>`WITH
    ${budget ? sql`bp AS (${budget.query}),` : sql``}
    rel AS (
      UPDATE claims SET released_at = ${now}::timestamptz
      WHERE ${releaseFilter(input, matches)} ${
    budget ? sql`AND (SELECT count FROM bp) <= ${budget.limit}` : sql``
  }
      RETURNING id, expires_at, agent_id, sub_agent_name, ticket_id
    ),
    relf AS (
      UPDATE claim_files SET released_at = ${now}::timestamptz
      WHERE claim_id IN (SELECT id FROM rel) AND released_at IS NULL RETURNING claim_id, file
    ),
    out AS (
      SELECT coalesce(jsonb_agg(d.file ORDER BY d.file COLLATE "C"), '[]'::jsonb) AS files, count(*) AS n
      FROM (
        SELECT DISTINCT relf.file FROM relf JOIN rel ON rel.id = relf.claim_id
        WHERE rel.expires_at > ${now}::timestamptz
      ) AS d
    ),
    h AS MATERIALIZED (SELECT * FROM rel LIMIT 1),
    entry_ticket AS (${lockEntryTicket(sql`SELECT ${ticket} FROM h`)}),
    entry AS (
      INSERT INTO ledger_entries
        (id, project_id, type, content, source, agent_id, sub_agent_name, session_id, ticket_id, file_ref,
         payload, created_at)
      SELECT ${entryId}::uuid, ${projectId}::uuid, 'CONTEXT', ${releasedContent()}, 'system', ${who.agent},
        ${who.sub}, ${input.sessionId ?? null}::uuid, ${ticket},
        CASE WHEN out.n = 1 THEN out.files ->> 0 END,
        jsonb_build_object('action', 'release', 'files', out.files), ${now}::timestamptz
      FROM out, h WHERE out.n > 0
      RETURNING id, ticket_id, agent_id
    ),
    ${
    eventCtes(projectId, now, [
      {
        kind: "ledger.appended",
        entityType: "ledger_entry",
        entityId: entryId,
        agentId: sql`(SELECT agent_id FROM entry)`,
        data:
          sql`jsonb_build_object('type', 'CONTEXT', 'ticketId', (SELECT ticket_id FROM entry), 'source', 'system')`,
        when: sql`EXISTS (SELECT 1 FROM entry)`,
      },
      {
        kind: "claim.released",
        entityType: "claim",
        entityId: sql`(SELECT id FROM h)`,
        agentId: sql`(SELECT agent_id FROM entry)`,
        data:
          sql`jsonb_build_object('files', (SELECT files FROM out), 'claimIds', (SELECT jsonb_agg(id) FROM rel),
          'ticketId', ${input.ticketId ?? null}::uuid)`,
        when: sql`EXISTS (SELECT 1 FROM entry)`,
      },
    ], ["relf", "entry_ticket"])
  }
    SELECT out.files, ${budget ? sql`(SELECT count FROM bp)` : sql`NULL`} AS count FROM out`.execute(db);
  const row = rows[0]!;
  return { released: row.files, count: row.count === null ? null : Number(row.count) };
}

/** The claims a release matches (whole claims, live or expired, of the holder or of any holder). */
function releaseFilter(input: ReleaseInput, matches: boolean): RawBuilder<unknown> {
  const { projectId } = input;
  const where = [sql`project_id = ${projectId}::uuid`, sql`released_at IS NULL`];
  if (!matches) where.push(sql`false`);
  if (!input.anyHolder) {
    where.push(sql`agent_id = ${input.agentId}::uuid`);
    where.push(sql`sub_agent_name IS NOT DISTINCT FROM ${input.subAgentName ?? null}::text`);
  }
  if (input.ticketId) where.push(sql`ticket_id = ${input.ticketId}::uuid`);
  if (input.files && input.files.length > 0 && !input.all) {
    where.push(sql`id IN (
      SELECT claim_id FROM claim_files WHERE project_id = ${projectId}::uuid AND released_at IS NULL
        AND lower(file) IN (${sql.join(input.files.map((f) => sql`lower(${f})`))})
    )`);
  }
  return sql.join(where, sql` AND `);
}

/** The entry's content: `Released a, b` (the first five files, then `and N more`). */
function releasedContent(): RawBuilder<string> {
  const first = (limit: RawBuilder<unknown>) =>
    sql`(SELECT string_agg(f.value, ', ' ORDER BY f.ord) FROM jsonb_array_elements_text(out.files)
      WITH ORDINALITY AS f(value, ord) WHERE f.ord <= ${limit})`;
  return sql<string>`'Released ' || CASE WHEN out.n > 5
    THEN ${first(sql`5`)} || ' and ' || (out.n - 5) || ' more'
    ELSE ${first(sql`out.n`)} END`;
}
