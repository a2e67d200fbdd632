import type { Generated, Timestamp } from "./types.ts";

/** What an agent (or one of its sub-agents, `''` for none) last saw through GET /context. */
export interface AgentContextStateTable {
  agent_id: string;
  sub_agent_name: Generated<string>;
  project_id: string;
  first_context_at: Timestamp;
  last_context_at: Timestamp;
  context_calls: Generated<number>;
  brief_version_seen: Generated<number>;
  skill_version_seen: string | null;
}

export interface ContextTables {
  agent_context_state: AgentContextStateTable;
}
