import { type RawBuilder, sql } from "kysely";
import type { DbOrTrx } from "@/db/database.ts";
import { CLAIM_GRACE_MS } from "./claim-policy.ts";
import { parseEntry } from "@/shared/file-path.ts";

/**
 * The SQL of `fileKey` (src/shared/file-path.ts) over an expression: the path part folded with `lower()`,
 * a symbol after `#` kept as it is. The claims' one-holder index is on this expression (migration 0024).
 */
export function entryKeySql(value: RawBuilder<unknown>): RawBuilder<string> {
  return sql<string>`(CASE WHEN strpos(${value}, '#') = 0 THEN lower(${value})
    ELSE lower(split_part(${value}, '#', 1)) || substr(${value}, strpos(${value}, '#')) END)`;
}

/** `column` names one of `files` (entries) in any letter case of their paths (`fileKey`; `files` not empty). */
export function fileKeyIn(column: string, files: string[]): RawBuilder<boolean> {
  const col = sql.ref(column);
  return sql<boolean>`${entryKeySql(col)} IN (${sql.join(files.map((f) => entryKeySql(sql`${f}::text`)))})`;
}

/**
 * The SQL of `entriesOverlap` (src/shared/file-path.ts), the one place of it: `column` (a stored claim
 * entry) overlaps at least one of `entries` (canonical; not empty). The stored entry is taken apart in SQL
 * (`/**` ends a directory, `#` starts a symbol); paths compare under `lower()`, symbol names exactly.
 */
export function entryOverlapsSql(column: string, entries: string[]): RawBuilder<boolean> {
  const col = sql.ref(column);
  const isDir = sql`(${col} LIKE '%/**')`;
  const cp = sql`lower(CASE WHEN ${isDir} THEN left(${col}, -3) ELSE split_part(${col}, '#', 1) END)`;
  const csym = sql`(CASE WHEN NOT ${isDir} AND strpos(${col}, '#') > 0
    THEN substr(${col}, strpos(${col}, '#') + 1) END)`;
  const each = entries.map((raw) => {
    const e = parseEntry(raw);
    const p = sql`lower(${e.path}::text)`;
    // The stored entry is a directory above the entry.
    const above = sql`(${isDir} AND left(${p}, length(${cp}) + 1) = ${cp} || '/')`;
    if (e.kind === "directory") {
      return sql`(${cp} = ${p} OR left(${cp}, length(${p}) + 1) = ${p} || '/' OR ${above})`;
    }
    if (e.kind === "file") return sql`(${cp} = ${p} OR ${above})`;
    return sql`((${cp} = ${p} AND (${csym} IS NULL OR ${csym} = ${e.symbol}::text)) OR ${above})`;
  });
  return sql<boolean>`(${sql.join(each, sql` OR `)})`;
}

/** A file's current holder: a live claim (not released, not expired, not past its grace period). */
export interface Holder {
  file: string;
  claimId: string;
  agentId: string;
  agentName: string;
  subAgentName: string | null;
  sessionId: string | null;
  ticketId: string | null;
  commitSha: string | null;
  allowSubAgents: boolean;
  claimedAt: Date;
  expiresAt: Date;
  /** `grace_period` when the claiming session ended and the owner may still reconnect. */
  status: "active" | "grace_period";
  /**
   * The entry's fencing token (issue 25): kept by renewals, greater for every new grant. Always set by
   * `holderOf`; optional so that holders built elsewhere (tests, plans) need not invent one.
   */
  fence?: number;
}

/**
 * Live holders of entries that overlap any of `files` (entries; `entriesOverlap`) in the project, one row
 * per held entry, as it was spelled. Map them to a requested entry with `entriesOverlap`, not by key.
 */
export async function liveHolders(
  db: DbOrTrx,
  projectId: string,
  files: string[],
  now: Date,
): Promise<Holder[]> {
  if (files.length === 0) return [];
  const rows = await holdersQuery(db, projectId, files, now).execute();
  return rows.map(holderOf);
}

/** The query of `liveHolders` (`files` not empty), to run alone or inside another statement. */
export function holdersQuery(db: DbOrTrx, projectId: string, files: string[], now: Date) {
  const graceStart = new Date(now.getTime() - CLAIM_GRACE_MS);
  return db.selectFrom("claim_files as f")
    .innerJoin("claims as c", "c.id", "f.claim_id")
    .innerJoin("agents as a", "a.id", "c.agent_id")
    .leftJoin("sessions as s", "s.id", "c.session_id")
    .select([
      "f.file",
      "c.id as claimId",
      "c.agent_id as agentId",
      "a.name as agentName",
      "c.sub_agent_name as subAgentName",
      "c.session_id as sessionId",
      "c.ticket_id as ticketId",
      "c.commit_sha as commitSha",
      "c.allow_sub_agents as allowSubAgents",
      "c.claimed_at as claimedAt",
      "c.expires_at as expiresAt",
      "s.ended_at as sessionEndedAt",
      "f.fence",
    ])
    .where("f.project_id", "=", projectId)
    .where(entryOverlapsSql("f.file", files))
    .where("f.released_at", "is", null)
    .where("c.released_at", "is", null)
    .where("c.expires_at", ">", now)
    .where((eb) => eb.or([eb("s.ended_at", "is", null), eb("s.ended_at", ">", graceStart)]));
}

/** A row of `holdersQuery`, also as read back from JSON (times as strings). */
export interface HolderRow extends Omit<Holder, "status" | "claimedAt" | "expiresAt" | "fence"> {
  fence: number | string;
  claimedAt: Date | string;
  expiresAt: Date | string;
  sessionEndedAt: Date | string | null;
}

export function holderOf({ sessionEndedAt, claimedAt, expiresAt, fence, ...row }: HolderRow): Holder {
  return {
    ...row,
    fence: Number(fence),
    claimedAt: new Date(claimedAt),
    expiresAt: new Date(expiresAt),
    status: sessionEndedAt ? "grace_period" : "active",
  };
}

/**
 * The dead claims (expired, or whose ended session is past the grace period) that still pin an entry
 * overlapping any of `files` (not empty), released: `UPDATE ... RETURNING id, agent_id`, a CTE of the claim's statement,
 * which then releases their files so that the one-holder index frees them.
 */
export function releaseDeadQuery(db: DbOrTrx, projectId: string, files: string[], now: Date) {
  const graceStart = new Date(now.getTime() - CLAIM_GRACE_MS);
  return db.updateTable("claims")
    .set({ released_at: now })
    .where("project_id", "=", projectId)
    .where("released_at", "is", null)
    .where(
      "id",
      "in",
      (eb) =>
        eb.selectFrom("claim_files").select("claim_id").where("project_id", "=", projectId)
          .where(entryOverlapsSql("file", files)).where("released_at", "is", null),
    )
    .where((eb) =>
      eb.or([
        eb("expires_at", "<=", now),
        eb.exists(
          eb.selectFrom("sessions as s").select("s.id").whereRef("s.id", "=", "claims.session_id")
            .where("s.ended_at", "is not", null).where("s.ended_at", "<=", graceStart),
        ),
      ])
    )
    .returning(["id", "agent_id"]);
}
