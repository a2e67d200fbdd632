/**
 * Many instances on one PostgreSQL (issue 8, item 6). Standalone:
 *
 *   deno run -A scripts/chaos/instances.experiment.ts
 *
 * Starts a throwaway PostgreSQL (scripts/pg-temp.sh) and three service processes on it (`src/main.ts`,
 * each its own port, test clock on), then drives the agent loop across them round-robin over real HTTP
 * and checks that nothing answers differently than with one process: claim uniqueness, one agent's
 * concurrent overlapping claims all succeeding (never refused by itself), a per-agent
 * rate limit and the per-address pairing limit (refused at the same totals as on one process), pairing
 * strikes, refresh-token rotation, the 30-second `/me` cache, the test clock and the operator's undo (a
 * credential revoked on one process is refused by the others on their next request); and that the background
 * pruning keeps `rate_counters`, `pending_jobs`, codes and tokens bounded. Prints every check with its
 * figures and a summary; exits 1 on any failed check. Every child process and the database are stopped
 * at the end, whatever happens; the whole run is bounded (DEADLINE_MS).
 */
import postgres from "postgres";
import { normalizeCode } from "@/domain/pairing/codes.ts";
import { hashPairingCode } from "@/domain/core/crypto.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const DEADLINE_MS = 88_000;
const INSTANCES = 3;
const ADMIN_TOKEN = `chaos-admin-${crypto.randomUUID()}`;
const MINUTE = 60_000;
const HOUR = 3600_000;
const DAY = 24 * HOUR;

// ---------------------------------------------------------------------------------------------------
// Bookkeeping: every request and every check, with figures.

interface Check {
  name: string;
  ok: boolean;
  figures: string;
}
const checks: Check[] = [];
const requestsByStatus = new Map<number, number>();
let requestCount = 0;
const started = performance.now();

function elapsed(): string {
  return `${((performance.now() - started) / 1000).toFixed(1)}s`;
}

function record(name: string, ok: boolean, figures: string): void {
  checks.push({ name, ok, figures });
  console.log(`${ok ? "PASS" : "FAIL"} [${elapsed()}] ${name}\n     ${figures.replaceAll("\n", "\n     ")}`);
}

function tally(statuses: number[]): string {
  const counts = new Map<number, number>();
  for (const s of statuses) counts.set(s, (counts.get(s) ?? 0) + 1);
  return [...counts.entries()].sort((a, b) => a[0] - b[0]).map(([s, n]) => `${s}x${n}`).join(" ");
}

function count(statuses: number[], status: number): number {
  return statuses.filter((s) => s === status).length;
}

// ---------------------------------------------------------------------------------------------------
// Processes: PostgreSQL and the service instances. Cleanup kills every child, once.

interface Instance {
  index: number;
  url: string;
  child: Deno.ChildProcess;
  log: string[];
}

const instances: Instance[] = [];
let pg: { dir: string; url: string } | null = null;
let sqlClient: postgres.Sql | null = null;
let cleaned: Promise<void> | null = null;

function cleanup(): Promise<void> {
  cleaned ??= (async () => {
    for (const inst of instances) {
      try {
        inst.child.kill("SIGKILL");
      } catch { /* already gone */ }
    }
    await Promise.all(instances.map((i) => i.child.status.catch(() => null)));
    if (sqlClient) await sqlClient.end({ timeout: 1 }).catch(() => {});
    if (pg) {
      await new Deno.Command("bash", { args: [`${ROOT}scripts/pg-temp.sh`, "stop", pg.dir] }).output()
        .catch(() => null);
    }
  })();
  return cleaned;
}

async function startPostgres(): Promise<{ dir: string; url: string }> {
  const out = await new Deno.Command("bash", {
    args: [`${ROOT}scripts/pg-temp.sh`],
    env: { PGTEMP_PORT: String(56000 + Math.floor(Math.random() * 2000)) },
    stderr: "inherit",
  }).output();
  const line = new TextDecoder().decode(out.stdout).trim().split("\n").pop() ?? "";
  const [dir, url] = line.split(" ");
  if (!out.success || !dir || !url) throw new Error(`Cannot start PostgreSQL: ${line}`);
  return { dir, url };
}

/** Keeps the last lines of a stream (so the pipe never blocks) and resolves when `match` shows up. */
function follow(stream: ReadableStream<Uint8Array>, log: string[], match: RegExp): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    (async () => {
      let found = false;
      let buffered = "";
      for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
        buffered += chunk;
        const lines = buffered.split("\n");
        buffered = lines.pop() ?? "";
        for (const line of lines) {
          log.push(line);
          if (log.length > 200) log.shift();
          const m = match.exec(line);
          if (m && !found) {
            found = true;
            resolve(m);
          }
        }
      }
      if (!found) reject(new Error("stream ended before the expected line"));
    })().catch(reject);
  });
}

