/**
 * Bulk SQL seeding for `deno task bench`: the large project (10,000 tickets, 100,000 ledger entries,
 * 1,000 threads, plus agents and sub-agents, a sprint, claims, notifications and events) and the board project (1,000 tickets),
 * each in a few set-based statements so that seeding takes seconds.
 */
import { sql } from "kysely";
import type { Db } from "@/db/database.ts";

export interface Size {
  TICKETS: number;
  LEDGER: number;
  THREADS: number;
  AGENTS: number;
  EVENTS: number;
}

export const LARGE: Size = { TICKETS: 10_000, LEDGER: 100_000, THREADS: 1_000, AGENTS: 20, EVENTS: 20_000 };
export const SMOKE: Size = { TICKETS: 500, LEDGER: 2_000, THREADS: 50, AGENTS: 5, EVENTS: 500 };

export async function seedLarge(db: Db, projectId: string, callerId: string, size: Size): Promise<void> {
  const { TICKETS, LEDGER, THREADS, AGENTS, EVENTS } = size;
  const p = sql.lit(projectId);
  const statements = [
    // Agents besides the caller.
    sql`INSERT INTO agents (id, project_id, name, platform, role, created_at, last_seen_at)
      SELECT gen_random_uuid(), ${p}, 'bench-agent-' || g, 'claude-code', 'generator', now(), now()
      FROM generate_series(1, ${AGENTS}) g`,
    sql`CREATE TEMP TABLE bench_agents AS SELECT array_agg(id ORDER BY id) AS ids FROM agents WHERE project_id = ${p}`,
    // 10,000 tickets: mostly done, the rest spread over the board; two expected files each.
    sql`INSERT INTO tickets (id, project_id, number, title, description, type, status, expected_files,
        done_definition, verification_command, risk_class, acceptance_criteria, assignee_agent_id,
        status_changed_at, created_at, updated_at)
      SELECT gen_random_uuid(), ${p}, g, 'Ticket number ' || g || ' about module ' || (g % 97),
        'Description of ticket ' || g, 'feature',
        (ARRAY['done','done','done','done','done','done','backlog','in_progress','review','blocked',
          'cancelled','needs_review'])[1 + g % 12],
        jsonb_build_array('src/mod' || (g % 500) || '/a.ts', 'src/mod' || (g % 500) || '/b.ts'),
        'Done when module ' || g || ' works', 'deno task test', 'local', '[{"title":"works"}]'::jsonb,
        CASE WHEN g % 12 IN (6, 10) THEN NULL
          ELSE a.ids[1 + g % ${AGENTS + 1}] END,
        now() - (g || ' minutes')::interval, now() - interval '40 days', now()
      FROM generate_series(1, ${TICKETS}) g, bench_agents a`,
    sql`UPDATE projects SET ticket_seq = ${TICKETS}, brief_version = 3, brief_updated_at = now(),
        brief = jsonb_build_object('scope', repeat('Build a large thing. ', 200), 'goals', '["fast","correct"]'::jsonb,
          'stack', 'Deno, PostgreSQL', 'context', repeat('Background. ', 100))
      WHERE id = ${p}`,
    sql`CREATE TEMP TABLE bench_tickets AS
      SELECT array_agg(id ORDER BY number) AS ids FROM tickets WHERE project_id = ${p}`,
    // 100,000 ledger entries, oldest first so that seq follows created_at.
    sql`INSERT INTO ledger_entries (id, project_id, type, content, source, audit, agent_id, session_id, ticket_id,
        file_ref, labels, created_at)
      SELECT gen_random_uuid(), ${p},
        (ARRAY['PROGRESS','DECISION','TESTED','FOUND','CHANGED','CONTEXT','STATUS','PROGRESS'])[1 + g % 8],
        'Entry ' || g || ': worked on module ' || (g % 500) || ' and found nothing surprising',
        CASE WHEN g % 10 = 0 THEN 'system' ELSE 'agent' END, g % 50 = 0,
        a.ids[1 + g % ${AGENTS + 1}],
        NULL, t.ids[1 + g % ${TICKETS}],
        CASE WHEN g % 3 = 0 THEN 'src/mod' || (g % 500) || '/a.ts' END, '[]'::jsonb,
        now() - ((${LEDGER} - g) || ' seconds')::interval
      FROM generate_series(1, ${LEDGER}) g, bench_agents a, bench_tickets t`,
    sql`INSERT INTO threads (id, project_id, agent_id, intent, expected_files, status, outcome, created_at,
        closed_at, last_message_at)
      SELECT gen_random_uuid(), ${p}, a.ids[1 + g % ${AGENTS + 1}],
        'Thread ' || g || ': coordinate module ' || (g % 500), '[]'::jsonb,
        CASE WHEN g % 2 = 0 THEN 'open' ELSE 'closed' END, CASE WHEN g % 2 = 1 THEN 'settled' END,
        now() - ((${THREADS} - g) || ' minutes')::interval,
        CASE WHEN g % 2 = 1 THEN now() END, now()
      FROM generate_series(1, ${THREADS}) g, bench_agents a`,
    // Live claims: 3 files each for 40 tickets, by other agents.
    sql`INSERT INTO claims (id, project_id, agent_id, ticket_id, claimed_at, expires_at)
      SELECT gen_random_uuid(), ${p}, a.ids[2 + g % ${AGENTS}],
        t.ids[g * 12 + 8], now() - interval '5 minutes', now() + interval '365 days'
      FROM generate_series(1, 40) g, bench_agents a, bench_tickets t`,
    sql`INSERT INTO claim_files (claim_id, project_id, file)
      SELECT c.id, ${p}, 'src/claimed/' || c.id || '/' || f || '.ts'
      FROM claims c, generate_series(1, 3) f WHERE c.project_id = ${p}`,
    sql`INSERT INTO notifications (id, project_id, recipient_agent_id, kind, content, created_at)
      SELECT gen_random_uuid(), ${p}, ${sql.lit(callerId)}, 'mention', 'You were mentioned ' || g,
        now() - (g || ' minutes')::interval
      FROM generate_series(1, 100) g`,
    sql`INSERT INTO events (project_id, seq, kind, entity_type, entity_id, data, created_at)
      SELECT ${p}, g + 1000, 'ledger.appended', 'ledger_entry', g::text, '{}'::jsonb, now()
      FROM generate_series(1, ${EVENTS}) g`,
    sql`INSERT INTO event_cursors (project_id, seq) VALUES (${p}, ${EVENTS + 1000})
      ON CONFLICT (project_id) DO UPDATE SET seq = GREATEST(event_cursors.seq, ${EVENTS + 1000})`,
    // One active sprint of 1 in 50 tickets (the dashboard's sprint page and burndown), two weeks long.
    sql`INSERT INTO sprints (id, project_id, number, name, goal, status, start_date, end_date, created_at,
        updated_at, started_at)
      VALUES (gen_random_uuid(), ${p}, 1, 'Sprint 1', 'Ship the large thing', 'active',
        to_char(now() - interval '10 days', 'YYYY-MM-DD'), to_char(now() + interval '4 days', 'YYYY-MM-DD'),
        now() - interval '10 days', now(), now() - interval '10 days')`,
    sql`UPDATE tickets SET sprint_id = (SELECT id FROM sprints WHERE project_id = ${p} AND number = 1)
      WHERE project_id = ${p} AND number % 50 = 0`,
    // Two sub-agents under each of five agents (the dashboard's agents page grades each identity).
    sql`INSERT INTO sub_agents (id, project_id, parent_agent_id, name, role, created_at)
      SELECT gen_random_uuid(), ${p}, a.ids[1 + g], 'sub-' || s, 'generator', now()
      FROM generate_series(1, 5) g, generate_series(1, 2) s, bench_agents a`,
    sql`DROP TABLE bench_agents`,
    sql`DROP TABLE bench_tickets`,
  ];
  for (const statement of statements) await statement.execute(db);
  // The caller works on one ticket and holds its files, like a real generator.
  await sql`UPDATE tickets SET assignee_agent_id = ${callerId}, status = 'in_progress',
      status_changed_at = now(), criteria_acknowledged_at = now()
    WHERE project_id = ${projectId} AND number = 8`.execute(db);
}

