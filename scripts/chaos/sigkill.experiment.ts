/**
 * Chaos experiment `sigkill`: parallel writers (ledger entries; handoffs with `toolResults`, each of
 * which queues a `pending_jobs` row for the background worker) run against the service, which is killed
 * with SIGKILL right after a handoff answered, then started again on the same database. Once on a
 * throwaway PostgreSQL, once on the embedded PGlite data directory (DATABASE_URL unset, DATA_DIR a
 * temporary directory).
 *
 * Checks, per engine: the service starts again on the killed database (for PGlite, the data directory
 * also opens cleanly in another process first); every write answered 2xx is there; the jobs queued by
 * acknowledged handoffs all complete after the restart (their TESTED entries written); writes succeed
 * after the restart.
 *
 *   deno run -A scripts/chaos/sigkill.experiment.ts
 */
import { PGlite } from "@electric-sql/pglite";
import {
  type Agent,
  agentOf,
  check,
  experiment,
  newProject,
  onCleanup,
  pair,
  request,
  sleep,
  sqlClient,
  startPostgres,
  startService,
  Tally,
} from "./lib.ts";

const WRITERS = Number(Deno.env.get("CHAOS_WRITERS") ?? 6);
const HANDOFF_AGENTS = Number(Deno.env.get("CHAOS_HANDOFF_AGENTS") ?? 2);
const WORKLOAD_MS = Number(Deno.env.get("CHAOS_WORKLOAD_MS") ?? 4_000);
const TOOL_MARK = "chaos-tool-run";

type Query = (text: string) => Promise<Record<string, unknown>[]>;

await experiment("sigkill", 118_000, async () => {
  // Independent databases and ports: the two rounds run side by side (lines carry the engine).
  await Promise.all([round("postgres"), round("pglite")]);
});

