import type { Kysely } from "kysely";
import { runStatements } from "./run-statements.ts";

/**
 * Release requests (issue 24 point 3): an agent asks the holder of some files to release them. The
 * request names the holder's claims of those files when it was made (`claim_ids`): it concerns those
 * claims only, so a later claim of the same files (after they were freed) never revives it. `status` is
 * what was decided (`pending`, `released`, `declined`); a pending request whose claims all ended is read
 * as settled by the domain (see src/domain/claims/release-requests.ts).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, [
    `CREATE TABLE claim_release_requests (
      id uuid PRIMARY KEY,
      project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      asker_agent_id uuid NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
      asker_sub_agent_name text,
      holder_agent_id uuid NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
      holder_sub_agent_name text,
      files jsonb NOT NULL,
      claim_ids jsonb NOT NULL,
      message text,
      status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'released', 'declined')),
      answer_message text,
      released_files jsonb,
      created_at timestamptz NOT NULL,
      answered_at timestamptz
    )`,
    `CREATE INDEX claim_release_requests_holder ON claim_release_requests
      (project_id, holder_agent_id, created_at) WHERE status = 'pending'`,
    `CREATE INDEX claim_release_requests_asker ON claim_release_requests (project_id, asker_agent_id, created_at)`,
  ]);
}
