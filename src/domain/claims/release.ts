import { type RawBuilder, sql } from "kysely";
import type { DbOrTrx } from "@/db/database.ts";
import { eventCtes } from "@/domain/core/record-event.ts";
import { lockEntryTickets } from "@/domain/core/system-entry.ts";
import { fileKeyIn } from "@/domain/core/claim-holders.ts";
import { lockProjectClaims } from "@/domain/core/claim-lock.ts";
import type { Trx } from "@/db/database.ts";
import { grantWaiting } from "./queue.ts";

export interface ReleaseInput {
  projectId: string;
  agentId: string;
  /** The holding identity; omitted or null means the agent itself, not its sub-agents. */
  subAgentName?: string | null;
  /** Matches the claims of the agent and of every sub-agent of it (ignores `subAgentName`). */
  withSubAgents?: boolean;
  /** Frees every claim that includes any of these entries as claimed (same entry, `fileKey`; whole claims). */
  files?: string[];
  /**
   * With `files`: frees only those files of the matching claims (a release request's answer, issue 24);
   * the other files stay held, and a claim is released when none of its files is left.
   */
  onlyFiles?: boolean;
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
 * Nothing matches when neither `files`, `all` nor `ticketId` is given. This is the release every caller
 * shares (POST /release, handoff, approval, revocation, release requests): inside a transaction it
 * grants the wait queue's next requests in that same transaction (`releaseAndGrant`).
 */
export async function releaseClaims(db: DbOrTrx, input: ReleaseInput): Promise<string[]> {
  return (await releaseAndGrant(db, input, null)).released;
}

/**
 * `releaseWithBudget`, then, when `db` is a transaction, the wait queue's grants (`grantWaiting`) in it:
 * the project's claim lock is taken before the release, so a waiter that is being queued either sees
 * the file still held (and is granted here) or free. (Callers whose transaction writes events before
 * releasing take `lockProjectClaims` first, so locks are always taken in one order.)
 */
export async function releaseAndGrant(
  db: DbOrTrx,
  input: ReleaseInput,
  budget: ReleaseBudget | null,
): Promise<{ released: string[]; count: number | null }> {
  if (!db.isTransaction) return await releaseWithBudget(db, input, budget);
  const trx = db as Trx;
  await lockProjectClaims(trx, input.projectId);
  const result = await releaseWithBudget(trx, input, budget);
  await grantWaiting(trx, input.projectId, input.now, { locked: true });
  return result;
}

/**
 * One statement: the budget's hit (when given), the claims and their files released (only within the
 * budget), and for each holding identity (agent and sub-agent) whose released claims actively held files,
 * the `CONTEXT` entry that records its files, attributed to it, with its `ledger.appended` event; then one
 * `claim.released` event per owner (agent) that actively held files, attributed to that owner, with only
 * its claim ids and files (a release of several holders, as an approval's, never credits one holder with
 * another's files). One statement is atomic, so the release and its record are all or nothing without a
 * transaction. Answers the files (of every holder) and the budget's count.
 */
export async function releaseWithBudget(
  db: DbOrTrx,
  input: ReleaseInput,
  budget: ReleaseBudget | null,
): Promise<{ released: string[]; count: number | null }> {
  const { projectId, now } = input;
  const matches = Boolean(input.all || input.files || input.ticketId) && input.files?.length !== 0;
  const ticket = sql`${input.ticketId ?? null}::uuid`;
  const { rows } = await sql<{ files: string[]; count: number | string | null }>`WITH
    ${budget ? sql`bp AS (${budget.query}),` : sql``}
    rel AS (${claimsReleased(input, matches, budget)}),
    relf AS (
      UPDATE claim_files SET released_at = ${now}::timestamptz
      WHERE claim_id IN (SELECT id FROM rel) AND released_at IS NULL${onlyTheFiles(input)}
      RETURNING claim_id, file
    ),
    ${input.onlyFiles ? sql`emptied AS (${emptiedClaims(input)}),` : sql``}
    live AS (
      SELECT DISTINCT rel.agent_id, rel.sub_agent_name, relf.file FROM relf JOIN rel ON rel.id = relf.claim_id
      WHERE rel.expires_at > ${now}::timestamptz
    ),
    out AS (
      SELECT coalesce(jsonb_agg(d.file ORDER BY d.file COLLATE "C"), '[]'::jsonb) AS files
      FROM (SELECT DISTINCT file FROM live) AS d
    ),
    held AS MATERIALIZED (
      SELECT gen_random_uuid() AS entry_id, l.agent_id, l.sub_agent_name,
        jsonb_agg(l.file ORDER BY l.file COLLATE "C") AS files, count(*) AS n,
        coalesce(${ticket}, (SELECT r.ticket_id FROM rel AS r WHERE r.agent_id = l.agent_id
          AND r.sub_agent_name IS NOT DISTINCT FROM l.sub_agent_name ORDER BY r.id LIMIT 1)) AS ticket_id,
        row_number() OVER (ORDER BY l.agent_id, l.sub_agent_name NULLS FIRST) AS m
      FROM live AS l GROUP BY l.agent_id, l.sub_agent_name
    ),
    entry_ticket AS (${lockEntryTickets(sql`SELECT ticket_id FROM held`)}),
    entry AS (
      INSERT INTO ledger_entries
        (id, project_id, type, content, source, agent_id, sub_agent_name, session_id, ticket_id, file_ref,
         payload, created_at)
      SELECT held.entry_id, ${projectId}::uuid, 'CONTEXT', ${releasedContent()}, 'system', held.agent_id,
        held.sub_agent_name, ${sessionOf(input)}, held.ticket_id,
        CASE WHEN held.n = 1 THEN held.files ->> 0 END,
        jsonb_build_object('action', 'release', 'files', held.files), ${now}::timestamptz
      FROM held
      RETURNING id, ticket_id, agent_id
    ),
    owners AS (
      SELECT r.agent_id, jsonb_agg(r.id ORDER BY r.id) AS ids, min(r.id::text) AS first_id,
        (SELECT jsonb_agg(d.file ORDER BY d.file COLLATE "C")
          FROM (SELECT DISTINCT l.file FROM live AS l WHERE l.agent_id = r.agent_id) AS d) AS files,
        row_number() OVER (ORDER BY r.agent_id) AS m
      FROM rel AS r WHERE r.agent_id IN (SELECT agent_id FROM live) GROUP BY r.agent_id
    ),
    ${releaseEvents(projectId, now, ticket, input.onlyFiles === true)}
    SELECT out.files, ${budget ? sql`(SELECT count FROM bp)` : sql`NULL`} AS count FROM out`.execute(db);
  const row = rows[0]!;
  return { released: row.files, count: row.count === null ? null : Number(row.count) };
}

/**
 * The claims a release touches: released whole (`UPDATE ... RETURNING`), or with `onlyFiles` locked
 * and read (`emptied` releases those left without files), within the budget when one is given.
 */
function claimsReleased(input: ReleaseInput, matches: boolean, budget: ReleaseBudget | null) {
  const within = budget ? sql`AND (SELECT count FROM bp) <= ${budget.limit}` : sql``;
  const columns = sql`id, expires_at, agent_id, sub_agent_name, ticket_id`;
  if (input.onlyFiles) {
    return sql`SELECT ${columns} FROM claims WHERE ${releaseFilter(input, matches)} ${within} FOR UPDATE`;
  }
  return sql`UPDATE claims SET released_at = ${input.now}::timestamptz
      WHERE ${releaseFilter(input, matches)} ${within}
      RETURNING ${columns}`;
}

/** With `onlyFiles`: the condition that keeps the release to the named files. */
function onlyTheFiles(input: ReleaseInput): RawBuilder<unknown> {
  if (!input.onlyFiles || !input.files || input.files.length === 0) return sql``;
  return sql` AND lower(file) IN (${sql.join(input.files.map((f) => sql`lower(${f})`))})`;
}

/**
 * With `onlyFiles`: the touched claims that hold no file outside the named ones, released (the same
 * snapshot as `relf`, so "outside the named files" is what is left once `relf` has run).
 */
function emptiedClaims(input: ReleaseInput): RawBuilder<unknown> {
  const files = input.files ?? [];
  return sql`UPDATE claims SET released_at = ${input.now}::timestamptz
    WHERE id IN (SELECT id FROM rel) AND NOT EXISTS (
      SELECT 1 FROM claim_files AS f WHERE f.claim_id = claims.id AND f.released_at IS NULL
        AND lower(f.file) NOT IN (${sql.join(files.map((f) => sql`lower(${f})`))})
    ) RETURNING id`;
}

/**
 * The events of a release: each holder's `ledger.appended` (its CONTEXT entry), then one `claim.released`
 * per owner, attributed to it, with only its claims and files (CTEs over `entry`, `held` and `owners`).
 */
function releaseEvents(
  projectId: string,
  now: Date,
  ticket: RawBuilder<unknown>,
  onlyFiles = false,
): RawBuilder<unknown> {
  return eventCtes(projectId, now, [
    {
      kind: "ledger.appended",
      entityType: "ledger_entry",
      each:
        sql`SELECT e.id, e.ticket_id, e.agent_id, held.m FROM entry AS e JOIN held ON held.entry_id = e.id`,
      entityId: sql`src.id`,
      agentId: sql`src.agent_id`,
      data: sql`jsonb_build_object('type', 'CONTEXT', 'ticketId', src.ticket_id, 'source', 'system')`,
    },
    {
      kind: "claim.released",
      entityType: "claim",
      each: sql`SELECT * FROM owners`,
      entityId: sql`src.first_id`,
      agentId: sql`src.agent_id`,
      data: sql`jsonb_build_object('files', src.files, 'claimIds', src.ids, 'ticketId', ${ticket})`,
    },
  ], ["relf", "entry_ticket", ...(onlyFiles ? ["emptied"] : [])]);
}

/**
 * The session of a holder's entry: the caller's session when the holder is the caller; another holder's
 * entry (a release of any holder) names no session, never the caller's.
 */
function sessionOf(input: ReleaseInput): RawBuilder<unknown> {
  const session = sql`${input.sessionId ?? null}::uuid`;
  if (!input.anyHolder) return session;
  return sql`CASE WHEN held.agent_id = ${input.agentId}::uuid
    AND held.sub_agent_name IS NOT DISTINCT FROM ${input.subAgentName ?? null}::text THEN ${session} END`;
}

/** The claims a release matches (whole claims, live or expired, of the holder or of any holder). */
function releaseFilter(input: ReleaseInput, matches: boolean): RawBuilder<unknown> {
  const { projectId } = input;
  const where = [sql`project_id = ${projectId}::uuid`, sql`released_at IS NULL`];
  if (!matches) where.push(sql`false`);
  if (!input.anyHolder) {
    where.push(sql`agent_id = ${input.agentId}::uuid`);
    if (!input.withSubAgents) {
      where.push(sql`sub_agent_name IS NOT DISTINCT FROM ${input.subAgentName ?? null}::text`);
    }
  }
  if (input.ticketId) where.push(sql`ticket_id = ${input.ticketId}::uuid`);
  if (input.files && input.files.length > 0 && !input.all) {
    where.push(sql`id IN (
      SELECT claim_id FROM claim_files WHERE project_id = ${projectId}::uuid AND released_at IS NULL
        AND ${fileKeyIn("file", input.files)}
    )`);
  }
  return sql.join(where, sql` AND `);
}

/** The entry's content: `Released a, b` (the first five files, then `and N more`). */
function releasedContent(): RawBuilder<string> {
  const first = (limit: RawBuilder<unknown>) =>
    sql`(SELECT string_agg(f.value, ', ' ORDER BY f.ord) FROM jsonb_array_elements_text(held.files)
      WITH ORDINALITY AS f(value, ord) WHERE f.ord <= ${limit})`;
  return sql<string>`'Released ' || CASE WHEN held.n > 5
    THEN ${first(sql`5`)} || ' and ' || (held.n - 5) || ' more'
    ELSE ${first(sql`held.n`)} END`;
}