async function round(engine: "postgres" | "pglite"): Promise<void> {
  const log = (line: string): void => console.log(`  [${engine}] ${line.trim()}`);
  let env: Record<string, string>;
  let dataDir = "";
  let pgUrl = "";
  if (engine === "postgres") {
    pgUrl = (await startPostgres()).url;
    env = { DATABASE_URL: pgUrl };
  } else {
    dataDir = await Deno.makeTempDir({ prefix: "chaos-pglite-" });
    onCleanup(() => Deno.remove(dataDir, { recursive: true }).catch(() => {}));
    env = { DATABASE_URL: "", DATA_DIR: dataDir };
  }
  let svc = await startService(env, { label: `${engine} #1`, quiet: true });
  const { projectId } = await newProject(svc.base, engine === "postgres" ? "KPG" : "KPL");
  const lead = agentOf(await pair(svc.base, projectId, "lead"), "lead");
  const brief = await request(svc.base, "PATCH", "/api/brief", {
    token: lead.token,
    body: { scope: "Writers under SIGKILL" },
  });
  if (brief.status !== 200) throw new Error(`brief: ${brief.status} ${brief.text}`);

  const tally = new Tally();
  const acked: string[] = [];
  const handedSessions: string[] = [];
  const writers: Agent[] = [];
  let stop = false;
  let lastHandoff = 0;

  async function writer(agent: Agent): Promise<void> {
    for (let n = 0; !stop; n++) {
      const r = await request(svc.base, "POST", "/api/ledger", {
        token: agent.token,
        body: { type: "PROGRESS", content: `${agent.name} step ${n}`, sessionId: agent.sessionId },
        timeoutMs: 5_000,
      });
      tally.add("ledger", r);
      if (r.status === 201) acked.push(r.body.data.id);
      if (r.status === 0) return; // the service is gone
    }
  }

  async function handoffs(index: number): Promise<void> {
    for (let n = 0; !stop; n++) {
      const name = `h${index}-${n}`;
      const paired = await pair(svc.base, projectId, name);
      tally.add("pair", paired);
      if (paired.status !== 200) return;
      const agent = agentOf(paired, name);
      const progress = await request(svc.base, "POST", "/api/ledger", {
        token: agent.token,
        body: { type: "PROGRESS", content: `${name} built the module`, sessionId: agent.sessionId },
      });
      tally.add("ledger", progress);
      if (progress.status !== 201) return;
      acked.push(progress.body.data.id);
      const handed = await request(svc.base, "POST", "/api/handoff", {
        token: agent.token,
        body: {
          moduleName: name,
          summary: `Finished ${name}`,
          sessionId: agent.sessionId,
          toolResults: [{ command: `deno test ${name}`, output: `${TOOL_MARK} 3 passed`, exitCode: 0 }],
        },
        timeoutMs: 5_000,
      });
      tally.add("handoff", handed);
      if (handed.status === 200) {
        handedSessions.push(agent.sessionId);
        lastHandoff = performance.now();
      }
      if (handed.status === 0) return;
    }
  }

  for (let i = 0; i < WRITERS; i++) {
    const paired = await pair(svc.base, projectId, `writer-${i}`);
    if (paired.status !== 200) throw new Error(`pair: ${paired.status} ${paired.text}`);
    writers.push(agentOf(paired, `writer-${i}`));
  }
  const work = [...writers.map(writer), ...Array.from({ length: HANDOFF_AGENTS }, (_, i) => handoffs(i))];
  await sleep(WORKLOAD_MS);
  // Kill right after a handoff answered, so its tool-results job is still pending.
  const waitFrom = performance.now();
  const seen = lastHandoff;
  while (lastHandoff === seen && performance.now() - waitFrom < 5_000) await sleep(5);
  svc.kill("SIGKILL");
  const killedAt = performance.now();
  await svc.exited;
  stop = true;
  await Promise.all(work);
  log(`before the kill: ${tally.summary()}`);
  log(
    `  killed ${((killedAt - lastHandoff) | 0)} ms after the last handoff; ${acked.length} ledger entries ` +
      `and ${handedSessions.length} handoffs acknowledged`,
  );

  let pendingAtKill = -1;
  if (engine === "pglite") {
    // The killed data directory opens cleanly in another process before the service starts on it.
    let opened = false;
    try {
      const db = new PGlite(`${dataDir}/pgdata`);
      await db.waitReady;
      const rows = await db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM pending_jobs WHERE done_at IS NULL",
      );
      pendingAtKill = rows.rows[0]!.n;
      await db.close();
      opened = true;
    } catch (err) {
      log(`  cannot open the data directory: ${err instanceof Error ? err.message : err}`);
    }
    check(`${engine}: the killed data directory opens cleanly`, opened);
  } else {
    const sql = sqlClient(pgUrl);
    const rows = await sql<
      { n: number }[]
    >`SELECT count(*)::int AS n FROM pending_jobs WHERE done_at IS NULL`;
    pendingAtKill = rows[0]!.n;
  }
  log(`  pending jobs at the kill: ${pendingAtKill}`);

  const restartedAt = performance.now();
  svc = await startService(env, { label: `${engine} #2`, port: svc.port, quiet: true });
  log(`  restarted in ${((performance.now() - restartedAt) / 1000).toFixed(1)} s`);
  check(`${engine}: the service starts again on the killed database`, true);
  // A writer of a fresh project: the workload's project may have spent its one-minute burst window
  // (429 RATE_LIMITED is the limiter doing its job, not a failed restart).
  const fresh = await newProject(svc.base, engine === "postgres" ? "KPA" : "KLA");
  const afterWriter = agentOf(await pair(svc.base, fresh.projectId, "after"), "after");
  const after = await request(svc.base, "POST", "/api/ledger", {
    token: afterWriter.token,
    body: { type: "PROGRESS", content: "written after the restart", sessionId: afterWriter.sessionId },
  });
  check(`${engine}: writes succeed after the restart`, after.status === 201, `${after.status}`);
  if (after.status === 201) acked.push(after.body.data.id);

  const ids = acked.map((id) => `'${id}'`).join(",") || "NULL";
  const sessions = handedSessions.map((id) => `'${id}'`).join(",") || "NULL";
  const jobsQuery = `SELECT count(*) FILTER (WHERE done_at IS NULL)::int AS open, count(*)::int AS total,
      count(*) FILTER (WHERE payload->>'sessionId' IN (${sessions}))::int AS ours FROM pending_jobs`;
  // The worker runs every second: give the restarted one a few rounds.
  let query: Query;
  let jobs: Record<string, unknown> = {};
  if (engine === "postgres") {
    query = await inspector(pgUrl, "");
    for (let i = 0; i < 20; i++) {
      jobs = (await query(jobsQuery))[0]!;
      if (jobs.open === 0) break;
      await sleep(500);
    }
  } else {
    // The embedded database has one owner: let the worker run, stop the service, read the directory.
    await sleep(3_000);
    svc.kill("SIGTERM");
    await svc.exited;
    query = await inspector("", dataDir);
    jobs = (await query(jobsQuery))[0]!;
  }
  const present =
    (await query(`SELECT count(*)::int AS n FROM ledger_entries WHERE id::text IN (${ids})`))[0]!;
  const tested = (await query(
    `SELECT count(DISTINCT session_id)::int AS n FROM ledger_entries
     WHERE type = 'TESTED' AND content LIKE '%${TOOL_MARK}%' AND session_id::text IN (${sessions})`,
  ))[0]!;
  check(
    `${engine}: every write answered 2xx is there`,
    present.n === acked.length,
    `${present.n}/${acked.length} ledger entries`,
  );
  check(
    `${engine}: pending jobs complete after the restart`,
    jobs.open === 0 && Number(jobs.ours) >= handedSessions.length,
    `${pendingAtKill} pending at the kill; now ${jobs.open} open of ${jobs.total} (${jobs.ours} from acknowledged handoffs)`,
  );
  check(
    `${engine}: every acknowledged handoff's tool results were written`,
    tested.n === handedSessions.length,
    `${tested.n}/${handedSessions.length}`,
  );
  svc.kill("SIGKILL");
  await svc.exited;
}

/** Runs SQL on the round's database: postgres.js, or the PGlite directory (once the service is gone). */
async function inspector(url: string, dataDir: string): Promise<Query> {
  if (url) {
    const sql = sqlClient(url);
    return async (text) => [...(await sql.unsafe(text))] as Record<string, unknown>[];
  }
  const db = new PGlite(`${dataDir}/pgdata`);
  await db.waitReady;
  onCleanup(() => db.closed ? undefined : db.close());
  return async (text) => (await db.query<Record<string, unknown>>(text)).rows;
}
