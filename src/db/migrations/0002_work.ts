import type { Kysely } from "kysely";
import { runStatements } from "./run-statements.ts";

/**
 * The work model shared by every area: tickets, claims, ledger, threads, sprints, brief versions,
 * notifications and the event feed. Areas add columns and tables in later migrations.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, [
    `CREATE TABLE sprints (
      id uuid PRIMARY KEY,
      project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      number integer NOT NULL,
      name text NOT NULL,
      goal text,
      status text NOT NULL DEFAULT 'planning'
        CHECK (status IN ('planning','active','complete','archived','cancelled')),
      start_date text,
      end_date text,
      capacity_points integer,
      release_notes jsonb,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      started_at timestamptz,
      completed_at timestamptz,
      UNIQUE (project_id, number)
    )`,
    `CREATE UNIQUE INDEX sprints_one_active ON sprints (project_id) WHERE status = 'active'`,
    `CREATE TABLE tickets (
      id uuid PRIMARY KEY,
      project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      number integer NOT NULL,
      title text NOT NULL,
      description text,
      type text,
      tags jsonb NOT NULL DEFAULT '[]'::jsonb,
      status text NOT NULL DEFAULT 'backlog',
      expected_files jsonb NOT NULL DEFAULT '[]'::jsonb,
      done_definition text,
      verification_command text,
      risk_class text CHECK (risk_class IN ('local','shared-state','irreversible')),
      out_of_scope text,
      acceptance_criteria jsonb NOT NULL DEFAULT '[]'::jsonb,
      criteria_acknowledged_at timestamptz,
      assignee_agent_id uuid REFERENCES agents(id) ON DELETE SET NULL,
      sub_agent_name text,
      reviewer_agent_id uuid REFERENCES agents(id) ON DELETE SET NULL,
      review_history jsonb NOT NULL DEFAULT '[]'::jsonb,
      review_handoff jsonb,
      parent_id uuid REFERENCES tickets(id) ON DELETE SET NULL,
      branch text,
      sprint_id uuid REFERENCES sprints(id) ON DELETE SET NULL,
      human_only boolean NOT NULL DEFAULT false,
      story_points numeric,
      no_artifact boolean NOT NULL DEFAULT false,
      no_artifact_reason text,
      created_by_agent_id uuid REFERENCES agents(id) ON DELETE SET NULL,
      idempotency_key text,
      status_changed_at timestamptz NOT NULL,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      search tsvector GENERATED ALWAYS AS (
        to_tsvector('english', coalesce(title, '') || ' ' || coalesce(description, ''))
      ) STORED,
      UNIQUE (project_id, number)
    )`,
    `CREATE UNIQUE INDEX tickets_idempotency_key ON tickets (project_id, idempotency_key)
      WHERE idempotency_key IS NOT NULL`,
    `CREATE INDEX tickets_board_idx ON tickets (project_id, status, number)`,
    `CREATE INDEX tickets_assignee_idx ON tickets (assignee_agent_id, status)`,
    `CREATE INDEX tickets_sprint_idx ON tickets (sprint_id)`,
    `CREATE INDEX tickets_parent_idx ON tickets (parent_id)`,
    `CREATE INDEX tickets_search_idx ON tickets USING gin (search)`,
    `CREATE TABLE ticket_comments (
      id uuid PRIMARY KEY,
      ticket_id uuid NOT NULL REFERENCES tickets(id) ON DELETE CASCADE,
      author_agent_id uuid,
      author_name text,
      content text NOT NULL,
      created_at timestamptz NOT NULL
    )`,
    `CREATE INDEX ticket_comments_ticket_idx ON ticket_comments (ticket_id, created_at)`,
    `CREATE TABLE ticket_artifacts (
      id uuid PRIMARY KEY,
      ticket_id uuid NOT NULL REFERENCES tickets(id) ON DELETE CASCADE,
      type text NOT NULL CHECK (type IN ('pull_request','branch','commit','deploy')),
      url text NOT NULL,
      ref text,
      title text,
      metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
      status text NOT NULL DEFAULT 'open',
      agent_id uuid,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL
    )`,
    `CREATE INDEX ticket_artifacts_ticket_idx ON ticket_artifacts (ticket_id)`,
    `CREATE TABLE qa_runs (
      id uuid PRIMARY KEY,
      ticket_id uuid NOT NULL REFERENCES tickets(id) ON DELETE CASCADE,
      session_id uuid,
      agent_id uuid,
      status text NOT NULL DEFAULT 'pending',
      created_at timestamptz NOT NULL,
      completed_at timestamptz
    )`,
    `CREATE INDEX qa_runs_ticket_idx ON qa_runs (ticket_id)`,
    `CREATE TABLE qa_tests (
      id uuid PRIMARY KEY,
      qa_run_id uuid NOT NULL REFERENCES qa_runs(id) ON DELETE CASCADE,
      criterion_index integer NOT NULL,
      title text NOT NULL,
      status text NOT NULL DEFAULT 'pending',
      evidence text,
      updated_at timestamptz NOT NULL
    )`,
    `CREATE TABLE claims (
      id uuid PRIMARY KEY,
      project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      agent_id uuid NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
      sub_agent_name text,
      session_id uuid,
      ticket_id uuid REFERENCES tickets(id) ON DELETE SET NULL,
      commit_sha text,
      allow_sub_agents boolean NOT NULL DEFAULT false,
      claimed_at timestamptz NOT NULL,
      expires_at timestamptz NOT NULL,
      released_at timestamptz
    )`,
    `CREATE INDEX claims_agent_idx ON claims (agent_id) WHERE released_at IS NULL`,
    `CREATE INDEX claims_ticket_idx ON claims (ticket_id) WHERE released_at IS NULL`,
    `CREATE TABLE claim_files (
      claim_id uuid NOT NULL REFERENCES claims(id) ON DELETE CASCADE,
      project_id uuid NOT NULL,
      file text NOT NULL,
      released_at timestamptz,
      PRIMARY KEY (claim_id, file)
    )`,
    // The invariant: one live holder per file. Expired claims are released (released_at set)
    // before a new claim of the same file is inserted, in the same transaction.
    `CREATE UNIQUE INDEX claim_files_one_holder ON claim_files (project_id, file) WHERE released_at IS NULL`,
    `CREATE TABLE threads (
      id uuid PRIMARY KEY,
      project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      agent_id uuid,
      sub_agent_name text,
      intent text NOT NULL,
      expected_files jsonb NOT NULL DEFAULT '[]'::jsonb,
      ticket_id uuid REFERENCES tickets(id) ON DELETE SET NULL,
      status text NOT NULL DEFAULT 'open' CHECK (status IN ('open','closed')),
      outcome text,
      blocked_by_file text,
      created_at timestamptz NOT NULL,
      closed_at timestamptz,
      last_message_at timestamptz
    )`,
    `CREATE INDEX threads_project_idx ON threads (project_id, status, created_at DESC)`,
    `CREATE TABLE thread_messages (
      id uuid PRIMARY KEY,
      thread_id uuid NOT NULL REFERENCES threads(id) ON DELETE CASCADE,
      author_type text NOT NULL,
      author_id text,
      author_name text,
      sub_agent_name text,
      content text NOT NULL,
      created_at timestamptz NOT NULL
    )`,
    `CREATE INDEX thread_messages_thread_idx ON thread_messages (thread_id, created_at)`,
    `CREATE TABLE ledger_entries (
      id uuid PRIMARY KEY,
      seq bigserial NOT NULL UNIQUE,
      project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      type text NOT NULL,
      content text NOT NULL,
      source text NOT NULL DEFAULT 'agent' CHECK (source IN ('agent','system')),
      audit boolean NOT NULL DEFAULT false,
      agent_id uuid,
      sub_agent_name text,
      session_id uuid,
      ticket_id uuid,
      thread_id uuid,
      file_ref text,
      line_ref integer,
      labels jsonb NOT NULL DEFAULT '[]'::jsonb,
      payload jsonb,
      severity text CHECK (severity IN ('info','warning','critical')),
      tokens_used integer,
      activity text,
      env_health jsonb,
      created_at timestamptz NOT NULL
    )`,
    `CREATE INDEX ledger_project_idx ON ledger_entries (project_id, created_at DESC, seq DESC)`,
    `CREATE INDEX ledger_ticket_idx ON ledger_entries (ticket_id, type)`,
    `CREATE INDEX ledger_session_idx ON ledger_entries (session_id, type)`,
    `CREATE INDEX ledger_agent_idx ON ledger_entries (agent_id, created_at DESC)`,
    // Append-only: the database itself refuses to change or remove an entry.
    `CREATE FUNCTION ledger_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'ledger entries are append-only' USING ERRCODE = '42501';
      END
    $$`,
    `CREATE TRIGGER ledger_no_update BEFORE UPDATE OR DELETE ON ledger_entries
      FOR EACH ROW EXECUTE FUNCTION ledger_append_only()`,
    `CREATE TABLE brief_versions (
      project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      version integer NOT NULL,
      content jsonb NOT NULL,
      agent_id uuid,
      created_at timestamptz NOT NULL,
      PRIMARY KEY (project_id, version)
    )`,
    `CREATE TABLE notifications (
      id uuid PRIMARY KEY,
      project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      recipient_agent_id uuid,
      recipient_user_id uuid,
      kind text NOT NULL,
      thread_id uuid,
      message_id uuid,
      content text NOT NULL,
      created_at timestamptz NOT NULL,
      read_at timestamptz
    )`,
    `CREATE INDEX notifications_agent_idx ON notifications (recipient_agent_id) WHERE read_at IS NULL`,
    `CREATE TABLE idempotency_records (
      scope text NOT NULL,
      key text NOT NULL,
      result jsonb NOT NULL,
      created_at timestamptz NOT NULL,
      expires_at timestamptz,
      PRIMARY KEY (scope, key)
    )`,
    `CREATE TABLE event_cursors (
      project_id uuid PRIMARY KEY REFERENCES projects(id) ON DELETE CASCADE,
      seq bigint NOT NULL DEFAULT 0
    )`,
    `CREATE TABLE events (
      project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      seq bigint NOT NULL,
      kind text NOT NULL,
      entity_type text NOT NULL,
      entity_id text,
      agent_id uuid,
      data jsonb NOT NULL DEFAULT '{}'::jsonb,
      created_at timestamptz NOT NULL,
      PRIMARY KEY (project_id, seq)
    )`,
    `CREATE TABLE pending_jobs (
      id uuid PRIMARY KEY,
      kind text NOT NULL,
      payload jsonb NOT NULL,
      created_at timestamptz NOT NULL,
      attempts integer NOT NULL DEFAULT 0,
      done_at timestamptz,
      last_error text
    )`,
    `CREATE INDEX pending_jobs_open_idx ON pending_jobs (created_at) WHERE done_at IS NULL`,
  ]);
}
