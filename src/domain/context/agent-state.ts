import { sql } from "kysely";
import type { DbOrTrx } from "@/db/database.ts";
import { SKILL_DOCUMENT } from "@/domain/pairing/pairing-context.ts";

let skill: Promise<string> | null = null;

/** Opaque version of the skill document: changes whenever its text does (CTX-030). */
export function skillVersion(): Promise<string> {
  skill ??= crypto.subtle.digest("SHA-256", new TextEncoder().encode(SKILL_DOCUMENT)).then((d) =>
    "skill-" + Array.from(new Uint8Array(d).slice(0, 6), (b) => b.toString(16).padStart(2, "0")).join("")
  );
  return skill;
}

export interface PreviousState {
  briefVersionSeen: number;
  skillVersionSeen: string | null;
  calls: number;
}

interface PreviousRow {
  brief_version_seen: number;
  skill_version_seen: string | null;
  context_calls: number;
}

/**
 * Records this context call and returns what the caller had seen before it, in one statement: the
 * CTE reads the previous row in the statement's snapshot, before the upsert changes it.
 */
export async function recordContextCall(
  db: DbOrTrx,
  input: {
    agentId: string;
    subAgentName: string | null;
    projectId: string;
    briefVersion: number;
    skillVersion: string;
    now: Date;
  },
): Promise<PreviousState> {
  const sub = input.subAgentName ?? "";
  const result = await sql<PreviousRow>`
    WITH prev AS (
      SELECT brief_version_seen, skill_version_seen, context_calls FROM agent_context_state
      WHERE agent_id = ${input.agentId} AND sub_agent_name = ${sub}
    ), upsert AS (
      INSERT INTO agent_context_state (agent_id, sub_agent_name, project_id, first_context_at, last_context_at,
        context_calls, brief_version_seen, skill_version_seen)
      VALUES (${input.agentId}, ${sub}, ${input.projectId}, ${input.now}, ${input.now}, 1, ${input.briefVersion},
        ${input.skillVersion})
      ON CONFLICT (agent_id, sub_agent_name) DO UPDATE SET last_context_at = EXCLUDED.last_context_at,
        context_calls = agent_context_state.context_calls + 1,
        brief_version_seen = EXCLUDED.brief_version_seen, skill_version_seen = EXCLUDED.skill_version_seen
      RETURNING 1
    )
    SELECT prev.* FROM prev, (SELECT count(*) FROM upsert) AS done`.execute(db);
  const before = result.rows[0];
  return {
    briefVersionSeen: before?.brief_version_seen ?? 0,
    skillVersionSeen: before?.skill_version_seen ?? null,
    calls: before?.context_calls ?? 0,
  };
}

export interface DeliveredNotification {
  id: string;
  kind: string;
  content: string;
  thread_id: string | null;
  message_id: string | null;
  created_at: Date;
}

/**
 * Marks the caller's newest `limit` unread notifications read and returns them (newest first), in one
 * statement; SKIP LOCKED keeps two concurrent context calls from delivering the same notification twice.
 */
export async function deliverNotifications(
  db: DbOrTrx,
  agentId: string,
  limit: number,
  now: Date,
): Promise<DeliveredNotification[]> {
  if (limit <= 0) return [];
  const result = await sql<DeliveredNotification>`
    UPDATE notifications SET read_at = ${now}
    WHERE id IN (
      SELECT id FROM notifications WHERE recipient_agent_id = ${agentId} AND read_at IS NULL
      ORDER BY created_at DESC, id LIMIT ${limit} FOR UPDATE SKIP LOCKED
    )
    RETURNING id, kind, content, thread_id, message_id, created_at`.execute(db);
  return result.rows
    .map((r) => ({ ...r, created_at: new Date(r.created_at) }))
    .sort((a, b) => b.created_at.getTime() - a.created_at.getTime() || a.id.localeCompare(b.id));
}
