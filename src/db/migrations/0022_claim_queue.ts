import type { Kysely } from "kysely";
import { runStatements } from "./run-statements.ts";

/**
 * The claim wait queue (issue 24 points 1, 2, 4): a `POST /claim` with `waitSeconds` that meets a held
 * file waits as a row here until the service grants it (`status` granted, `claim_id` the claim created),
 * it expires or its agent cancels it. `seq` is the arrival order that grants follow per file.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, [
    `CREATE TABLE claim_requests (
      id uuid PRIMARY KEY,
      seq bigserial NOT NULL,
      project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      agent_id uuid NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
      sub_agent_name text,
      session_id uuid,
      ticket_id uuid REFERENCES tickets(id) ON DELETE SET NULL,
      files jsonb NOT NULL,
      estimated_seconds integer,
      allow_sub_agents boolean,
      commit_sha text,
      status text NOT NULL DEFAULT 'waiting'
        CHECK (status IN ('waiting', 'granted', 'expired', 'cancelled')),
      created_at timestamptz NOT NULL,
      expires_at timestamptz NOT NULL,
      ended_at timestamptz,
      claim_id uuid
    )`,
    `CREATE INDEX claim_requests_waiting ON claim_requests (project_id, seq) WHERE status = 'waiting'`,
    `CREATE INDEX claim_requests_agent ON claim_requests (agent_id, created_at)`,
  ]);
}
