import type { Kysely } from "kysely";
import { runStatements } from "./run-statements.ts";

/**
 * Counts kept by trigger (issue 27.4): GET /context and the boards read "how many tickets per status",
 * "how many unassigned pickable tickets" and "how many threads per status" from here instead of
 * counting every row of the project's history.
 *
 * A count is `project_counts.n` (folded) plus the `project_count_deltas` written since (+1/-1 per row
 * change). Triggers only ever INSERT deltas, so a ticket or thread write takes no lock on a shared
 * counter row: no new contention between writers of one project and no lock-order deadlock between
 * transactions that move tickets in opposite directions. `compactCounts` (src/domain/core/project-counts.ts)
 * folds the deltas into `project_counts` in one statement, from the worker and when a read sees many.
 * Exact under MVCC: a reader sees a fold entirely or not at all.
 *
 * Keys: kind `ticket` (key: status, every ticket), `pickable` (key: status, unassigned and not
 * human-only), `thread` (key: status). No foreign keys: deltas of a project's cascaded delete are
 * written while its row goes; the fold ignores projects that are gone.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, [
    `CREATE TABLE project_counts (
      project_id uuid NOT NULL,
      kind text NOT NULL,
      key text NOT NULL,
      n bigint NOT NULL,
      PRIMARY KEY (project_id, kind, key)
    )`,
    `CREATE TABLE project_count_deltas (
      id bigserial PRIMARY KEY,
      project_id uuid NOT NULL,
      kind text NOT NULL,
      key text NOT NULL,
      d bigint NOT NULL
    )`,
    `CREATE INDEX project_count_deltas_project_idx ON project_count_deltas (project_id, kind)`,
    // Inserts and deletes: one delta per (project, kind, key) and statement (a bulk insert is a few rows).
    `CREATE FUNCTION count_tickets_rows() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        INSERT INTO project_count_deltas (project_id, kind, key, d)
        SELECT project_id, 'ticket', status, count(*) FROM new_rows GROUP BY project_id, status
        UNION ALL
        SELECT project_id, 'pickable', status, count(*) FROM new_rows
          WHERE assignee_agent_id IS NULL AND NOT human_only GROUP BY project_id, status;
      ELSE
        INSERT INTO project_count_deltas (project_id, kind, key, d)
        SELECT project_id, 'ticket', status, -count(*) FROM old_rows GROUP BY project_id, status
        UNION ALL
        SELECT project_id, 'pickable', status, -count(*) FROM old_rows
          WHERE assignee_agent_id IS NULL AND NOT human_only GROUP BY project_id, status;
      END IF;
      RETURN NULL;
    END $$`,
    `CREATE TRIGGER tickets_count_insert AFTER INSERT ON tickets REFERENCING NEW TABLE AS new_rows
      FOR EACH STATEMENT EXECUTE FUNCTION count_tickets_rows()`,
    `CREATE TRIGGER tickets_count_delete AFTER DELETE ON tickets REFERENCING OLD TABLE AS old_rows
      FOR EACH STATEMENT EXECUTE FUNCTION count_tickets_rows()`,
    // Updates: per row, and only when a counted column is written (most ticket updates write none).
    `CREATE FUNCTION count_tickets_update() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      old_pick boolean := OLD.assignee_agent_id IS NULL AND NOT OLD.human_only;
      new_pick boolean := NEW.assignee_agent_id IS NULL AND NOT NEW.human_only;
    BEGIN
      IF OLD.project_id = NEW.project_id AND OLD.status = NEW.status AND old_pick = new_pick THEN
        RETURN NULL;
      END IF;
      IF OLD.project_id <> NEW.project_id OR OLD.status <> NEW.status THEN
        INSERT INTO project_count_deltas (project_id, kind, key, d)
        VALUES (OLD.project_id, 'ticket', OLD.status, -1), (NEW.project_id, 'ticket', NEW.status, 1);
      END IF;
      IF old_pick THEN
        INSERT INTO project_count_deltas (project_id, kind, key, d)
        VALUES (OLD.project_id, 'pickable', OLD.status, -1);
      END IF;
      IF new_pick THEN
        INSERT INTO project_count_deltas (project_id, kind, key, d)
        VALUES (NEW.project_id, 'pickable', NEW.status, 1);
      END IF;
      RETURN NULL;
    END $$`,
    `CREATE TRIGGER tickets_count_update AFTER UPDATE OF project_id, status, assignee_agent_id, human_only
      ON tickets FOR EACH ROW EXECUTE FUNCTION count_tickets_update()`,
    `CREATE FUNCTION count_threads_rows() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        INSERT INTO project_count_deltas (project_id, kind, key, d)
        SELECT project_id, 'thread', status, count(*) FROM new_rows GROUP BY project_id, status;
      ELSE
        INSERT INTO project_count_deltas (project_id, kind, key, d)
        SELECT project_id, 'thread', status, -count(*) FROM old_rows GROUP BY project_id, status;
      END IF;
      RETURN NULL;
    END $$`,
    `CREATE TRIGGER threads_count_insert AFTER INSERT ON threads REFERENCING NEW TABLE AS new_rows
      FOR EACH STATEMENT EXECUTE FUNCTION count_threads_rows()`,
    `CREATE TRIGGER threads_count_delete AFTER DELETE ON threads REFERENCING OLD TABLE AS old_rows
      FOR EACH STATEMENT EXECUTE FUNCTION count_threads_rows()`,
    `CREATE FUNCTION count_threads_update() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF OLD.project_id <> NEW.project_id OR OLD.status <> NEW.status THEN
        INSERT INTO project_count_deltas (project_id, kind, key, d)
        VALUES (OLD.project_id, 'thread', OLD.status, -1), (NEW.project_id, 'thread', NEW.status, 1);
      END IF;
      RETURN NULL;
    END $$`,
    `CREATE TRIGGER threads_count_update AFTER UPDATE OF project_id, status ON threads
      FOR EACH ROW EXECUTE FUNCTION count_threads_update()`,
    // GET /board's collision warnings read the open assigned tickets that may expect a claimed file:
    // by the lower-cased expected files (GIN), and those expecting a directory or symbol (TERMINAL_STATUSES
    // of src/domain/core/workflow.ts; the query repeats these predicates word for word).
    `CREATE INDEX tickets_open_expected_lower_idx ON tickets USING gin ((lower(expected_files::text)::jsonb))
      WHERE assignee_agent_id IS NOT NULL AND status NOT IN ('done', 'cancelled')`,
    `CREATE INDEX tickets_open_expected_wide_idx ON tickets (project_id)
      WHERE assignee_agent_id IS NOT NULL AND status NOT IN ('done', 'cancelled')
        AND (expected_files::text LIKE '%/**"%' OR strpos(expected_files::text, '#') > 0)`,
    // Backfill: the counts of the rows that exist now (the triggers count every later change).
    `INSERT INTO project_counts (project_id, kind, key, n)
      SELECT project_id, 'ticket', status, count(*) FROM tickets GROUP BY project_id, status
      UNION ALL
      SELECT project_id, 'pickable', status, count(*) FROM tickets
        WHERE assignee_agent_id IS NULL AND NOT human_only GROUP BY project_id, status
      UNION ALL
      SELECT project_id, 'thread', status, count(*) FROM threads GROUP BY project_id, status`,
  ]);
}
