import type { Kysely } from "kysely";
import { runStatements } from "./run-statements.ts";

/**
 * Context area: what each agent last saw through GET /context (first-session, skill and brief change
 * detection), and the indexes that keep every context, board and events query an index scan at scale
 * (10,000 tickets, 100,000 ledger entries, 1,000 threads per project; see scripts/bench).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, [
    `CREATE TABLE agent_context_state (
      agent_id uuid NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
      sub_agent_name text NOT NULL DEFAULT '',
      project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      first_context_at timestamptz NOT NULL,
      last_context_at timestamptz NOT NULL,
      context_calls integer NOT NULL DEFAULT 0,
      brief_version_seen integer NOT NULL DEFAULT 0,
      skill_version_seen text,
      PRIMARY KEY (agent_id, sub_agent_name)
    )`,
    // Ledger in context: newest first (by seq, the insertion order) with the optional filters.
    `CREATE INDEX ctx_ledger_project_seq_idx ON ledger_entries (project_id, seq DESC)`,
    `CREATE INDEX ctx_ledger_project_type_idx ON ledger_entries (project_id, type, seq DESC)`,
    `CREATE INDEX ctx_ledger_project_file_idx ON ledger_entries (project_id, file_ref, seq DESC)
      WHERE file_ref IS NOT NULL`,
    `CREATE INDEX ctx_ledger_project_sub_idx ON ledger_entries (project_id, sub_agent_name, seq DESC)
      WHERE sub_agent_name IS NOT NULL`,
    `CREATE INDEX ctx_ledger_session_seq_idx ON ledger_entries (session_id, seq DESC) WHERE session_id IS NOT NULL`,
    `CREATE INDEX ctx_ledger_env_health_idx ON ledger_entries (agent_id, seq DESC) WHERE env_health IS NOT NULL`,
    `CREATE INDEX ctx_ledger_agent_seq_idx ON ledger_entries (agent_id, seq DESC)`,
    // Threads of every status, newest first (context with thread_status=all, /context/more).
    `CREATE INDEX ctx_threads_project_time_idx ON threads (project_id, created_at DESC, id DESC)`,
    // Review queue: oldest waiting first (context) and newest first (/context/more).
    // INCLUDE keeps the review count an index-only scan (heap visits cost 30x on a 10,000-ticket board).
    `CREATE INDEX ctx_tickets_review_queue_idx ON tickets (project_id, status_changed_at, id)
      INCLUDE (assignee_agent_id) WHERE status IN ('review','in_review','qa','needs_review')`,
    // Unassigned tickets (workqueue, nextAction's pickable count) without scanning the whole board.
    `CREATE INDEX ctx_tickets_unassigned_idx ON tickets (project_id, status, number)
      INCLUDE (id, title, type, sprint_id) WHERE assignee_agent_id IS NULL AND human_only = false`,
    `CREATE INDEX ctx_tickets_reviewer_idx ON tickets (reviewer_agent_id) WHERE reviewer_agent_id IS NOT NULL`,
    `CREATE INDEX ctx_tickets_in_progress_idx ON tickets (project_id, status_changed_at) INCLUDE (id)
      WHERE status = 'in_progress'`,
    `CREATE INDEX ctx_claims_project_live_idx ON claims (project_id, expires_at) WHERE released_at IS NULL`,
    `CREATE INDEX ctx_sessions_project_open_idx ON sessions (project_id, started_at DESC)
      WHERE status IN ('active','awaiting_input','error')`,
    `CREATE INDEX ctx_sessions_agent_started_idx ON sessions (agent_id, started_at DESC)`,
    // GET /events?since=<ISO 8601 time>: the feed position at a point in time.
    `CREATE INDEX ctx_events_project_time_idx ON events (project_id, created_at)`,
    `CREATE INDEX ctx_notifications_agent_unread_idx ON notifications (recipient_agent_id, created_at DESC)
      WHERE read_at IS NULL`,
  ]);
}
