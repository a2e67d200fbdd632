import type { Generated, Json, NullableTimestamp, Timestamp } from "./types.ts";

/** A waiting claim request (migration 0022): granted, expired or cancelled later. */
export interface ClaimRequestsTable {
  id: string;
  seq: Generated<string>;
  project_id: string;
  agent_id: string;
  sub_agent_name: string | null;
  session_id: string | null;
  ticket_id: string | null;
  files: Json<string[]>;
  estimated_seconds: number | null;
  allow_sub_agents: boolean | null;
  commit_sha: string | null;
  status: Generated<"waiting" | "granted" | "expired" | "cancelled">;
  created_at: Timestamp;
  expires_at: Timestamp;
  ended_at: NullableTimestamp;
  claim_id: string | null;
}

/** Table interfaces added by the claims area's migrations. */
export interface ClaimsTables {
  claim_requests: ClaimRequestsTable;
}
