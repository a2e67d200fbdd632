import type {
  ArtifactType,
  LedgerSeverity,
  LedgerSource,
  LedgerType,
  ThreadStatus,
} from "@/shared/vocabulary.ts";
import type { ColumnType } from "kysely";
import type { Generated, Json, JsonDefault, NullableJson, NullableTimestamp, Timestamp } from "./types.ts";

export interface AcceptanceCriterion {
  title: string;
  requiresEvidence?: boolean;
  source?: string;
  [key: string]: unknown;
}

export interface SprintsTable {
  id: string;
  project_id: string;
  number: number;
  name: string;
  goal: string | null;
  status: Generated<"planning" | "active" | "complete" | "archived" | "cancelled">;
  start_date: string | null;
  end_date: string | null;
  capacity_points: number | null;
  release_notes: NullableJson<unknown>;
  created_at: Timestamp;
  updated_at: Timestamp;
  started_at: NullableTimestamp;
  completed_at: NullableTimestamp;
}

export interface TicketsTable {
  id: string;
  project_id: string;
  number: number;
  title: string;
  description: string | null;
  type: string | null;
  tags: JsonDefault<string[]>;
  status: Generated<string>;
  expected_files: JsonDefault<string[]>;
  done_definition: string | null;
  verification_command: string | null;
  risk_class: "local" | "shared-state" | "irreversible" | null;
  out_of_scope: string | null;
  acceptance_criteria: JsonDefault<AcceptanceCriterion[]>;
  criteria_acknowledged_at: NullableTimestamp;
  assignee_agent_id: string | null;
  sub_agent_name: string | null;
  reviewer_agent_id: string | null;
  review_history: JsonDefault<unknown[]>;
  review_handoff: NullableJson<Record<string, unknown>>;
  parent_id: string | null;
  branch: string | null;
  sprint_id: string | null;
  human_only: Generated<boolean>;
  /** numeric: read back as a string by both drivers. */
  story_points: string | number | null;
  no_artifact: Generated<boolean>;
  no_artifact_reason: string | null;
  created_by_agent_id: string | null;
  idempotency_key: string | null;
  status_changed_at: Timestamp;
  /** Latest ledger entry on the ticket; kept by the `ledger_touch_ticket` trigger, never written. */
  last_ledger_at: Generated<Date | null>;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** Generated tsvector; never written. */
  search: Generated<string>;
}

export interface TicketCommentsTable {
  id: string;
  ticket_id: string;
  author_agent_id: string | null;
  author_name: string | null;
  content: string;
  created_at: Timestamp;
}

