/**
 * Release requests as they are read (issue 24 point 3): the query, the "still held" test and the view.
 * Shared by the verbs (release-requests.ts) and GET /context (`releaseRequests[]`).
 */
import { sql } from "kysely";
import type { DbOrTrx } from "@/db/database.ts";
import { identityName } from "@/domain/core/actor.ts";
import { CLAIM_GRACE_MS } from "@/domain/core/claim-policy.ts";
import { RELEASE_REQUESTS_IN_CONTEXT } from "@/contracts/release-requests.ts";

export type ReleaseRequestStatus = "pending" | "released" | "declined";

/** A release request as every route answers it. */
export interface ReleaseRequestView {
  id: string;
  files: string[];
  holder: string;
  asker: string;
  message: string | null;
  status: ReleaseRequestStatus;
  /** True when the holder's claims of the files all ended before an answer (status `released`). */
  claimEnded: boolean;
  answerMessage: string | null;
  /** The files an answer `release` freed (null before it, and for `declined`). */
  releasedFiles: string[] | null;
  createdAt: string;
  answeredAt: string | null;
}

/**
 * The rows, with the names of both identities and `held`: whether any of the holder's claims named by
 * the request still holds one of its files (live: not released, not expired, not past its grace period).
 */
export function releaseRequestsQuery(db: DbOrTrx, projectId: string, now: Date) {
  return db.selectFrom("claim_release_requests as r")
    .innerJoin("agents as ha", "ha.id", "r.holder_agent_id")
    .innerJoin("agents as aa", "aa.id", "r.asker_agent_id")
    .select([
      "r.id",
      "r.asker_agent_id",
      "r.asker_sub_agent_name",
      "r.holder_agent_id",
      "r.holder_sub_agent_name",
      "r.files",
      "r.claim_ids",
      "r.message",
      "r.status",
      "r.answer_message",
      "r.released_files",
      "r.created_at",
      "r.answered_at",
      "ha.name as holder_name",
      "aa.name as asker_name",
      heldNow(now).as("held"),
    ])
    .where("r.project_id", "=", projectId);
}

/** Whether the request `r` still concerns a live claim: one of its claims holds one of its files now. */
function heldNow(now: Date) {
  const graceStart = new Date(now.getTime() - CLAIM_GRACE_MS);
  return sql<boolean>`EXISTS (
    SELECT 1 FROM claim_files AS f JOIN claims AS c ON c.id = f.claim_id
      LEFT JOIN sessions AS s ON s.id = c.session_id
    WHERE f.claim_id::text IN (SELECT jsonb_array_elements_text(r.claim_ids))
      AND lower(f.file) IN (SELECT lower(x) FROM jsonb_array_elements_text(r.files) AS x)
      AND f.released_at IS NULL AND c.released_at IS NULL AND c.expires_at > ${now}::timestamptz
      AND (s.ended_at IS NULL OR s.ended_at > ${graceStart}::timestamptz)
  )`;
}

/** A row of `releaseRequestsQuery`, also as read back through JSON (times as text). */
export interface ReleaseRequestRow {
  id: string;
  asker_agent_id: string;
  asker_sub_agent_name: string | null;
  holder_agent_id: string;
  holder_sub_agent_name: string | null;
  files: string[];
  claim_ids: string[];
  message: string | null;
  status: ReleaseRequestStatus;
  answer_message: string | null;
  released_files: string[] | null;
  created_at: Date | string;
  answered_at: Date | string | null;
  holder_name: string;
  asker_name: string;
  held: boolean;
}

/**
 * The view of a row. A pending request whose claims all ended before an answer (released, handed off,
 * expired, revoked) reads `released` with `claimEnded: true`: the files were let go, which is what the
 * asker waited for; it can no longer be answered.
 */
export function releaseRequestView(row: ReleaseRequestRow): ReleaseRequestView {
  const ended = row.status === "pending" && !row.held;
  return {
    id: row.id,
    files: row.files,
    holder: identityName(row.holder_name, row.holder_sub_agent_name),
    asker: identityName(row.asker_name, row.asker_sub_agent_name),
    message: row.message,
    status: ended ? "released" : row.status,
    claimEnded: ended,
    answerMessage: row.answer_message,
    releasedFiles: row.released_files,
    createdAt: new Date(row.created_at).toISOString(),
    answeredAt: row.answered_at === null ? null : new Date(row.answered_at).toISOString(),
  };
}

/** The pending requests addressed to one identity whose files it still holds, oldest first (at most 20). */
export function incomingPendingQuery(
  db: DbOrTrx,
  identity: { projectId: string; agentId: string; subAgentName: string | null },
  now: Date,
) {
  return releaseRequestsQuery(db, identity.projectId, now)
    .where("r.holder_agent_id", "=", identity.agentId)
    .where(sql<boolean>`r.holder_sub_agent_name IS NOT DISTINCT FROM ${identity.subAgentName}::text`)
    .where("r.status", "=", "pending")
    .where(heldNow(now))
    .orderBy("r.created_at").orderBy("r.id").limit(RELEASE_REQUESTS_IN_CONTEXT);
}
