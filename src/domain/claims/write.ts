import { type RawBuilder, sql } from "kysely";
import type { DbOrTrx } from "@/db/database.ts";
import { eventCtes, type EventSql } from "@/domain/core/record-event.ts";
import { lockEntryTicket, systemEntryEvent, systemEntryRow } from "@/domain/core/system-entry.ts";
import { identityName } from "@/domain/core/actor.ts";
import type { AcquireInput, AcquireResult, ClaimPlan } from "./types.ts";
import { type Holder, releaseDeadQuery } from "@/domain/core/claim-holders.ts";
import { fileKey } from "@/shared/file-path.ts";

/** The claim's contested locks, taken before the event counter's. */
const AFTER = ["dead_files", "renewed", "refenced", "new_files", "entry_ticket"];

/** The fencing token of each file the claim granted anew (new rows, restored rows), by `fileKey`. */
export type GrantedFences = Map<string, number>;

/**
 * Every write of a claim in ONE statement (data-modifying CTEs): the dead claims of its files released
 * with their files (before the new files are inserted, so the one-holder index sees them free), the
 * caller's own claims renewed, the new claim and its files inserted in sorted order (a stable lock order),
 * the CONTEXT entry, then the events (`claim.released` of the dead claims, one per owner, `ledger.appended`,
 * `claim.acquired`) numbered last, after the contested locks. A renewal or a file lost to a concurrent
 * call aborts the statement (division by zero, SQLSTATE 22012), which leaves nothing written: the claim
 * is all or nothing by itself, and the caller plans it again (`writeWithRetries` in acquire.ts).
 */
export async function writeClaim(
  db: DbOrTrx,
  input: AcquireInput,
  plan: ClaimPlan,
): Promise<GrantedFences> {
  const { projectId, now } = input;
  const { split, files, expiresAt } = plan;
  const ownIds = [...new Set(split.own.map((h) => h.claimId))];
  const restoredIds = [...new Set(split.own.filter((h) => isRestored(h, input)).map((h) => h.claimId))];
  const free = [...split.free].sort();
  const entryId = crypto.randomUUID();
  const entry = {
    projectId,
    type: "CONTEXT" as const,
    content: describe(input, files, expiresAt, plan.result),
    agentId: input.agentId,
    subAgentName: input.subAgentName,
    sessionId: input.sessionId,
    ticketId: input.ticketId,
    fileRef: files.length === 1 ? files[0] : null,
    payload: { action: "claim", files, expiresAt: expiresAt.toISOString() },
    now,
  };
  const none = sql`SELECT NULL::uuid AS id, NULL::text AS file, NULL::bigint AS fence WHERE false`;
  const { rows } = await sql<{ ok: number; fences: { file: string; fence: number | string }[] }>`WITH
    dead AS (${releaseDeadQuery(db, projectId, files, now)}),
    dead_files AS (
      UPDATE claim_files SET released_at = ${now}::timestamptz
      WHERE claim_id IN (SELECT id FROM dead) AND released_at IS NULL RETURNING claim_id, file
    ),
    renewed AS (${ownIds.length > 0 ? renewQuery(db, input, ownIds, expiresAt) : none}),
    refenced AS (${restoredIds.length > 0 ? refenceQuery(restoredIds) : none}),
    new_claim AS (${plan.claimId ? newClaimQuery(db, input, plan.claimId, expiresAt) : none}),
    new_files AS (${plan.claimId ? newFilesQuery(projectId, plan.claimId, free) : none}),
    entry_ticket AS (${lockEntryTicket(input.ticketId)}),
    entry AS (${db.insertInto("ledger_entries").values(systemEntryRow(entryId, entry))}),
    ${eventCtes(projectId, now, claimEvents(input, plan, entryId, entry), AFTER)}
    SELECT 1 / (r.n = ${ownIds.length} AND i.n = ${free.length})::int AS ok,
      (SELECT coalesce(json_agg(json_build_object('file', g.file, 'fence', g.fence)), '[]'::json)
        FROM (SELECT file, fence FROM new_files UNION ALL SELECT file, fence FROM refenced) AS g) AS fences
    FROM (SELECT count(*) AS n FROM renewed) AS r, (SELECT count(*) AS n FROM new_files) AS i`.execute(db);
  return new Map((rows[0]?.fences ?? []).map((g) => [fileKey(g.file), Number(g.fence)]));
}

/** A restored claim (its session ended, in the grace period, now claimed from another session) is a new grant. */
function isRestored(h: Holder, input: AcquireInput): boolean {
  return h.sessionId !== input.sessionId && h.status === "grace_period";
}

