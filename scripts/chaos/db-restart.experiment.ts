/**
 * Chaos experiment `db-restart`: agents run the whole loop in parallel (pair, ticket with acceptance
 * criteria, acknowledge, begin, claim a contended file, PROGRESS / TESTED / CHANGED entries, handoff)
 * against the service on a throwaway PostgreSQL, and in the middle the PostgreSQL server is stopped
 * (`pg_ctl stop -m fast`), left down for a few seconds and started again.
 *
 * Checks: every answer during the outage is a JSON 503 SERVICE_UNAVAILABLE with RETRY_LATER and
 * Retry-After (no 500, no dropped connection); the service recovers by itself (loops complete after
 * the restart); afterwards every handed-off ticket has its DONE entry and no live claims, no file has
 * two live holders, every ledger entry answered 2xx is in the database; the service still ends on
 * SIGTERM in a few seconds.
 *
 *   deno run -A scripts/chaos/db-restart.experiment.ts
 *   CHAOS_AGENTS=6 CHAOS_OUTAGE_MS=3000 deno run -A scripts/chaos/db-restart.experiment.ts
 */
import {
  type Agent,
  agentOf,
  check,
  experiment,
  newProject,
  pair,
  type Reply,
  request,
  type Service,
  sleep,
  sqlClient,
  startPostgres,
  startService,
  Tally,
} from "./lib.ts";

const AGENTS = Number(Deno.env.get("CHAOS_AGENTS") ?? 6);
const LOOP_MIN_MS = 2_000;
const BEFORE_MS = Number(Deno.env.get("CHAOS_BEFORE_MS") ?? 8_000);
const OUTAGE_MS = Number(Deno.env.get("CHAOS_OUTAGE_MS") ?? 3_000);
const AFTER_MS = Number(Deno.env.get("CHAOS_AFTER_MS") ?? 12_000);
/** Files every agent competes for (one live holder each). */
const SHARED_FILES = ["src/shared/config.ts", "src/shared/db.ts", "src/shared/http.ts", "src/shared/log.ts"];

