/**
 * `deno task bench`: latency of GET /context (full and compact), /context/more and /events on a large
 * project: 10,000 tickets, 100,000 ledger entries, 1,000 threads (plus claims, notifications, events),
 * seeded with bulk SQL. Runs in-process (app.fetch) against PostgreSQL when DATABASE_URL or
 * TEST_DATABASE_URL is set (a throwaway database is created and dropped), else in-memory PGlite.
 *
 *   deno task bench                 # PGlite
 *   TEST_DATABASE_URL=postgres://postgres@127.0.0.1:55432/postgres deno task bench
 *   BENCH_ITERATIONS=500 deno task bench
 */
import postgres from "postgres";
import { sql } from "kysely";
import { createApp } from "@/app.ts";
import { LOOPBACK_PROXIES } from "@/http/client-address.ts";
import { systemClock } from "@/clock.ts";
import { readConfig } from "@/config.ts";
import type { Db } from "@/db/database.ts";
import { openDatabase } from "@/db/dialect.ts";
import { migrateToLatest } from "@/db/migrate.ts";

const TICKETS = 10_000;
const LEDGER = 100_000;
const THREADS = 1_000;
const AGENTS = 20;
const EVENTS = 20_000;
const ITERATIONS = Number(Deno.env.get("BENCH_ITERATIONS") ?? 300);
const ADMIN = "bench-admin-token";

async function openBenchDatabase() {
  const base = Deno.env.get("DATABASE_URL") ?? Deno.env.get("TEST_DATABASE_URL");
  if (!base || !/^postgres(ql)?:\/\//.test(base)) {
    return { ...(await openDatabase("memory://", "")), label: "PGlite (in-memory)", drop: async () => {} };
  }
  const name = `svc_bench_${crypto.randomUUID().replace(/-/g, "").slice(0, 12)}`;
  if (Deno.env.get("BENCH_KEEP") === "1") console.log(`database ${name}`);
  const admin = postgres(base, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(base);
  url.pathname = `/${name}`;
  const opened = await openDatabase(url.toString(), "");
  return {
    ...opened,
    label: "PostgreSQL",
    drop: async () => {
      const again = postgres(base, { max: 1, onnotice: () => {} });
      await again.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
      await again.end();
    },
  };
}

async function seed(db: Db, projectId: string, callerId: string): Promise<void> {
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
    sql`DROP TABLE bench_agents`,
    sql`DROP TABLE bench_tickets`,
  ];
  for (const statement of statements) await statement.execute(db);
  // The caller works on one ticket and holds its files, like a real generator.
  await sql`UPDATE tickets SET assignee_agent_id = ${callerId}, status = 'in_progress',
      status_changed_at = now(), criteria_acknowledged_at = now()
    WHERE project_id = ${projectId} AND number = 8`.execute(db);
  // What autovacuum would have done on a live database: statistics and the visibility map.
  await sql`VACUUM ANALYZE`.execute(db);
}

function percentile(sorted: number[], p: number): number {
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i] ?? NaN;
}