/** Issue 25: a restored claim's files get new fences (a grant, not a renewal). */
function refenceQuery(claimIds: string[]): RawBuilder<unknown> {
  return sql`UPDATE claim_files SET fence = nextval('claim_fence_seq')
    WHERE claim_id IN (${sql.join(claimIds.map((id) => sql`${id}::uuid`))}) AND released_at IS NULL
    RETURNING NULL::uuid AS id, file, fence`;
}

/** The caller's own live claims, renewed (`released_at` still null: one released meanwhile is missed). */
function renewQuery(db: DbOrTrx, input: AcquireInput, ids: string[], expiresAt: Date) {
  return db.updateTable("claims")
    .set({
      expires_at: expiresAt,
      session_id: input.sessionId,
      ...(input.commitSha ? { commit_sha: input.commitSha } : {}),
      ...(input.allowSubAgents !== undefined ? { allow_sub_agents: input.allowSubAgents } : {}),
      ...(input.ticketId ? { ticket_id: input.ticketId } : {}),
    })
    .where("id", "in", ids)
    .where("released_at", "is", null)
    .returning("id");
}

function newClaimQuery(db: DbOrTrx, input: AcquireInput, claimId: string, expiresAt: Date) {
  return db.insertInto("claims").values({
    id: claimId,
    project_id: input.projectId,
    agent_id: input.agentId,
    sub_agent_name: input.subAgentName,
    session_id: input.sessionId,
    ticket_id: input.ticketId,
    commit_sha: input.commitSha ?? null,
    allow_sub_agents: input.allowSubAgents ?? false,
    claimed_at: input.now,
    expires_at: expiresAt,
  }).returning("id");
}

/**
 * The new claim's files, in sorted order, after `dead_files` has run to its end (the count joined in
 * forces it). A file the one-holder index refuses (a concurrent claim won it) is skipped, not inserted
 * (no conflict target: the index's expression is the entry key of migration 0024).
 */
function newFilesQuery(projectId: string, claimId: string, sorted: string[]): RawBuilder<unknown> {
  return sql`INSERT INTO claim_files (claim_id, project_id, file)
    SELECT ${claimId}::uuid, ${projectId}::uuid, f.file
    FROM jsonb_array_elements_text(${JSON.stringify(sorted)}::jsonb) WITH ORDINALITY AS f(file, n),
      (SELECT count(*) FROM dead_files) AS settled
    ORDER BY f.n
    ON CONFLICT DO NOTHING
    RETURNING NULL::uuid AS id, file, fence`;
}

/** The events of a claim, in order: the dead claims released (when any), the entry, the claim. */
function claimEvents(
  input: AcquireInput,
  plan: ClaimPlan,
  entryId: string,
  entry: Parameters<typeof systemEntryEvent>[1],
): EventSql[] {
  const { split } = plan;
  const appended = systemEntryEvent(entryId, entry);
  return [
    {
      // One event per owner of the dead claims, attributed to that owner (not to the caller).
      kind: "claim.released",
      entityType: "claim",
      each: sql`SELECT d.agent_id, jsonb_agg(d.id ORDER BY d.id) AS ids, min(d.id::text) AS first_id,
        row_number() OVER (ORDER BY d.agent_id) AS m FROM dead AS d GROUP BY d.agent_id`,
      entityId: sql`src.first_id`,
      agentId: sql`src.agent_id`,
      data: sql`jsonb_build_object(
        'claimIds', src.ids,
        'files', (SELECT coalesce(jsonb_agg(df.file ORDER BY df.file COLLATE "C"), '[]'::jsonb)
          FROM dead_files AS df JOIN dead AS d ON d.id = df.claim_id WHERE d.agent_id = src.agent_id),
        'reason', 'expired')`,
    },
    {
      kind: appended.kind,
      entityType: appended.entityType,
      entityId: entryId,
      agentId: appended.agentId,
      data: appended.data,
    },
    {
      kind: "claim.acquired",
      entityType: "claim",
      entityId: plan.claimId ?? split.own[0]?.claimId ?? split.inherited[0]?.claimId ?? null,
      agentId: input.agentId,
      data: {
        files: plan.files,
        subAgentName: input.subAgentName,
        ticketId: input.ticketId,
        expiresAt: plan.expiresAt.toISOString(),
        renewed: split.own.map((h) => h.file),
        inherited: split.inherited.map((h) => h.file),
      },
    },
  ];
}

/** The entry's content: who claimed, renewed or restored which files (five named), until when. */
function describe(input: AcquireInput, files: string[], expiresAt: Date, result: AcquireResult): string {
  const who = identityName(input.agentName, input.subAgentName);
  const verb = result.renewed
    ? "renewed its claim on"
    : result.restored
    ? "restored its claim on"
    : "claimed";
  const shown = files.length > 5
    ? `${files.slice(0, 5).join(", ")} and ${files.length - 5} more`
    : files.join(", ");
  return `${who} ${verb} ${shown} until ${expiresAt.toISOString()}`;
}