/** `count` tickets spread over the board's columns (a third assigned to `assigneeId`). */
export async function seedBoard(db: Db, projectId: string, assigneeId: string, count: number): Promise<void> {
  await sql`INSERT INTO tickets (id, project_id, number, title, description, type, status, expected_files,
      done_definition, verification_command, risk_class, acceptance_criteria, assignee_agent_id,
      status_changed_at, created_at, updated_at)
    SELECT gen_random_uuid(), ${projectId}, g, 'Board ticket ' || g, 'Description ' || g, 'feature',
      (ARRAY['backlog','in_progress','review','blocked','done','needs_review'])[1 + g % 6],
      jsonb_build_array('src/board' || g || '.ts'), 'Done when ' || g || ' works', 'deno task test', 'local',
      '[{"title":"works"}]'::jsonb, CASE WHEN g % 3 = 0 THEN ${assigneeId}::uuid END,
      now() - (g || ' minutes')::interval, now() - interval '10 days', now()
    FROM generate_series(1, ${count}) g`.execute(db);
  await sql`UPDATE projects SET ticket_seq = ${count} WHERE id = ${projectId}`.execute(db);
}

/** What autovacuum would have done on a live database: statistics and the visibility map. */
export async function analyze(db: Db): Promise<void> {
  await sql`VACUUM ANALYZE`.execute(db);
}