await experiment("db-restart", 110_000, async () => {
  const pg = await startPostgres();
  const svc = await startService({ DATABASE_URL: pg.url }, { quiet: true });
  // One project per worker, and each loop paced to at least LOOP_MIN_MS: a project's burst budget
  // (720 units a minute) then holds the loop's ~20 units at 30 loops a minute, so what the workers meet
  // is the outage, not their own rate limit.
  const projects: Awaited<ReturnType<typeof newProject>>[] = [];
  for (let i = 0; i < AGENTS; i++) {
    projects.push(await newProject(svc.base, `CH${String.fromCharCode(65 + i)}`));
  }
  for (const { projectId } of projects) {
    const lead = agentOf(await pair(svc.base, projectId, "lead"), "lead");
    const brief = await request(svc.base, "PATCH", "/api/brief", {
      token: lead.token,
      body: { scope: "A small service, built module by module under chaos" },
    });
    if (brief.status !== 200) throw new Error(`brief: ${brief.status} ${brief.text}`);
  }

  const tally = new Tally();
  const outageTally = new Tally();
  const acknowledged: string[] = []; // ledger entry ids answered 2xx
  const handedOff: string[] = []; // ticket ids whose handoff answered 2xx
  const window = { down: 0, up: 0 };
  let stop = false;
  let loops = 0;
  let loopsAfterRestart = 0;
  let firstSuccessAfterUp = 0;
  let lastToken = "";

  /** One step, retried while the answer is 503 / no answer / 429 (bounded by the stop flag). */
  async function step(label: string, send: () => Promise<Reply>): Promise<Reply> {
    for (let attempt = 0;; attempt++) {
      const r = await send();
      const t = performance.now();
      tally.add(label, r);
      const sentAt = t - r.ms;
      if (window.down > 0 && sentAt >= window.down && (window.up === 0 || sentAt < window.up)) {
        // Sent while the database was down.
        outageTally.add(label, r);
      }
      if (r.status >= 200 && r.status < 300 && window.up > 0 && firstSuccessAfterUp === 0) {
        firstSuccessAfterUp = t;
      }
      const transient = r.status === 503 || r.status === 0 || r.status === 429;
      if (!transient || (stop && attempt > 20)) return r;
      const retryAfter = Number(r.headers.get("Retry-After") ?? "1");
      await sleep(r.status === 429 ? Math.min(retryAfter, 2) * 1000 : 300);
    }
  }

  async function worker(index: number): Promise<void> {
    const { projectId } = projects[index % projects.length]!;
    let loopStarted = performance.now();
    for (let n = 0; !stop; n++) {
      if (n > 0) await sleep(Math.max(0, loopStarted + LOOP_MIN_MS - performance.now()));
      loopStarted = performance.now();
      const name = `w${index}-${n}`;
      const paired = await step("pair", () => pair(svc.base, projectId, name));
      if (paired.status !== 200) continue;
      const agent: Agent = agentOf(paired, name);
      lastToken = agent.token;
      const call = (label: string, method: string, path: string, body?: unknown) =>
        step(label, () => request(svc.base, method, `/api${path}`, { token: agent.token, body }));
      const own = `src/${name}/module.ts`;
      const created = await call("ticket", "POST", "/ticket", {
        title: `Module ${name}`,
        expectedFiles: [own],
        doneDefinition: "The module works and is covered by tests",
        verificationCommand: `deno test src/${name}`,
        riskClass: "local",
        acceptanceCriteria: [{ title: "It works", requiresEvidence: true }, { title: "It is tested" }],
      });
      if (created.status !== 201) continue;
      const ticketId: string = created.body.data.id;
      await call("acknowledge", "POST", `/ticket/${ticketId}/acknowledge`, {});
      const begun = await call("begin", "POST", "/begin", { ticketId, files: [own] });
      if (begun.status !== 200) continue;
      const shared = SHARED_FILES[(index + n) % SHARED_FILES.length]!;
      await call("claim", "POST", "/claim", { files: [shared], ticketId, estimatedSeconds: 600 });
      for (
        const entry of [
          { type: "PROGRESS", content: `Built ${own}` },
          { type: "TESTED", content: `deno test src/${name}: 4 passed` },
          { type: "CHANGED", content: `Changed ${own}`, fileRef: own },
        ]
      ) {
        const written = await call("ledger", "POST", "/ledger", {
          ...entry,
          sessionId: agent.sessionId,
          ticketId,
        });
        if (written.status === 201) acknowledged.push(written.body.data.id);
      }
      const handed = await call("handoff", "POST", "/handoff", {
        moduleName: name,
        summary: `Finished ${name}`,
        sessionId: agent.sessionId,
        ticketId,
        testResults: "4 passed",
      });
      if (handed.status === 200) {
        handedOff.push(ticketId);
        loops++;
        if (window.up > 0) loopsAfterRestart++;
      }
    }
  }

  const workers = Array.from({ length: AGENTS }, (_, i) => worker(i));
  await sleep(BEFORE_MS);
  const loopsBefore = loops;
  console.log(`  ${AGENTS} agents, ${loopsBefore} loops done; stopping PostgreSQL for ${OUTAGE_MS} ms`);
  window.down = performance.now();
  await pg.stop();
  await sleep(OUTAGE_MS);
  await pg.start();
  window.up = performance.now();
  console.log(`  PostgreSQL back after ${((window.up - window.down) / 1000).toFixed(1)} s`);
  await sleep(AFTER_MS);
  stop = true;
  await Promise.all(workers);

  tally.print("all");
  outageTally.print("sent while PostgreSQL was down");
  const recoveredIn = firstSuccessAfterUp > 0 ? (firstSuccessAfterUp - window.up) / 1000 : NaN;
  console.log(
    `  loops: ${loops} handed off (${loopsBefore} before the outage, ${loopsAfterRestart} after the restart); ` +
      `${acknowledged.length} ledger entries acknowledged; first 2xx ${
        recoveredIn.toFixed(2)
      } s after restart`,
  );

  check(
    "requests were refused during the outage",
    outageTally.unavailable > 0,
    `${outageTally.unavailable} 503s`,
  );
  check(
    "every 503 is JSON SERVICE_UNAVAILABLE with RETRY_LATER and Retry-After",
    tally.badUnavailable.length === 0,
    tally.badUnavailable.slice(0, 3).join(" | "),
  );
  check(
    "no 500 (or other 5xx than 503)",
    tally.serverErrors.length === 0,
    tally.serverErrors.slice(0, 3).join(" | "),
  );
  const dropped = tally.byStatus.get("no answer") ?? 0;
  check(
    "every request got an HTTP answer",
    dropped === 0,
    `${dropped} without answer ${tally.noAnswer.join(" | ")}`,
  );
  check("the service recovered by itself", loopsAfterRestart > 0, `${loopsAfterRestart} loops after restart`);
  const reasons = new Map<string, number>();
  for (const line of svc.lines) {
    const m = /database unavailable: (.*)$/.exec(line);
    if (m) reasons.set(m[1]!.slice(0, 120), (reasons.get(m[1]!.slice(0, 120)) ?? 0) + 1);
  }
  console.log(
    `  503 reasons logged by the service: ${[...reasons].map(([k, v]) => `${k} (${v})`).join("; ")}`,
  );
  const exitedEarly = await Promise.race([svc.exited.then(() => true), sleep(0).then(() => false)]);
  check("the service is still running", !exitedEarly, exitedEarly ? svc.lines.slice(-8).join("\n") : "");
  const unexpected = svc.lines.filter((l) => l.includes("unexpected error"));
  check(
    "no unexpected error in the service log",
    unexpected.length === 0,
    unexpected[0]?.slice(0, 200) ?? "",
  );

  await invariants(pg.url, handedOff, acknowledged);
  // The shutdown defect of issue 8: with PostgreSQL stopped under the service, SIGTERM must still end it.
  await pg.stop();
  const during = await request(svc.base, "GET", "/api/me", { token: lastToken });
  check("with PostgreSQL stopped, GET /me answers 503", during.status === 503, `${during.status}`);
  await sigterm(svc);
});

