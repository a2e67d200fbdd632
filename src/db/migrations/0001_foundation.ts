import type { Kysely } from "kysely";
import { runStatements } from "./run-statements.ts";

/** Organizations, people, projects, agents, sessions, tokens, pairing codes and shared counters. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, [
    `CREATE TABLE organizations (
      id uuid PRIMARY KEY,
      name text NOT NULL,
      plan text NOT NULL DEFAULT 'free' CHECK (plan IN ('free','builder','growth','team','enterprise')),
      status text NOT NULL DEFAULT 'active' CHECK (status IN ('active','suspended')),
      created_at timestamptz NOT NULL
    )`,
    `CREATE TABLE users (
      id uuid PRIMARY KEY,
      email text NOT NULL,
      password_hash text NOT NULL,
      name text NOT NULL,
      created_at timestamptz NOT NULL
    )`,
    `CREATE UNIQUE INDEX users_email_key ON users (lower(email))`,
    `CREATE TABLE projects (
      id uuid PRIMARY KEY,
      org_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      name text NOT NULL,
      ticket_prefix text NOT NULL,
      review_mode text NOT NULL DEFAULT 'medium'
        CHECK (review_mode IN ('light','medium','strict','auto','custom')),
      password_hash text,
      settings jsonb NOT NULL DEFAULT '{}'::jsonb,
      status text NOT NULL DEFAULT 'active' CHECK (status IN ('active','archived')),
      ticket_seq integer NOT NULL DEFAULT 0,
      brief jsonb NOT NULL DEFAULT '{}'::jsonb,
      brief_version integer NOT NULL DEFAULT 0,
      brief_updated_at timestamptz,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL
    )`,
    `CREATE INDEX projects_org_idx ON projects (org_id)`,
    `CREATE TABLE memberships (
      project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      role text NOT NULL CHECK (role IN ('admin','member','viewer')),
      created_at timestamptz NOT NULL,
      PRIMARY KEY (project_id, user_id)
    )`,
    `CREATE TABLE agents (
      id uuid PRIMARY KEY,
      project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      user_id uuid REFERENCES users(id) ON DELETE SET NULL,
      name text NOT NULL,
      platform text,
      model text,
      company text,
      role text NOT NULL DEFAULT 'generator'
        CHECK (role IN ('generator','evaluator','observer','orchestrator')),
      capabilities jsonb NOT NULL DEFAULT '[]'::jsonb,
      status text NOT NULL DEFAULT 'active' CHECK (status IN ('active','offline','revoked')),
      partner_managed_session_id text,
      created_at timestamptz NOT NULL,
      last_seen_at timestamptz
    )`,
    `CREATE UNIQUE INDEX agents_project_name_key ON agents (project_id, lower(name))`,
    `CREATE TABLE sub_agents (
      id uuid PRIMARY KEY,
      project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      parent_agent_id uuid NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
      name text NOT NULL,
      role text NOT NULL CHECK (role IN ('generator','evaluator','observer')),
      created_at timestamptz NOT NULL,
      revoked_at timestamptz
    )`,
    `CREATE UNIQUE INDEX sub_agents_parent_name_key ON sub_agents (parent_agent_id, name)`,
    `CREATE TABLE sessions (
      id uuid PRIMARY KEY,
      project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      agent_id uuid NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
      sub_agent_name text,
      source text NOT NULL CHECK (source IN ('pairing','subagent','oauth','api_key')),
      status text NOT NULL DEFAULT 'active'
        CHECK (status IN ('active','awaiting_input','error','complete','canceled')),
      plan jsonb NOT NULL DEFAULT '[]'::jsonb,
      plan_version integer NOT NULL DEFAULT 0,
      report jsonb,
      report_at timestamptz,
      ticket_id uuid,
      activity_count integer NOT NULL DEFAULT 0,
      started_at timestamptz NOT NULL,
      ended_at timestamptz
    )`,
    `CREATE INDEX sessions_agent_idx ON sessions (agent_id, status)`,
    `CREATE INDEX sessions_project_idx ON sessions (project_id, started_at)`,
    `CREATE TABLE session_activities (
      id uuid PRIMARY KEY,
      session_id uuid NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
      type text NOT NULL CHECK (type IN ('thought','action','elicitation','response','error')),
      body text,
      action text,
      parameter text,
      result text,
      ephemeral boolean NOT NULL DEFAULT false,
      created_at timestamptz NOT NULL
    )`,
    `CREATE INDEX session_activities_session_idx ON session_activities (session_id, created_at)`,
    `CREATE TABLE tokens (
      id uuid PRIMARY KEY,
      kind text NOT NULL CHECK (kind IN ('session','api_key','subagent','oauth_refresh')),
      token_hash text NOT NULL UNIQUE,
      project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      agent_id uuid NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
      session_id uuid REFERENCES sessions(id) ON DELETE CASCADE,
      sub_agent_name text,
      parent_token_id uuid REFERENCES tokens(id) ON DELETE CASCADE,
      name text,
      scopes jsonb NOT NULL DEFAULT '[]'::jsonb,
      created_at timestamptz NOT NULL,
      expires_at timestamptz,
      idle_expires_at timestamptz,
      last_used_at timestamptz,
      revoked_at timestamptz
    )`,
    `CREATE INDEX tokens_agent_idx ON tokens (agent_id, kind)`,
    `CREATE INDEX tokens_session_idx ON tokens (session_id)`,
    `CREATE INDEX tokens_parent_idx ON tokens (parent_token_id)`,
    `CREATE TABLE pairing_codes (
      id uuid PRIMARY KEY,
      code text NOT NULL UNIQUE,
      project_id uuid NOT NULL,
      agent_id uuid,
      agent_name text,
      role text NOT NULL DEFAULT 'generator'
        CHECK (role IN ('generator','evaluator','observer','orchestrator')),
      platform text,
      model text,
      issued_by_agent_id uuid,
      created_at timestamptz NOT NULL,
      expires_at timestamptz NOT NULL,
      first_used_at timestamptz,
      consumed_by_agent_id uuid,
      strikes integer NOT NULL DEFAULT 0,
      invalidated_at timestamptz
    )`,
    `CREATE TABLE rate_counters (
      key text NOT NULL,
      window_start timestamptz NOT NULL,
      count integer NOT NULL DEFAULT 0,
      expires_at timestamptz NOT NULL,
      PRIMARY KEY (key, window_start)
    )`,
    `CREATE INDEX rate_counters_expires_idx ON rate_counters (expires_at)`,
    `CREATE TABLE service_secrets (
      name text PRIMARY KEY,
      value text NOT NULL,
      created_at timestamptz NOT NULL
    )`,
  ]);
}
