import type { Json, NullableJson, NullableTimestamp, Timestamp } from "./types.ts";

/** Release requests (migration 0023): an asker asks the holder of files to release them. */
export interface ReleaseRequestsTable {
  id: string;
  project_id: string;
  asker_agent_id: string;
  asker_sub_agent_name: string | null;
  holder_agent_id: string;
  holder_sub_agent_name: string | null;
  /** The requested files, as the asker spelled them (canonical paths). */
  files: Json<string[]>;
  /** The holder's claims of those files when the request was made. */
  claim_ids: Json<string[]>;
  message: string | null;
  status: "pending" | "released" | "declined";
  answer_message: string | null;
  /** The files an answer `release` freed. */
  released_files: NullableJson<string[]>;
  created_at: Timestamp;
  answered_at: NullableTimestamp;
}

export interface ReleaseRequestsTables {
  claim_release_requests: ReleaseRequestsTable;
}