async function invariants(url: string, handedOff: string[], acknowledged: string[]): Promise<void> {
  const sql = sqlClient(url);
  const done = await sql<{ ticket_id: string }[]>`
    SELECT DISTINCT ticket_id FROM ledger_entries WHERE type = 'DONE' AND ticket_id = ANY(${handedOff})`;
  const doneSet = new Set(done.map((r) => r.ticket_id));
  const missingDone = handedOff.filter((id) => !doneSet.has(id));
  check(
    "every handed-off ticket has its DONE entry",
    missingDone.length === 0,
    `${handedOff.length - missingDone.length}/${handedOff.length}`,
  );
  const live = await sql<{ n: number }[]>`
    SELECT count(*)::int AS n FROM claim_files f JOIN claims c ON c.id = f.claim_id
    WHERE c.ticket_id = ANY(${handedOff}) AND f.released_at IS NULL AND c.released_at IS NULL`;
  check("no handed-off ticket keeps a live claim", live[0]!.n === 0, `${live[0]!.n} live claim files`);
  const doubles = await sql<{ file: string; holders: number }[]>`
    SELECT f.project_id, f.file, count(DISTINCT c.agent_id)::int AS holders
    FROM claim_files f JOIN claims c ON c.id = f.claim_id
    WHERE f.released_at IS NULL AND c.released_at IS NULL AND c.expires_at > now()
    GROUP BY f.project_id, f.file HAVING count(DISTINCT c.agent_id) > 1`;
  check("no file has two live holders", doubles.length === 0, doubles.map((d) => d.file).join(", "));
  const found = await sql<{ n: number }[]>`
    SELECT count(*)::int AS n FROM ledger_entries WHERE id = ANY(${acknowledged})`;
  check(
    "every acknowledged ledger entry is in the database",
    found[0]!.n === acknowledged.length,
    `${found[0]!.n}/${acknowledged.length}`,
  );
}

/** The service still shuts down on SIGTERM within a few seconds. */
async function sigterm(svc: Service): Promise<void> {
  const started = performance.now();
  svc.kill("SIGTERM");
  const status = await Promise.race([svc.exited, sleep(10_000).then(() => null)]);
  const seconds = (performance.now() - started) / 1000;
  check(
    "SIGTERM ends the service within 10 s",
    status !== null,
    `${seconds.toFixed(1)} s, exit ${status?.code}`,
  );
}