async function startInstance(index: number, databaseUrl: string): Promise<Instance> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "src/main.ts"],
    cwd: ROOT,
    env: {
      PORT: "0",
      HOST: "127.0.0.1",
      PUBLIC_URL: "http://svc.chaos.test",
      DATABASE_URL: databaseUrl,
      SVC_ADMIN_TOKEN: ADMIN_TOKEN,
      SVC_TEST_CLOCK: "1",
      SVC_NO_DEMO: "1",
      SVC_TRUST_PROXY: "",
    },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const log: string[] = [];
  const errLog: string[] = [];
  follow(child.stderr, errLog, /$^/).catch(() => {});
  const inst: Instance = { index, url: "", child, log: errLog };
  instances.push(inst);
  const timeout = new Promise<never>((_, reject) =>
    setTimeout(() => reject(new Error(`instance ${index} did not listen within 40 s`)), 40_000)
  );
  const exited = child.status.then((s) => {
    throw new Error(`instance ${index} exited (${s.code}): ${errLog.slice(-5).join(" | ")}`);
  });
  const m = await Promise.race([
    follow(child.stdout, log, /listening on (http:\/\/[^\s"]+)/),
    timeout,
    exited,
  ]);
  inst.url = m[1]!;
  return inst;
}

// ---------------------------------------------------------------------------------------------------
// HTTP.

interface Res {
  status: number;
  // deno-lint-ignore no-explicit-any
  body: any;
  text: string;
}

async function req(
  inst: Instance,
  method: string,
  path: string,
  options: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<Res> {
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  if (options.token) headers.Authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) headers["Content-Type"] = "application/json";
  requestCount++;
  const res = await fetch(`${inst.url}${path}`, {
    method,
    headers,
    body: options.body === undefined ? null : JSON.stringify(options.body),
    signal: AbortSignal.timeout(20_000),
  });
  const text = await res.text();
  requestsByStatus.set(res.status, (requestsByStatus.get(res.status) ?? 0) + 1);
  let body = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch { /* text/plain */ }
  return { status: res.status, body, text };
}

const on = (i: number) => instances[i % instances.length]!;

// deno-lint-ignore no-explicit-any
async function admin(i: number, method: string, path: string, body: unknown = {}): Promise<any> {
  const res = await req(on(i), method, `/admin${path}`, { token: ADMIN_TOKEN, body });
  if (res.status >= 300) {
    throw new Error(`admin ${method} ${path} on #${i % INSTANCES}: ${res.status} ${res.text}`);
  }
  return res.body.data;
}

/** The service time as instance `i` sees it (POST /admin/clock with 0 reads it without moving it). */
async function clockOn(i: number): Promise<number> {
  return Date.parse((await admin(i, "POST", "/clock", { advanceMs: 0 })).now);
}

async function advance(i: number, ms: number): Promise<number> {
  return Date.parse((await admin(i, "POST", "/clock", { advanceMs: ms })).now);
}

/** Moves the shared clock to one second after the start of the next window of `windowMs`. */
async function alignTo(windowMs: number): Promise<void> {
  const now = await clockOn(0);
  await advance(1, windowMs - (now % windowMs) + 1000);
}

/** Runs `tasks` with at most `limit` in flight. */
async function pool<T>(limit: number, tasks: (() => Promise<T>)[]): Promise<T[]> {
  const results: T[] = new Array(tasks.length);
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, async () => {
    while (next < tasks.length) {
      const i = next++;
      results[i] = await tasks[i]!();
    }
  }));
  return results;
}

// ---------------------------------------------------------------------------------------------------
// The experiment.

interface Agent {
  name: string;
  token: string;
  sessionId: string;
  agentId: string;
}

async function pair(i: number, projectId: string, name: string): Promise<Agent> {
  const code = await admin(i + 1, "POST", `/projects/${projectId}/pairing-codes`, { role: "generator" });
  const res = await req(on(i), "POST", "/api/pair/connect", {
    body: { code: code.code, agentName: name, platform: "claude-code" },
  });
  if (res.status !== 200) throw new Error(`pairing ${name} on #${i % INSTANCES}: ${res.status} ${res.text}`);
  return {
    name,
    token: res.body.data.sessionToken,
    sessionId: res.body.data.sessionId,
    agentId: res.body.data.agent.id,
  };
}

async function tableCounts(sql: postgres.Sql) {
  const [row] = await sql`SELECT
    (SELECT count(*)::int FROM rate_counters) AS "rateCounters",
    (SELECT count(*)::int FROM pending_jobs) AS "jobs",
    (SELECT count(*)::int FROM pending_jobs WHERE done_at IS NULL) AS "openJobs",
    (SELECT count(*)::int FROM pairing_codes) AS "pairingCodes",
    (SELECT count(*)::int FROM tokens) AS "tokens",
    (SELECT count(*)::int FROM tokens WHERE kind = 'api_key') AS "apiKeys",
    (SELECT count(*)::int FROM me_cache) AS "meCache"`;
  return row as Record<string, number>;
}

