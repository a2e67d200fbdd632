import type { Generated, JsonDefault, NullableJson, NullableTimestamp, Timestamp } from "./types.ts";

export type { Plan };
import type { AgentRole, Plan, PlanItemStatus, ReviewMode } from "@/shared/vocabulary.ts";
export type { AgentRole };
export type SessionStatus = "active" | "awaiting_input" | "error" | "complete" | "canceled";
export type TokenKind = "session" | "api_key" | "subagent" | "oauth_refresh";

export interface OrganizationsTable {
  id: string;
  name: string;
  plan: Generated<Plan>;
  status: Generated<"active" | "suspended">;
  created_at: Timestamp;
}

export interface UsersTable {
  id: string;
  email: string;
  password_hash: string;
  name: string;
  created_at: Timestamp;
}

/** Project settings as stored; every key optional. */
export interface ProjectSettings {
  requireType?: boolean | undefined;
  allowedTypes?: string[] | undefined;
  requireDescription?: boolean | undefined;
  columns?: string[] | undefined;
  threadsEnabled?: boolean | undefined;
  ledgerStaleMinutes?: number | undefined;
  /** (extension, issue 24) `spec` (default) or `coordination`: the MCP tool set of the project's agents. */
  mcpTools?: "spec" | "coordination" | undefined;
  /** Issue 25: uncovered `changedFiles` refuse the handoff (409 COVERAGE_INCOMPLETE) instead of warning. */
  requireClaimCoverage?: boolean | undefined;
  [key: string]: unknown;
}

export interface ProjectsTable {
  id: string;
  org_id: string;
  name: string;
  ticket_prefix: string;
  review_mode: Generated<ReviewMode>;
  password_hash: string | null;
  settings: JsonDefault<ProjectSettings>;
  status: Generated<"active" | "archived">;
  ticket_seq: Generated<number>;
  brief: JsonDefault<Record<string, unknown>>;
  brief_version: Generated<number>;
  brief_updated_at: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface MembershipsTable {
  project_id: string;
  user_id: string;
  role: "admin" | "member" | "viewer";
  created_at: Timestamp;
}

export interface AgentsTable {
  id: string;
  project_id: string;
  user_id: string | null;
  name: string;
  platform: string | null;
  model: string | null;
  company: string | null;
  role: Generated<AgentRole>;
  capabilities: JsonDefault<string[]>;
  status: Generated<"active" | "offline" | "revoked">;
  partner_managed_session_id: string | null;
  created_at: Timestamp;
  last_seen_at: NullableTimestamp;
}

export interface SubAgentsTable {
  id: string;
  project_id: string;
  parent_agent_id: string;
  name: string;
  role: "generator" | "evaluator" | "observer";
  created_at: Timestamp;
  revoked_at: NullableTimestamp;
}

export interface PlanItem {
  content: string;
  status: PlanItemStatus;
}

export interface SessionsTable {
  id: string;
  project_id: string;
  agent_id: string;
  sub_agent_name: string | null;
  source: "pairing" | "subagent" | "oauth" | "api_key";
  status: Generated<SessionStatus>;
  plan: JsonDefault<PlanItem[]>;
  plan_version: Generated<number>;
  report: NullableJson<Record<string, unknown>>;
  report_at: NullableTimestamp;
  ticket_id: string | null;
  activity_count: Generated<number>;
  started_at: Timestamp;
  ended_at: NullableTimestamp;
}

export interface SessionActivitiesTable {
  id: string;
  session_id: string;
  /** Per-session ordinal (sessions area migration 0003). */
  seq: number;
  type: "thought" | "action" | "elicitation" | "response" | "error";
  body: string | null;
  action: string | null;
  parameter: string | null;
  result: string | null;
  ephemeral: Generated<boolean>;
  created_at: Timestamp;
}

export interface TokensTable {
  id: string;
  kind: TokenKind;
  token_hash: string;
  project_id: string;
  agent_id: string;
  session_id: string | null;
  sub_agent_name: string | null;
  parent_token_id: string | null;
  name: string | null;
  scopes: JsonDefault<string[]>;
  created_at: Timestamp;
  expires_at: NullableTimestamp;
  idle_expires_at: NullableTimestamp;
  last_used_at: NullableTimestamp;
  revoked_at: NullableTimestamp;
}

export interface PairingCodesTable {
  id: string;
  /** SHA-256 hex of the code (migration 0012): the code itself is never stored. */
  code_hash: string;
  project_id: string;
  /** Organization at issue (sessions area migration 0003). */
  org_id?: string | null;
  agent_id: string | null;
  agent_name: string | null;
  role: Generated<AgentRole>;
  platform: string | null;
  model: string | null;
  issued_by_agent_id: string | null;
  created_at: Timestamp;
  expires_at: Timestamp;
  first_used_at: NullableTimestamp;
  consumed_by_agent_id: string | null;
  strikes: Generated<number>;
  invalidated_at: NullableTimestamp;
}

export interface RateCountersTable {
  key: string;
  window_start: Timestamp;
  count: Generated<number>;
  expires_at: Timestamp;
}

export interface ServiceSecretsTable {
  name: string;
  value: string;
  created_at: Timestamp;
}

export interface FoundationTables {
  organizations: OrganizationsTable;
  users: UsersTable;
  projects: ProjectsTable;
  memberships: MembershipsTable;
  agents: AgentsTable;
  sub_agents: SubAgentsTable;
  sessions: SessionsTable;
  session_activities: SessionActivitiesTable;
  tokens: TokensTable;
  pairing_codes: PairingCodesTable;
  rate_counters: RateCountersTable;
  service_secrets: ServiceSecretsTable;
}
