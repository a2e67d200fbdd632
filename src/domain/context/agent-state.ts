import { sql } from "kysely";
import type { DbOrTrx } from "@/db/database.ts";
import { SKILL_DOCUMENT } from "@/domain/core/pairing-context.ts";

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

export interface DeliveredNotification {
  id: string;
  kind: string;
  content: string;
  thread_id: string | null;
  message_id: string | null;
  created_at: Date;
}

interface PreviousJson {
  brief_version_seen: number;
  skill_version_seen: string | null;
  context_calls: number;
}

interface NoteJson extends Omit<DeliveredNotification, "created_at"> {
  created_at: string;
}

interface CallRow {
  prev: PreviousJson | string | null;
  notes: NoteJson[] | string;
}

function parsed<T>(value: T | string): T {
  return typeof value === "string" ? JSON.parse(value) as T : value;
}

/**
 * The writes of GET /context, in ONE statement (so one transaction, and one round trip) that runs after
 * every read of the answer succeeded: records this call (what the caller has now seen) and delivers
 * (marks read) the caller's newest unread notifications that fit in `updates`, returning both the
 * previous state and the delivered notifications (newest first). A failure anywhere before it writes
 * nothing; a failure of it writes nothing either, so a notification is marked delivered only with the
 * answer that contains it (issue 8).
 *
 * `limit` is the `updates` budget: when the brief changed since the caller's previous call (the
 * `brief.updated` item takes the first slot), one notification fewer is delivered, so none is marked
 * read without being shown. The `prev` CTE reads the previous row in the statement's snapshot, before
 * the upsert changes it; SKIP LOCKED keeps two concurrent calls from delivering the same notification.
 */
export async function recordCallAndDeliver(
  db: DbOrTrx,
  input: {
    agentId: string;
    subAgentName: string | null;
    projectId: string;
    briefVersion: number;
    skillVersion: string;
    limit: number;
    now: Date;
  },
): Promise<{ previous: PreviousState; notes: DeliveredNotification[] }> {
  const sub = input.subAgentName ?? "";
  const result = await sql<CallRow>`
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
    ), delivered AS (
      UPDATE notifications SET read_at = ${input.now}
      WHERE id IN (
        SELECT id FROM notifications WHERE recipient_agent_id = ${input.agentId} AND read_at IS NULL
        ORDER BY created_at DESC, id
        LIMIT (SELECT greatest(0, ${input.limit}::int - count(*)::int) FROM prev
          WHERE prev.context_calls > 0 AND prev.brief_version_seen < ${input.briefVersion}::int)
        FOR UPDATE SKIP LOCKED
      )
      RETURNING id, kind, content, thread_id, message_id, created_at
    )
    SELECT (SELECT row_to_json(prev) FROM prev) AS prev,
      (SELECT coalesce(json_agg(delivered ORDER BY created_at DESC, id), '[]'::json) FROM delivered) AS notes,
      (SELECT count(*) FROM upsert) AS recorded`.execute(db);
  const row = result.rows[0]!;
  const before = row.prev === null ? null : parsed<PreviousJson>(row.prev);
  const notes = parsed<NoteJson[]>(row.notes).map((n) => ({ ...n, created_at: new Date(n.created_at) }));
  return {
    previous: {
      briefVersionSeen: before?.brief_version_seen ?? 0,
      skillVersionSeen: before?.skill_version_seen ?? null,
      calls: before?.context_calls ?? 0,
    },
    notes,
  };
}