/**
 * Issue 22 (2): an agent is never refused by itself. Rounds of six concurrent claims by one agent, spread
 * over the instances, that all share one file (and each add a file of its own) all succeed; each shared
 * file has one live holder row and every claimed file is held by that agent. Self-contained: its own API
 * key, warmed up on every instance first so that the claims of a round reach the database together.
 */
async function selfOverlapCheck(projectId: string, sql: postgres.Sql): Promise<void> {
  const key = await admin(0, "POST", `/projects/${projectId}/api-keys`, {
    agentName: "solo",
    role: "generator",
  });
  await Promise.all([0, 1, 2].map((i) => req(on(i), "GET", "/api/me", { token: key.key })));
  const statuses: number[] = [];
  const refused: string[] = [];
  for (let round = 0; round < 4; round++) {
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        req(on(i), "POST", "/api/claim", {
          token: key.key,
          body: { files: [`solo/common${round}.ts`, `solo/own-${round}-${i}.ts`] },
        })),
    );
    statuses.push(...results.map((r) => r.status));
    refused.push(...results.filter((r) => r.status !== 200).map((r) => r.text.slice(0, 200)));
  }
  const [held] =
    await sql`SELECT count(*)::int AS n, count(*) FILTER (WHERE f.file LIKE 'solo/common%')::int AS shared,
      count(DISTINCT c.agent_id)::int AS agents
    FROM claim_files f JOIN claims c ON c.id = f.claim_id
    WHERE f.project_id = ${projectId} AND f.file LIKE 'solo/%' AND f.released_at IS NULL`;
  record(
    `one agent's concurrent overlapping claims over ${INSTANCES} instances all succeed (never refused by itself)`,
    count(statuses, 200) === 24 && held!.n === 28 && held!.shared === 4 && held!.agents === 1,
    `4 rounds of 6 claims sharing one file: ${tally(statuses)}; live files ${held!.n} (shared file rows ` +
      `${held!.shared}, holders ${held!.agents})${refused.length ? `\nrefused: ${refused[0]}` : ""}`,
  );
}

/**
 * Issue 24: the claim wait queue across the instances. Five agents wait (concurrently, each on another
 * instance) for a file a sixth holds: distinct positions; then each holder releases on the next instance
 * and the file goes to exactly the next waiter in arrival order, one live holder at every step, each
 * request granted once (no double grant). Then two waits that would close a cycle, sent at once to two
 * instances: one is refused with DEADLOCK (the project's claim lock spans the processes).
 */
async function waitQueueCheck(projectId: string, sql: postgres.Sql): Promise<void> {
  const keys = await pool(
    3,
    Array.from(
      { length: 8 },
      (_, i) => () =>
        admin(i, "POST", `/projects/${projectId}/api-keys`, { agentName: `waiter-${i}`, role: "generator" }),
    ),
  );
  const file = "queue/hot.ts";
  const first = await req(on(0), "POST", "/api/claim", { token: keys[0].key, body: { files: [file] } });
  const waits = await Promise.all(
    keys.slice(1, 6).map((k, i) =>
      req(on(i), "POST", "/api/claim", { token: k.key, body: { files: [file], waitSeconds: 600 } })
    ),
  );
  const positions = waits.map((w) => w.body?.data?.request?.position?.[file] as number);
  const order = keys.slice(1, 6).map((k, i) => ({ k, p: positions[i]! })).sort((a, b) => a.p - b.p);
  let holder = keys[0];
  const steps: string[] = [];
  let inOrder = first.status === 200 && waits.every((w) => w.status === 202) &&
    new Set(positions).size === 5;
  for (const [i, next] of order.entries()) {
    await req(on(i + 1), "POST", "/api/release", { token: holder.key, body: { all: true } });
    const rows = await sql`SELECT c.agent_id FROM claim_files f JOIN claims c ON c.id = f.claim_id
      WHERE f.project_id = ${projectId} AND f.file = ${file} AND f.released_at IS NULL AND c.released_at IS NULL`;
    steps.push(String(rows.length));
    if (rows.length !== 1 || rows[0]!.agent_id !== next.k.agentId) inOrder = false;
    holder = next.k;
  }
  const [granted] = await sql`SELECT count(*)::int AS n, count(DISTINCT data->>'requestId')::int AS ids
    FROM events WHERE project_id = ${projectId} AND kind = 'claim.granted'`;
  record(
    `claim wait queue over ${INSTANCES} instances: granted in arrival order, one holder, no double grant`,
    inOrder && granted!.n === 5 && granted!.ids === 5,
    `5 waiters (${tally(waits.map((w) => w.status))}), positions ${positions.join(",")}; live holders per ` +
      `step ${steps.join(",")}; claim.granted ${granted!.n} for ${granted!.ids} requests`,
  );
  const [a, b] = [keys[6], keys[7]];
  await req(on(0), "POST", "/api/claim", { token: a.key, body: { files: ["queue/x.ts"] } });
  await req(on(1), "POST", "/api/claim", { token: b.key, body: { files: ["queue/y.ts"] } });
  const race = await Promise.all([
    req(on(1), "POST", "/api/claim", { token: a.key, body: { files: ["queue/y.ts"], waitSeconds: 600 } }),
    req(on(2), "POST", "/api/claim", { token: b.key, body: { files: ["queue/x.ts"], waitSeconds: 600 } }),
  ]);
  const codes = race.map((r) => r.status === 409 ? r.body?.error?.code : String(r.status)).sort();
  record(
    `two waits closing a cycle, on two instances at once: one refused with DEADLOCK`,
    codes[0] === "202" && codes[1] === "DEADLOCK",
    `answers ${codes.join(", ")}`,
  );
}

