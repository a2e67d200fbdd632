import { type RawBuilder, sql } from "kysely";
import type { DbOrTrx } from "@/db/database.ts";
import { CLAIM_GRACE_MS } from "./claim-policy.ts";

/** `lower(<column>) IN (lower($1), ...)`: `column` names one of `files` in any letter case (`files` not empty). */
export function fileKeyIn(column: string, files: string[]): RawBuilder<boolean> {
  return sql<boolean>`lower(${sql.ref(column)}) IN (${sql.join(files.map((f) => sql`lower(${f})`))})`;
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

/** Live holders of `files` (in any letter case) in the project, one row per held file, as it was spelled. */
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
    .where(fileKeyIn("f.file", files))
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
 * The dead claims (expired, or whose ended session is past the grace period) that still pin any of
 * `files` (not empty), released: `UPDATE ... RETURNING id, agent_id`, a CTE of the claim's statement,
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
          .where(fileKeyIn("file", files)).where("released_at", "is", null),
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