export interface TicketArtifactsTable {
  id: string;
  ticket_id: string;
  type: ArtifactType;
  url: string;
  ref: string | null;
  title: string | null;
  metadata: JsonDefault<Record<string, unknown>>;
  status: Generated<string>;
  agent_id: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface QaRunsTable {
  id: string;
  ticket_id: string;
  session_id: string | null;
  agent_id: string | null;
  status: Generated<string>;
  created_at: Timestamp;
  completed_at: NullableTimestamp;
}

export interface QaTestsTable {
  id: string;
  qa_run_id: string;
  criterion_index: number;
  title: string;
  status: Generated<string>;
  evidence: string | null;
  updated_at: Timestamp;
}

export interface ClaimsTable {
  id: string;
  project_id: string;
  agent_id: string;
  sub_agent_name: string | null;
  session_id: string | null;
  ticket_id: string | null;
  commit_sha: string | null;
  allow_sub_agents: Generated<boolean>;
  claimed_at: Timestamp;
  expires_at: Timestamp;
  released_at: NullableTimestamp;
}

export interface ClaimFilesTable {
  claim_id: string;
  project_id: string;
  file: string;
  released_at: NullableTimestamp;
  /** Fencing token (migration 0027): from one sequence, so a new grant is greater than every earlier one. */
  fence: Generated<string>;
}

export interface ThreadsTable {
  id: string;
  project_id: string;
  agent_id: string | null;
  sub_agent_name: string | null;
  intent: string;
  expected_files: JsonDefault<string[]>;
  ticket_id: string | null;
  status: Generated<ThreadStatus>;
  outcome: string | null;
  blocked_by_file: string | null;
  created_at: Timestamp;
  closed_at: NullableTimestamp;
  last_message_at: NullableTimestamp;
}

export interface ThreadMessagesTable {
  id: string;
  thread_id: string;
  author_type: string;
  author_id: string | null;
  author_name: string | null;
  sub_agent_name: string | null;
  content: string;
  created_at: Timestamp;
  /** bigserial added by 0009_shared (write order): read back as a string. */
  seq: Generated<string>;
}

export { LEDGER_TYPES, type LedgerType } from "@/shared/vocabulary.ts";

export interface LedgerEntriesTable {
  id: string;
  /** bigserial: read back as a string. */
  seq: Generated<string>;
  project_id: string;
  type: LedgerType;
  content: string;
  source: Generated<LedgerSource>;
  audit: Generated<boolean>;
  agent_id: string | null;
  sub_agent_name: string | null;
  session_id: string | null;
  ticket_id: string | null;
  thread_id: string | null;
  file_ref: string | null;
  line_ref: number | null;
  labels: JsonDefault<string[]>;
  payload: NullableJson<Record<string, unknown>>;
  severity: LedgerSeverity | null;
  tokens_used: number | null;
  activity: string | null;
  env_health: NullableJson<Record<string, unknown>>;
  created_at: Timestamp;
  /** Added by 0007_ledger: the file a BLOCKED entry is blocked by. */
  blocked_by_file: NullableText;
}
type NullableText = ColumnType<string | null, string | null | undefined, string | null>;

export interface BriefVersionsTable {
  project_id: string;
  version: number;
  content: Json<Record<string, unknown>>;
  agent_id: string | null;
  created_at: Timestamp;
}

export interface NotificationsTable {
  id: string;
  project_id: string;
  recipient_agent_id: string | null;
  recipient_user_id: string | null;
  kind: string;
  thread_id: string | null;
  message_id: string | null;
  content: string;
  created_at: Timestamp;
  read_at: NullableTimestamp;
}

export interface IdempotencyRecordsTable {
  scope: string;
  key: string;
  result: Json<unknown>;
  created_at: Timestamp;
  expires_at: NullableTimestamp;
}

export interface EventCursorsTable {
  project_id: string;
  /** bigint: read back as a string. */
  seq: ColumnTypeBigint;
}
type ColumnTypeBigint = Generated<string | number>;

export interface EventsTable {
  project_id: string;
  seq: string | number;
  kind: string;
  entity_type: string;
  entity_id: string | null;
  agent_id: string | null;
  data: JsonDefault<Record<string, unknown>>;
  created_at: Timestamp;
}

export interface PendingJobsTable {
  id: string;
  kind: string;
  payload: Json<Record<string, unknown>>;
  created_at: Timestamp;
  attempts: Generated<number>;
  done_at: NullableTimestamp;
  last_error: string | null;
}

export interface WorkTables {
  sprints: SprintsTable;
  tickets: TicketsTable;
  ticket_comments: TicketCommentsTable;
  ticket_artifacts: TicketArtifactsTable;
  qa_runs: QaRunsTable;
  qa_tests: QaTestsTable;
  claims: ClaimsTable;
  claim_files: ClaimFilesTable;
  threads: ThreadsTable;
  thread_messages: ThreadMessagesTable;
  ledger_entries: LedgerEntriesTable;
  brief_versions: BriefVersionsTable;
  notifications: NotificationsTable;
  idempotency_records: IdempotencyRecordsTable;
  event_cursors: EventCursorsTable;
  events: EventsTable;
  pending_jobs: PendingJobsTable;
}