async function run(): Promise<void> {
  // Start: the database, then three instances at once (they migrate one empty database concurrently).
  pg = await startPostgres();
  const t0 = performance.now();
  await Promise.all(Array.from({ length: INSTANCES }, (_, i) => startInstance(i, pg!.url)));
  record(
    "three instances start at once on one empty database (concurrent migrations)",
    true,
    `${INSTANCES} processes listening after ${((performance.now() - t0) / 1000).toFixed(1)}s: ` +
      instances.map((i) => i.url).join(", "),
  );
  const sql = sqlClient = postgres(pg.url, { max: 2, onnotice: () => {} });

  // Organization and projects, created round-robin through the instances.
  const org = await admin(0, "POST", "/orgs", { name: "Chaos", plan: "team" });
  const main = await admin(1, "POST", "/projects", { orgId: org.id, name: "Main", ticketPrefix: "MAIN" });
  const locked = await admin(2, "POST", "/projects", {
    orgId: org.id,
    name: "Locked",
    ticketPrefix: "LOCK",
    password: "chaos-pass",
  });
  const rate = await admin(0, "POST", "/projects", { orgId: org.id, name: "Rate", ticketPrefix: "RATE" });

  // Pairing (one per-address window: 6 pairings of the 10 allowed).
  await alignTo(5 * MINUTE);
  const workers = await Promise.all([0, 1, 2].map((i) => pair(i, main.id, `worker-${i}`)));
  const rotators = await Promise.all([0, 1].map((i) => pair(i + 1, main.id, `rotator-${i}`)));
  const idler = await pair(2, main.id, "idler");

  // 1. The agent loop, each step on the next instance: ticket, begin (claims), ledger, handoff.
  {
    const statuses: number[] = [];
    const brief = await req(on(0), "PATCH", "/api/brief", {
      token: workers[0]!.token,
      body: { scope: "A small web app built by three agents on three service instances" },
    });
    statuses.push(brief.status);
    const loops = workers.map(async (agent, w) => {
      let step = w;
      const call = async (method: string, path: string, body: unknown) => {
        const res = await req(on(step++), method, path, { token: agent.token, body });
        statuses.push(res.status);
        if (res.status >= 300) throw new Error(`${agent.name} ${method} ${path}: ${res.status} ${res.text}`);
        return res.body.data;
      };
      const files = [`src/module${w}/index.ts`, `src/module${w}/index.test.ts`];
      const ticket = await call("POST", "/api/ticket", {
        title: `Module ${w} of the web app`,
        expectedFiles: files,
        doneDefinition: `Module ${w} works and is tested`,
        verificationCommand: `deno test src/module${w}`,
        riskClass: "shared-state",
        acceptanceCriteria: [{ title: `Module ${w} answers its calls` }],
      });
      await call("POST", "/api/begin", { ticketId: ticket.id, files, acknowledgeCriteria: true });
      for (
        const entry of [
          { type: "PROGRESS", content: `Built module ${w} in ${files[0]}` },
          { type: "TESTED", content: `deno test src/module${w}: 4 passed` },
          { type: "CHANGED", content: `Added tests in ${files[1]}`, fileRef: files[1] },
        ]
      ) await call("POST", "/api/ledger", { ...entry, sessionId: agent.sessionId, ticketId: ticket.id });
      await call("POST", "/api/handoff", {
        moduleName: `module-${w}`,
        summary: `Module ${w} with tests`,
        sessionId: agent.sessionId,
        ticketId: ticket.id,
        testResults: "4 passed",
        toolResults: [{
          command: `deno test src/module${w}`,
          output: "ok | 4 passed | 0 failed",
          exitCode: 0,
        }],
      });
      return ticket.id as string;
    });
    const settled = await Promise.allSettled(loops);
    const errors = settled.filter((s) => s.status === "rejected").map((s) => String(s.reason));
    // Background work (the tool-result jobs) completes on whichever instance picks it up.
    let open = -1;
    for (let i = 0; i < 40; i++) {
      open = (await tableCounts(sql)).openJobs!;
      if (open === 0) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    const [state] = await sql`SELECT
      (SELECT count(*)::int FROM ledger_entries WHERE project_id = ${main.id} AND type = 'DONE') AS done,
      (SELECT count(*)::int FROM claim_files WHERE project_id = ${main.id} AND released_at IS NULL) AS held,
      (SELECT count(*)::int FROM tickets WHERE project_id = ${main.id} AND status = 'review') AS review,
      (SELECT count(*)::int FROM pending_jobs WHERE done_at IS NOT NULL AND attempts = 1) AS "jobsDoneOnce"`;
    const ok = errors.length === 0 && statuses.every((s) => s < 300) && state!.done === 3 &&
      state!.held === 0 && state!.review === 3 && open === 0 && state!.jobsDoneOnce >= 3;
    record(
      "agent loop across instances: 3 agents pair, create tickets, claim, log and hand off round-robin",
      ok,
      `${statuses.length} requests, ${tally(statuses)}; DONE entries ${state!.done}/3, tickets in review ` +
        `${state!.review}/3, files still held ${state!.held}, background jobs done once ${
          state!.jobsDoneOnce
        }, ` +
        `open ${open}${errors.length ? `\nerrors: ${errors.join("; ")}` : ""}`,
    );
  }

  // 2. Claim race: 32 agents (API keys) claim one file at once, spread over the three instances.
  {
    const keys = await pool(
      8,
      Array.from(
        { length: 32 },
        (_, i) => () =>
          admin(i, "POST", `/projects/${main.id}/api-keys`, { agentName: `racer-${i}`, role: "generator" }),
      ),
    );
    for (const file of ["src/shared/contended.ts", "src/shared/also-contended.ts"]) {
      const results = await Promise.all(
        keys.map((k, i) => req(on(i), "POST", "/api/claim", { token: k.key, body: { files: [file] } })),
      );
      const statuses = results.map((r) => r.status);
      const [held] = await sql`SELECT count(*)::int AS n, count(DISTINCT c.agent_id)::int AS agents
        FROM claim_files f JOIN claims c ON c.id = f.claim_id
        WHERE f.project_id = ${main.id} AND f.file = ${file} AND f.released_at IS NULL`;
      const conflicts = results.filter((r) => r.status === 409 && r.body?.error?.code === "CONFLICT").length;
      record(
        `claim race on ${file}: ${keys.length} concurrent claims over ${INSTANCES} instances -> one holder`,
        count(statuses, 200) === 1 && conflicts === keys.length - 1 && held!.n === 1,
        `${statuses.length} requests (${
          [0, 1, 2].map((i) => `#${i}: ${statuses.filter((_, j) => j % 3 === i).length}`).join(", ")
        }), ` +
          `${tally(statuses)}; 409 CONFLICT ${conflicts}; live holders in the database ${held!.n}`,
      );
    }
  }

  // 2b. One agent's concurrent overlapping claims across the instances (issue 22).
  await selfOverlapCheck(main.id, sql);

  // 2c. The claim wait queue across the instances (issue 24).
  await waitQueueCheck(main.id, sql);

  // 3. /me from the three instances within 30 seconds: one body, one cachedAt.
  {
    const agent = rotators[0]!;
    const first = await Promise.all(
      [0, 1, 2].map((i) => req(on(i), "GET", "/api/me", { token: agent.token })),
    );
    const again = await Promise.all(
      [2, 0, 1].map((i) => req(on(i), "GET", "/api/me", { token: agent.token })),
    );
    const all = [...first, ...again];
    const cachedAts = new Set(all.map((r) => r.body?.data?.cachedAt));
    const bodies = new Set(all.map((r) => {
      const { plan: _plan, ...rest } = r.body?.data ?? {};
      return JSON.stringify(rest);
    }));
    const remaining = all.map((r) => r.body?.data?.plan?.callsRemaining);
    record(
      "/me from three instances within 30 s -> the same cachedAt and body (budget current)",
      all.every((r) => r.status === 200) && cachedAts.size === 1 && bodies.size === 1 &&
        new Set(remaining).size > 1,
      `${all.length} requests, ${tally(all.map((r) => r.status))}; distinct cachedAt ${cachedAts.size} ` +
        `(${[...cachedAts].join(", ")}), distinct bodies without plan ${bodies.size}, ` +
        `callsRemaining seen ${[...new Set(remaining)].join("/")}`,
    );
  }

  // 4. Refresh-token rotation: the same session token presented to all three at once -> one success.
  for (const agent of rotators) {
    const results = await Promise.all(
      [0, 1, 2, 0, 1].map((i) =>
        req(on(i), "POST", "/api/session/refresh", { body: { token: agent.token } })
      ),
    );
    const statuses = results.map((r) => r.status);
    const winner = results.find((r) => r.status === 200);
    const fresh = winner ? winner.body.data.sessionToken as string : "";
    const newOn = await Promise.all([0, 1, 2].map((i) => req(on(i), "GET", "/api/me", { token: fresh })));
    const oldOn = await Promise.all(
      [0, 1, 2].map((i) => req(on(i), "GET", "/api/me", { token: agent.token })),
    );
    const losers = results.filter((r) =>
      r.status === 401 && r.body?.error?.details?.recovery?.action === "REPAIR"
    );
    record(
      `refresh rotation (${agent.name}): 5 concurrent refreshes of one token over ${INSTANCES} instances -> one success`,
      count(statuses, 200) === 1 && losers.length === 4 && newOn.every((r) => r.status === 200) &&
        oldOn.every((r) => r.status === 401),
      `${statuses.length} requests, ${
        tally(statuses)
      } (401 with recovery REPAIR: ${losers.length}); new token ` +
        `on each instance ${tally(newOn.map((r) => r.status))}; old token ${
          tally(oldOn.map((r) => r.status))
        }`,
    );
  }

  // 5. A per-agent limit (240 units per minute burst) is refused at the same total on one or three processes.
  {
    const key = await admin(0, "POST", `/projects/${rate.id}/api-keys`, { agentName: "hammer" });
    const burst = async (spread: number) => {
      await alignTo(MINUTE);
      const results = await pool(
        24,
        Array.from(
          { length: 270 },
          (_, i) => () => req(on(i % spread), "GET", "/api/me", { token: key.key }),
        ),
      );
      return results.map((r) => r.status);
    };
    const one = await burst(1);
    const three = await burst(3);
    record(
      "per-agent burst limit (240 units/minute, GET /me = 1 unit): same refusals on one and on three processes",
      count(one, 200) === 240 && count(three, 200) === 240 && count(one, 429) === 30 &&
        count(three, 429) === 30,
      `one process: 270 requests, ${tally(one)}; three processes: 270 requests, ${tally(three)}`,
    );
  }

  // 6. Pairing attempts per address (10 per 5 minutes): same refusals on one and on three processes.
  {
    const attempts = async (spread: number) => {
      await alignTo(5 * MINUTE);
      const results = await pool(
        7,
        Array.from(
          { length: 14 },
          (_, i) => () =>
            req(on(i % spread), "POST", "/api/pair/connect", {
              body: { code: "ZZZZ-9999", agentName: "nobody" },
            }),
        ),
      );
      return results.map((r) => r.status);
    };
    const one = await attempts(1);
    const three = await attempts(3);
    record(
      "pairing attempts per address (10 per 5 minutes): same refusals on one and on three processes",
      count(one, 401) === 10 && count(one, 429) === 4 && count(three, 401) === 10 && count(three, 429) === 4,
      `one process: 14 attempts, ${tally(one)}; three processes: 14 attempts, ${tally(three)}`,
    );
  }

  // 7. Pairing strikes on a code (3 invalidate it) are counted across processes.
  {
    await alignTo(5 * MINUTE);
    const strikes = async (spread: number) => {
      const code = await admin(0, "POST", `/projects/${locked.id}/pairing-codes`, { role: "generator" });
      const statuses: string[] = [];
      for (let i = 0; i < 3; i++) {
        const res = await req(on(i % spread), "POST", "/api/pair/connect", {
          body: { code: code.code, agentName: `striker-${spread}`, password: "wrong" },
        });
        statuses.push(`${res.status} ${res.body?.error?.code}`);
      }
      const right = await req(on(3 % spread), "POST", "/api/pair/connect", {
        body: { code: code.code, agentName: `striker-${spread}`, password: "chaos-pass" },
      });
      statuses.push(`${right.status} ${right.body?.error?.code}`);
      const [row] = await sql`SELECT strikes, invalidated_at IS NOT NULL AS invalid FROM pairing_codes
        WHERE code_hash = ${hashPairingCode(normalizeCode(String(code.code)))}`;
      return { statuses, strikes: row!.strikes as number, invalid: row!.invalid as boolean };
    };
    const one = await strikes(1);
    const three = await strikes(3);
    const expected = [
      "403 INVALID_PASSWORD",
      "403 INVALID_PASSWORD",
      "403 INVALID_PASSWORD",
      "401 INVALID_CODE",
    ];
    record(
      "pairing strikes counted across processes: 3 wrong passwords on 3 instances invalidate the code",
      JSON.stringify(one.statuses) === JSON.stringify(expected) &&
        JSON.stringify(three.statuses) === JSON.stringify(expected) && three.strikes === 3 && three.invalid,
      `one process: ${one.statuses.join(", ")} (strikes ${one.strikes}); three processes: ` +
        `${three.statuses.join(", ")} (strikes ${three.strikes}, invalidated ${three.invalid})`,
    );
  }

  const beforeTables = await tableCounts(sql);

  // 8. The test clock: POST /admin/clock on one process moves the others.
  {
    const code = await admin(1, "POST", `/projects/${main.id}/pairing-codes`, { role: "generator" });
    const promptBefore = await req(on(2), "GET", `/api/pair/prompt?code=${code.code}`);
    await advance(0, 6 * MINUTE);
    const promptAfter = await req(on(2), "GET", `/api/pair/prompt?code=${code.code}`);
    const connectAfter = await req(on(1), "POST", "/api/pair/connect", {
      body: { code: code.code, agentName: "late" },
    });
    const idleStart = await req(on(2), "GET", "/api/me", { token: idler.token });
    await advance(0, 23 * HOUR);
    const idleMid = await req(on(1), "GET", "/api/me", { token: idler.token });
    await advance(0, 24 * HOUR + MINUTE);
    const idleEnd = await Promise.all(
      [1, 2].map((i) => req(on(i), "GET", "/api/me", { token: idler.token })),
    );
    const real = Date.now();
    const seen = await Promise.all([0, 1, 2].map((i) => clockOn(i)));
    const spread = Math.max(...seen) - Math.min(...seen);
    const ahead = Math.min(...seen) - real;
    record(
      "POST /admin/clock on instance #0 moves the clock of #1 and #2 (code expiry, idle expiry)",
      promptBefore.status === 200 && promptAfter.status === 404 && connectAfter.status === 401 &&
        connectAfter.body?.error?.code === "INVALID_CODE" && idleStart.status === 200 &&
        idleMid.status === 200 &&
        idleEnd.every((r) => r.status === 401) && spread < 5_000 && ahead > 47 * HOUR,
      `code prompt on #2: ${promptBefore.status} before, ${promptAfter.status} after +6 min on #0; connect on #1 ` +
        `${connectAfter.status} ${connectAfter.body?.error?.code}\n` +
        `idle token: #2 ${idleStart.status}, +23 h on #0 then #1 ${idleMid.status}, +24 h 1 min on #0 then ` +
        `#1/#2 ${idleEnd.map((r) => r.status).join("/")}\n` +
        `service time on #0/#1/#2 within ${spread} ms of each other, ${
          (ahead / HOUR).toFixed(1)
        } h ahead of real time`,
    );
  }

  // 10. Operator undo: revoked on one instance, refused by another on its very next request.
  await undoAcrossInstances(org.id);

  // 9. Pruning keeps the tables bounded: advance the clock past every retention, let the workers run.
  {
    await advance(2, 9 * DAY);
    const t = performance.now();
    let after = await tableCounts(sql);
    while (performance.now() - t < 15_000) {
      after = await tableCounts(sql);
      if (
        after.rateCounters === 0 && after.jobs === 0 && after.pairingCodes === 0 &&
        after.tokens === after.apiKeys
      ) {
        break;
      }
      await new Promise((r) => setTimeout(r, 250));
    }
    const waited = ((performance.now() - t) / 1000).toFixed(1);
    const show = (c: Record<string, number>) =>
      `rate_counters ${c.rateCounters}, pending_jobs ${c.jobs}, pairing_codes ${c.pairingCodes}, ` +
      `tokens ${c.tokens} (api keys ${c.apiKeys}), me_cache ${c.meCache}`;
    record(
      "background pruning on three instances keeps the tables bounded (clock +9 days)",
      beforeTables.rateCounters! > 0 && beforeTables.jobs! > 0 && after.rateCounters === 0 &&
        after.jobs === 0 &&
        after.pairingCodes === 0 && after.tokens === after.apiKeys && after.meCache === 0,
      `before: ${show(beforeTables)}\nafter ${waited}s: ${show(after)}`,
    );
  }
  // The instances stayed up through all of it.
  const alive = await Promise.all([0, 1, 2].map((i) => req(on(i), "GET", "/health")));
  record(
    "every instance still healthy",
    alive.every((r) => r.status === 200),
    tally(alive.map((r) => r.status)),
  );
}