async function main() {
  const opened = await openBenchDatabase();
  const { db } = opened;
  try {
    await migrateToLatest(db);
    const config = {
      ...readConfig({}),
      adminToken: ADMIN,
      publicUrl: "http://localhost:8787",
      trustedProxies: LOOPBACK_PROXIES,
    };
    const app = createApp({ db, engine: opened.engine, clock: systemClock(), config });
    const request = async (method: string, path: string, token: string, body?: unknown) => {
      const res = await app.fetch(
        new Request(`http://localhost:8787${path}`, {
          method,
          headers: {
            Authorization: `Bearer ${token}`,
            ...(body ? { "Content-Type": "application/json" } : {}),
          },
          body: body ? JSON.stringify(body) : null,
        }),
      );
      const text = await res.text();
      return { status: res.status, text };
    };
    const adminCall = async (path: string, body: unknown) => {
      const res = await request("POST", `/admin${path}`, ADMIN, body);
      if (res.status >= 300) throw new Error(`${path}: ${res.status} ${res.text}`);
      return JSON.parse(res.text).data;
    };
    const org = await adminCall("/orgs", { name: "Bench", plan: "enterprise" });
    const project = await adminCall("/projects", { orgId: org.id, name: "Bench", ticketPrefix: "BEN" });
    const code = await adminCall(`/projects/${project.id}/pairing-codes`, { agentName: "bench-caller" });
    const paired = await app.fetch(
      new Request("http://localhost:8787/api/pair/connect", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ code: code.code, platform: "claude-code" }),
      }),
    );
    const pairing = (await paired.json()).data;
    const token: string = pairing.sessionToken;

    const t0 = performance.now();
    await seed(db, project.id, pairing.agent.id);
    const seedMs = performance.now() - t0;
    await sql`UPDATE claims SET expires_at = now() + interval '365 days' WHERE project_id = ${project.id}`
      .execute(db);

    const counts = await sql<{ tickets: number; ledger: number; threads: number }>`SELECT
        (SELECT count(*)::int FROM tickets WHERE project_id = ${project.id}) AS tickets,
        (SELECT count(*)::int FROM ledger_entries WHERE project_id = ${project.id}) AS ledger,
        (SELECT count(*)::int FROM threads WHERE project_id = ${project.id}) AS threads`.execute(db);
    const seeded = counts.rows[0]!;
    console.log(
      `${opened.label}: seeded ${seeded.tickets} tickets, ${seeded.ledger} ledger entries, ${seeded.threads} ` +
        `threads in ${(seedMs / 1000).toFixed(1)} s; ${ITERATIONS} timed calls per row\n`,
    );

    const firstEvents = JSON.parse((await request("GET", "/api/events?limit=1", token)).text).data.nextCursor;
    const cases: Array<[string, string]> = [
      ["GET /context (full)", "/api/context"],
      ["GET /context?compact=true", "/api/context?compact=true"],
      ["GET /context (all threads, 100 ledger)", "/api/context?thread_status=all&ledger_limit=100"],
      ["GET /context?ledger_type=DECISION", "/api/context?ledger_type=DECISION&compact=true"],
      ["GET /context/more?section=ledger", "/api/context/more?section=ledger"],
      ["GET /context/more?section=reviews", "/api/context/more?section=reviews"],
      ["GET /events (100 from the start)", `/api/events?since=${firstEvents}`],
      ["GET /me (baseline: auth + rate limit)", "/api/me"],
    ];
    // Steady state: every case warms up first (plan caches, buffer cache, JIT), then each is timed.
    for (const [, path] of cases) {
      for (let i = 0; i < 20; i++) {
        if (i % 40 === 0) await sql`DELETE FROM rate_counters`.execute(db);
        await request("GET", path, token);
      }
    }
    const rows: Array<Record<string, string>> = [];
    let bytes = 0;
    for (const [label, path] of cases) {
      const samples: number[] = [];
      for (let i = 0; i < ITERATIONS + 5; i++) {
        // Rate-limit and session-burst windows are reset outside the timed region.
        if (i % 40 === 0) await sql`DELETE FROM rate_counters`.execute(db);
        const start = performance.now();
        const res = await request("GET", path, token);
        const ms = performance.now() - start;
        if (res.status !== 200) throw new Error(`${label}: ${res.status} ${res.text.slice(0, 300)}`);
        if (i === 0 && path === "/api/context") bytes = JSON.parse(res.text).meta.responseBytes;
        if (i >= 5) samples.push(ms);
      }
      samples.sort((a, b) => a - b);
      const mean = samples.reduce((s, v) => s + v, 0) / samples.length;
      rows.push({
        endpoint: label,
        p50: percentile(samples, 50).toFixed(2),
        p95: percentile(samples, 95).toFixed(2),
        p99: percentile(samples, 99).toFixed(2),
        mean: mean.toFixed(2),
        max: (samples.at(-1) ?? NaN).toFixed(2),
      });
    }
    const headers = ["endpoint", "p50 ms", "p95 ms", "p99 ms", "mean ms", "max ms"];
    const keys = ["endpoint", "p50", "p95", "p99", "mean", "max"];
    const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[keys[i]!] ?? "").length)));
    const line = (cells: string[]) =>
      cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ");
    console.log(line(headers));
    console.log(widths.map((w) => "-".repeat(w)).join("  "));
    for (const r of rows) console.log(line(keys.map((k) => r[k] ?? "")));
    const load = Deno.loadavg().map((v) => v.toFixed(1)).join(" ");
    console.log(`\nmachine load average (1, 5, 15 min): ${load} on ${navigator.hardwareConcurrency} CPUs`);
    console.log(`\nfull context data: ${bytes} bytes`);
  } finally {
    await opened.close();
    if (Deno.env.get("BENCH_KEEP") === "1") console.log("kept the database (BENCH_KEEP=1)");
    else await opened.drop();
  }
}

if (import.meta.main) await main();