/** Signs in to the dashboard of `inst` over HTTP; answers the session's Cookie header. */
async function dashboardSignIn(inst: Instance, email: string, password: string): Promise<string> {
  const form = await fetch(`${inst.url}/`, { redirect: "manual" });
  const cookies = form.headers.getSetCookie().map((c) => c.split(";")[0]!);
  const csrf = /name="csrf_token" value="([^"]+)"/.exec(await form.text())?.[1] ?? "";
  const res = await fetch(`${inst.url}/signin`, {
    method: "POST",
    redirect: "manual",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: cookies.join("; ") },
    body: new URLSearchParams({ csrf_token: csrf, email, password }).toString(),
  });
  await res.body?.cancel();
  requestCount += 2;
  return [...cookies, ...res.headers.getSetCookie().map((c) => c.split(";")[0]!)].join("; ");
}

/**
 * The operator's undo (revoke a key, revoke an agent, end a session, remove a member) through one
 * instance; the very next request with that credential on each other instance is refused (401, or 404
 * for the removed member's dashboard page). Each credential works on the other instances first, so a
 * per-process cache of the decision would show here.
 */
async function undoAcrossInstances(orgId: string): Promise<void> {
  const project = await admin(0, "POST", "/projects", { orgId, name: "Undo", ticketPrefix: "UNDO" });
  const key = await admin(1, "POST", `/projects/${project.id}/api-keys`, { agentName: "undo-key" });
  const revoked = await pair(2, project.id, "undo-agent");
  const ended = await pair(0, project.id, "undo-session");
  const email = `undo-${crypto.randomUUID().slice(0, 8)}@example.com`;
  const user = await admin(1, "POST", "/users", { email, password: "chaos-undo-pass", name: "Undo" });
  await admin(2, "POST", `/projects/${project.id}/members`, { userId: user.id, role: "member" });
  const cookie = await dashboardSignIn(on(1), email, "chaos-undo-pass");
  const page = async (inst: Instance) => {
    requestCount++;
    const res = await fetch(`${inst.url}/projects/${project.id}`, {
      headers: { Cookie: cookie },
      redirect: "manual",
    });
    await res.body?.cancel();
    return res.status;
  };
  const me = async (inst: Instance, token: string) => (await req(inst, "GET", "/api/me", { token })).status;
  const cases = [
    {
      name: "API key",
      path: `/projects/${project.id}/api-keys/${key.id}`,
      method: "DELETE",
      probe: (i: Instance) => me(i, key.key),
    },
    {
      name: "agent",
      path: `/projects/${project.id}/agents/${revoked.agentId}/revoke`,
      method: "POST",
      probe: (i: Instance) => me(i, revoked.token),
    },
    {
      name: "session",
      path: `/sessions/${ended.sessionId}`,
      method: "DELETE",
      probe: (i: Instance) => me(i, ended.token),
    },
    { name: "member", path: `/projects/${project.id}/members/${user.id}`, method: "DELETE", probe: page },
  ];
  for (const [c, undo] of cases.entries()) {
    const others = [on(c + 1), on(c + 2)];
    const before = await Promise.all(others.map(undo.probe));
    // No body: a DELETE as a plain HTTP client sends it.
    const res = await req(on(c), undo.method, `/admin${undo.path}`, { token: ADMIN_TOKEN });
    const after = [];
    for (const inst of others) after.push(await undo.probe(inst));
    const refused = undo.name === "member" ? 404 : 401;
    record(
      `operator undo (${undo.name}) on #${c % INSTANCES}: the next request on each other instance is refused`,
      before.every((s) => s === 200) && res.status === 200 && after.every((s) => s === refused),
      `before on #${(c + 1) % INSTANCES}/#${(c + 2) % INSTANCES}: ${
        before.join("/")
      }; ${undo.method} /admin${undo.path} ` +
        `-> ${res.status}; after: ${after.join("/")} (expected ${refused})`,
    );
  }
}

// ---------------------------------------------------------------------------------------------------

let exitCode = 0;
const deadline = setTimeout(async () => {
  record("experiment finished within its time limit", false, `still running after ${DEADLINE_MS / 1000}s`);
  printSummary();
  await cleanup();
  Deno.exit(1);
}, DEADLINE_MS);
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  Deno.addSignalListener(signal, async () => {
    console.error(`${signal}: stopping every child process`);
    await cleanup();
    Deno.exit(130);
  });
}

function printSummary(): void {
  const failed = checks.filter((c) => !c.ok);
  console.log(
    `\ninstances experiment: ${
      checks.length - failed.length
    }/${checks.length} checks passed in ${elapsed()}; ` +
      `${requestCount} requests over HTTP, by status ${
        [...requestsByStatus.entries()].sort((a, b) => a[0] - b[0]).map(([s, n]) => `${s}x${n}`).join(" ")
      }`,
  );
  for (const c of failed) console.log(`  failed: ${c.name}`);
}

try {
  await run();
} catch (err) {
  record("experiment ran to the end", false, err instanceof Error ? err.stack ?? err.message : String(err));
  for (const inst of instances) {
    if (inst.log.length) {
      console.log(`--- instance #${inst.index} stderr (last lines)\n${inst.log.slice(-15).join("\n")}`);
    }
  }
} finally {
  clearTimeout(deadline);
  await cleanup();
}
printSummary();
exitCode = checks.every((c) => c.ok) && checks.length > 0 ? 0 : 1;
Deno.exit(exitCode);
