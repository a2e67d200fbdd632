/**
 * `deno task bench`: throughput and latency of the service under concurrency, measured from outside
 * against the floors of the same run. One command from a clean clone:
 *
 *   deno task bench                          # PostgreSQL (throwaway, scripts/pg-temp.sh), ~1.5 minutes
 *   deno task bench --engine pglite          # the embedded engine, reported separately
 *   deno task bench --connections 64 --duration 10
 *   deno task bench --only me,context        # workloads whose name contains one of the words
 *   deno task bench --only dashboard --agents 0 --keys 4 --connections 4 --duration 3
 *                                            # a short run of the dashboard pages only
 *   deno task bench --soak 300               # adds a 5-minute memory soak (GET /me + GET /context)
 *   deno task bench --smoke                  # seconds; checks that every workload answers (no timings)
 *   deno task bench --workers 1              # SVC_WORKERS of the service (default: unset, one per core)
 *
 * The service (`src/main.ts`), the framework floor (scripts/bench/floor-server.ts) and the load
 * (scripts/bench/load.ts) are separate processes talking over loopback. Results: bench/results/latest.json
 * (PostgreSQL) or latest-pglite.json, and the markdown table next to it (also printed). The table's header
 * names the service's peak resident memory per worker against issue 27.5's target (300 MB on PGlite, 200 MB
 * per worker on PostgreSQL) and, with --soak, the growth after warm-up (`meta.memory` in the JSON).
 */
import { parseArgs } from "node:util";
import { openDatabase } from "@/db/dialect.ts";
import { hashToken } from "@/domain/core/crypto.ts";
import {
  admin,
  cleanup,
  freePort,
  onCleanup,
  request,
  ROOT,
  type Service,
  startPostgres,
  startService,
} from "../chaos/lib.ts";
import type { HttpSpec, LoadResult, Spec, Step } from "./load.ts";
import { markdown, type Row } from "./report.ts";
import { contendedClaims } from "./contended.ts";
import { webhookRow } from "./webhooks.ts";
import { analyze, LARGE, seedBoard, seedLarge, SMOKE } from "./seed.ts";

const args = parseArgs({
  args: Deno.args,
  options: {
    connections: { type: "string", default: "32" },
    duration: { type: "string", default: "4" },
    warmup: { type: "string", default: "1" },
    engine: { type: "string", default: "postgres" },
    agents: { type: "string", default: "10,50,200" },
    keys: { type: "string", default: "300" },
    only: { type: "string", default: "" },
    soak: { type: "string", default: "0" },
    out: { type: "string", default: "" },
    smoke: { type: "boolean", default: false },
    workers: { type: "string", default: "" },
  },
});
const smoke = args.values.smoke;
const engine = args.values.engine === "pglite" ? "pglite" : "postgres";
const CONNECTIONS = smoke ? 4 : Number(args.values.connections);
const DURATION_MS = (smoke ? 0.5 : Number(args.values.duration)) * 1000;
const WARMUP_MS = (smoke ? 0.2 : Number(args.values.warmup)) * 1000;
const AGENT_COUNTS = smoke ? [3] : args.values.agents.split(",").map(Number).filter((n) => n > 0);
const KEYS = smoke ? 8 : Math.max(Number(args.values.keys), CONNECTIONS);
const SIZE = smoke ? SMOKE : LARGE;
const BOARD_TICKETS = smoke ? 100 : 1_000;
const ONLY = args.values.only.split(",").map((s) => s.trim().toLowerCase()).filter(Boolean);
const SOAK_S = smoke ? 0 : Number(args.values.soak);
/** Agents per project in the agent loop (the per-project burst window is shared by them). */
const AGENTS_PER_PROJECT = 10;
/** SVC_WORKERS of the service; empty: the service's default (one per core on PostgreSQL, 1 on PGlite). */
const WORKERS = args.values.workers;

interface Key {
  key: string;
  agentId: string;
  projectId: string;
}

/** The resident set (`VmRSS`) of a process, or its peak so far (`VmHWM`), in MB. */
function rssMb(pid: number, field: "VmRSS" | "VmHWM" = "VmRSS"): number {
  try {
    const status = Deno.readTextFileSync(`/proc/${pid}/status`);
    const kb = Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN);
    return kb / 1024;
  } catch (err) {
    console.error(`cannot read the memory of ${pid}: ${err}`);
    return NaN;
  }
}

/** Issue 27.5: resident memory per worker under the bench's loads, flat over the soak. */
const MEMORY_TARGET_MB = { postgres: 200, pglite: 300 } as const;

export interface MemorySummary {
  /** The service process's peak resident set over the run (`VmHWM`: its workers are isolates of it). */
  peakRssMb: number;
  workers: number;
  peakPerWorkerMb: number;
  targetPerWorkerMb: number;
  /** RSS growth over the soak after its first third (warm-up), when a soak ran. */
  soakGrowthMb?: number;
  met: boolean;
}

/** The memory verdict of a run: peak per worker against the target, and the soak's growth (flat: under 5%). */
function memorySummary(pid: number, workers: number, soakRow: Row | undefined): MemorySummary {
  const peakRssMb = Math.round(rssMb(pid, "VmHWM"));
  const target = MEMORY_TARGET_MB[engine];
  const peakPerWorkerMb = Math.round(peakRssMb / workers);
  const growth = soakRow?.soakGrowthMb;
  const flat = growth === undefined || growth <= 0.05 * (soakRow?.rssAfterMb ?? Infinity);
  return {
    peakRssMb,
    workers,
    peakPerWorkerMb,
    targetPerWorkerMb: target,
    ...(growth !== undefined ? { soakGrowthMb: Math.round(growth) } : {}),
    met: peakPerWorkerMb <= target && flat,
  };
}

function memoryLine(m: MemorySummary): string {
  const soak = m.soakGrowthMb === undefined
    ? "no soak (--soak N measures growth)"
    : `soak growth after warm-up ${m.soakGrowthMb} MB`;
  return `Memory (${
    engine === "postgres" ? "PostgreSQL" : "PGlite"
  }): peak RSS ${m.peakRssMb} MB for ${m.workers} ` +
    `worker(s), ${m.peakPerWorkerMb} MB per worker against at most ${m.targetPerWorkerMb}; ${soak}: ` +
    `target ${m.met ? "met" : "NOT met"}.`;
}

async function pool<T>(limit: number, jobs: Array<() => Promise<T>>): Promise<T[]> {
  const out: T[] = new Array(jobs.length);
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(limit, jobs.length) }, async () => {
    while (next < jobs.length) {
      const i = next++;
      out[i] = await jobs[i]!();
    }
  }));
  return out;
}

/** Runs one workload in the load process and returns its result. */
async function load(spec: Spec): Promise<LoadResult> {
  const file = await Deno.makeTempFile({ prefix: "bench-spec-", suffix: ".json" });
  try {
    await Deno.writeTextFile(file, JSON.stringify(spec));
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", `${ROOT}/scripts/bench/load.ts`, file],
      cwd: ROOT,
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(out.stdout).trim();
    if (!out.success) {
      throw new Error(`load process failed: ${new TextDecoder().decode(out.stderr).slice(-500)}`);
    }
    return JSON.parse(text.split("\n").at(-1)!);
  } finally {
    await Deno.remove(file).catch(() => {});
  }
}

/** A signed-in member of the large project (the dashboard pages) and what its pages show. */
interface Dashboard {
  cookie: string;
  projectId: string;
  sprintId: string;
  ticketKey: string;
}

/** The service and what was seeded through it. */
interface Setup {
  svc: Service;
  light: Key[];
  large: Key[];
  board: Key[];
  /** One backlog ticket per connection (PATCH /ticket moves), in the light projects. */
  moveTickets: string[];
  meBody: string;
  orgId: string;
  dashboard: Dashboard;
}

async function createKeys(base: string, projectId: string, n: number, prefix: string): Promise<Key[]> {
  return await pool(
    8,
    Array.from({ length: n }, (_, i) => async () => {
      const k = await admin(base, "POST", `/projects/${projectId}/api-keys`, {
        name: `${prefix}-${i}`,
        agentName: `${prefix}-agent-${i}`,
        role: "generator",
      });
      return { key: k.key, agentId: k.agentId, projectId };
    }),
  );
}

/** Tickets need a project brief first. */
async function writeBrief(base: string, token: string): Promise<void> {
  const r = await request(base, "PATCH", "/api/brief", {
    token,
    body: { scope: "A benchmark project", goals: "Fast and exact", stack: "Deno, PostgreSQL" },
  });
  if (r.status !== 200) throw new Error(`brief: ${r.status} ${r.text}`);
}

const DASHBOARD_PASSWORD = "bench dashboard password";

/** A user who is admin of `projectId` (the dashboard's reader). */
async function dashboardUser(base: string, projectId: string): Promise<string> {
  const email = `bench-${Date.now().toString(36)}@example.com`;
  const user = await admin(base, "POST", "/users", {
    email,
    password: DASHBOARD_PASSWORD,
    name: "Bench reader",
  });
  await admin(base, "POST", `/projects/${projectId}/members`, { userId: user.id, role: "admin" });
  return email;
}

/** Signs in on the dashboard as a browser does; returns the session cookie (`name=value`). */
async function signInCookie(base: string, email: string): Promise<string> {
  const form = await fetch(`${base}/`, { redirect: "manual" });
  const html = await form.text();
  const pre = form.headers.getSetCookie().map((c) => c.split(";")[0]!).join("; ");
  const csrf = /name="csrf_token" value="([^"]+)"/.exec(html)?.[1] ?? "";
  const res = await fetch(`${base}/signin`, {
    method: "POST",
    redirect: "manual",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: pre },
    body: new URLSearchParams({ csrf_token: csrf, email, password: DASHBOARD_PASSWORD }).toString(),
  });
  await res.body?.cancel();
  const session = res.headers.getSetCookie().map((c) => c.split(";")[0]!).find((c) =>
    c.startsWith("svc_session=")
  );
  if (res.status !== 303 || !session) throw new Error(`dashboard sign-in: ${res.status}`);
  return session;
}

let projects = 0;

/** A project; ticket prefixes are upper-case letters only, so the counter is spelled in letters. */
async function newProject(base: string, orgId: string, name: string): Promise<string> {
  let n = ++projects;
  let prefix = "";
  while (n > 0) {
    prefix = String.fromCharCode(65 + (n % 26)) + prefix;
    n = Math.floor(n / 26);
  }
  return (await admin(base, "POST", "/projects", { orgId, name, ticketPrefix: `B${prefix}` })).id;
}

async function setUp(env: Record<string, string>): Promise<Setup> {
  const started = performance.now();
  let svc = await startService(env, { quiet: true, label: "service" });
  const base = svc.base;
  const org = await admin(base, "POST", "/orgs", { name: "Bench", plan: "enterprise" });
  // Light projects: one API key each (small projects: GET /me, context, ledger, claims, moves).
  const lightProjects = await pool(
    8,
    Array.from({ length: KEYS }, (_, i) => () => newProject(base, org.id, `Light ${i}`)),
  );
  const light = (await pool(8, lightProjects.map((p, i) => () => createKeys(base, p, 1, `light${i}`))))
    .flat();
  const largeProject = await newProject(base, org.id, "Large");
  const boardProject = await newProject(base, org.id, "Board");
  const large = await createKeys(base, largeProject, Math.min(CONNECTIONS, 8), "large");
  const reader = await dashboardUser(base, largeProject);
  const board = await createKeys(base, boardProject, Math.min(CONNECTIONS, 8), "board");
  // A little history in the small projects the context rows read, and one ticket per connection to move.
  const moveTickets = await pool(
    8,
    light.slice(0, CONNECTIONS).map((k, i) => async () => {
      await writeBrief(base, k.key);
      const t = await request(base, "POST", "/api/ticket", {
        token: k.key,
        body: {
          title: `Small ticket ${i}`,
          expectedFiles: [`src/small${i}.ts`],
          doneDefinition: `Small ticket ${i} works and is tested`,
          verificationCommand: "deno task test",
          riskClass: "local",
          assignToSelf: true,
        },
      });
      if (t.status !== 201 && t.status !== 200) throw new Error(`ticket: ${t.status} ${t.text}`);
      await request(base, "POST", "/api/ledger", {
        token: k.key,
        body: { type: "DECISION", content: `Small project ${i} uses the default board` },
      });
      return t.body.data.id as string;
    }),
  );
  const me = await request(base, "GET", "/api/me", { token: light[0]!.key });
  // Bulk history by SQL: on PostgreSQL next to the running service, on PGlite with the service stopped.
  if (engine === "pglite") {
    svc.kill("SIGTERM");
    await svc.exited;
  }
  const opened = await openDatabase(env.DATABASE_URL, env.DATA_DIR ?? "");
  let shown: Omit<Dashboard, "cookie">;
  try {
    const t0 = performance.now();
    await seedLarge(opened.db, largeProject, large[0]!.agentId, SIZE);
    await seedBoard(opened.db, boardProject, board[0]!.agentId, BOARD_TICKETS);
    await analyze(opened.db);
    const seeded = await opened.db.selectFrom("projects as p")
      .innerJoin("sprints as s", (j) => j.onRef("s.project_id", "=", "p.id").on("s.number", "=", 1))
      .select(["p.ticket_prefix", "s.id"]).where("p.id", "=", largeProject).executeTakeFirstOrThrow();
    // The caller's ticket (number 8): in progress, with its share of the ledger.
    shown = { projectId: largeProject, sprintId: seeded.id, ticketKey: `${seeded.ticket_prefix}-8` };
    console.log(
      `seeded the large project (${SIZE.TICKETS} tickets, ${SIZE.LEDGER} ledger entries, ${SIZE.THREADS} ` +
        `threads) and the board (${BOARD_TICKETS} tickets) in ${
          ((performance.now() - t0) / 1000).toFixed(1)
        } s`,
    );
  } finally {
    await opened.close();
  }
  if (engine === "pglite") svc = await startService(env, { quiet: true, label: "service" });
  else await waitForLedgerChain(env.DATABASE_URL!, largeProject);
  const dashboard = { ...shown, cookie: await signInCookie(svc.base, reader) };
  console.log(
    `set up ${KEYS} projects with API keys, service ${svc.base} (${engine}) in ` +
      `${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  return { svc, light, large, board, moveTickets, meBody: me.text, orgId: org.id, dashboard };
}

/**
 * Waits (PostgreSQL, at most 3 minutes) until the service's audit worker has chained the large project's
 * seeded ledger (100,000 entries, 10,000 per round): until then it shares the service and the database
 * with whatever row runs, and the large project's rows would measure it.
 */
async function waitForLedgerChain(url: string, projectId: string): Promise<void> {
  const started = performance.now();
  const opened = await openDatabase(url, "");
  try {
    while (performance.now() - started < 180_000) {
      const row = await opened.db.selectFrom("ledger_entries").select((eb) => [
        eb.fn.max("seq").as("last"),
        eb.selectFrom("ledger_chain_heads").select("seq").where("project_id", "=", projectId).as("chained"),
      ]).where("project_id", "=", projectId).executeTakeFirst();
      if (row && row.chained !== null && Number(row.chained) >= Number(row.last)) break;
      await new Promise((r) => setTimeout(r, 1000));
    }
    console.log(
      `ledger chain of the large project caught up in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
  } finally {
    await opened.close();
  }
}

interface Workload {
  name: string;
  group: Row["group"];
  floor?: string;
  spec: () => Spec | Promise<Spec>;
  /** Read after spec(): a note for the table (the delta rows' bytes). */
  note?: () => string | undefined;
}

function http(
  base: string,
  keys: Key[],
  steps: Step[],
  connections = CONNECTIONS,
  extra: (i: number) => Record<string, string> = () => ({}),
): HttpSpec {
  return {
    kind: "http",
    base,
    connections,
    durationMs: DURATION_MS,
    warmupMs: WARMUP_MS,
    vars: Array.from({ length: connections }, (_, i) => ({ token: keys[i % keys.length]!.key, ...extra(i) })),
    steps,
  };
}

function workloads(s: Setup, floorBase: string, dbUrl: string | undefined): Workload[] {
  const base = s.svc.base;
  const light = s.light;
  const sqlVars = () =>
    light.slice(0, CONNECTIONS).map((k) => ({
      tokenHash: hashToken(k.key),
      projectId: k.projectId,
      agentId: k.agentId,
    }));
  const get = (path: string): Step[] => [{ method: "GET", path }];
  const list: Workload[] = [
    {
      name: "floor: bare Hono route, same JSON size",
      group: "floor",
      spec: () => http(floorBase, light, get("/api/me")),
    },
  ];
  if (dbUrl) {
    list.push(
      {
        name: "floor: database, token UPDATE + limiter upsert",
        group: "floor",
        spec: () => ({
          kind: "sql",
          url: dbUrl,
          connections: CONNECTIONS,
          durationMs: DURATION_MS,
          warmupMs: WARMUP_MS,
          floor: "auth",
          vars: sqlVars(),
        }),
      },
      {
        name: "floor: database write, + one ledger insert",
        group: "floor",
        spec: () => ({
          kind: "sql",
          url: dbUrl,
          connections: CONNECTIONS,
          durationMs: DURATION_MS,
          warmupMs: WARMUP_MS,
          floor: "write",
          vars: sqlVars(),
        }),
      },
    );
  }
  const readFloor = dbUrl
    ? "floor: database, token UPDATE + limiter upsert"
    : "floor: bare Hono route, same JSON size";
  const writeFloor = dbUrl ? "floor: database write, + one ledger insert" : readFloor;
  const one = 1;
  list.push(
    { name: "GET /me", group: "read", floor: readFloor, spec: () => http(base, light, get("/api/me")) },
    {
      name: "GET /events polling",
      group: "read",
      floor: readFloor,
      spec: async () => {
        const cursors = await pool(
          8,
          light.slice(0, CONNECTIONS).map((k) => async () => {
            const r = await request(base, "GET", "/api/events?limit=1", { token: k.key });
            return String(r.body?.data?.nextCursor ?? "");
          }),
        );
        return http(
          base,
          light,
          get("/api/events?since={cursor}"),
          CONNECTIONS,
          (i) => ({ cursor: cursors[i]! }),
        );
      },
    },
    {
      name: "GET /context full, small project",
      group: "context",
      floor: "GET /me",
      spec: () => http(base, light, get("/api/context")),
    },
    {
      name: "GET /context compact, small project",
      group: "context",
      floor: "GET /me",
      spec: () => http(base, light, get("/api/context?compact=true")),
    },
    {
      name: "GET /context full, large project",
      group: "context",
      floor: "GET /me",
      spec: () => http(base, s.large, get("/api/context")),
    },
    {
      name: "GET /context compact, large project",
      group: "context",
      floor: "GET /me",
      spec: () => http(base, s.large, get("/api/context?compact=true")),
    },
    ...deltaRows(base, light, false),
    ...deltaRows(base, light, true),
    {
      name: "GET /board, 1,000 tickets",
      group: "read",
      floor: readFloor,
      spec: () => http(base, s.board, get(`/api/board?limit=${BOARD_TICKETS}`)),
    },
    {
      name: "1 caller: GET /context full, small project",
      group: "context",
      spec: () => http(base, light, get("/api/context"), one),
    },
    {
      name: "1 caller: GET /context compact, small project",
      group: "context",
      spec: () => http(base, light, get("/api/context?compact=true"), one),
    },
    {
      name: "1 caller: GET /context full, large project",
      group: "context",
      spec: () => http(base, s.large, get("/api/context"), one),
    },
    {
      name: "1 caller: GET /context compact, large project",
      group: "context",
      spec: () => http(base, s.large, get("/api/context?compact=true"), one),
    },
    {
      name: "1 caller: GET /board, 1,000 tickets",
      group: "read",
      spec: () => http(base, s.board, get(`/api/board?limit=${BOARD_TICKETS}`), one),
    },
    // Issue 27.4: the REST board's first page (20 tickets) on the small and the large project.
    {
      name: "1 caller: GET /board first page, small project",
      group: "read",
      spec: () => http(base, light, get("/api/board?limit=20"), one),
    },
    {
      name: "1 caller: GET /board first page, large project",
      group: "read",
      spec: () => http(base, s.large, get("/api/board?limit=20"), one),
    },
    // The same with one ticket each: what the board costs beyond its page.
    {
      name: "1 caller: GET /board one ticket, small project",
      group: "read",
      spec: () => http(base, light, get("/api/board?limit=1"), one),
    },
    {
      name: "1 caller: GET /board one ticket, large project",
      group: "read",
      spec: () => http(base, s.large, get("/api/board?limit=1"), one),
    },
    ...dashboardPages(s),
    {
      name: "POST /ledger",
      group: "write",
      floor: writeFloor,
      spec: () =>
        http(base, light, [{
          method: "POST",
          path: "/api/ledger",
          body: { type: "PROGRESS", content: "bench entry" },
        }]),
    },
    {
      name: "POST /claim + POST /release",
      group: "write",
      floor: writeFloor,
      spec: () =>
        http(
          base,
          light,
          [
            { method: "POST", path: "/api/claim", body: { files: ["src/bench/{file}.ts"] } },
            { method: "POST", path: "/api/release", body: { files: ["src/bench/{file}.ts"] } },
          ],
          CONNECTIONS,
          (i) => ({ file: `f${i}` }),
        ),
    },
    {
      name: "PATCH /ticket moves",
      group: "write",
      floor: writeFloor,
      spec: () =>
        http(
          base,
          light,
          [
            { method: "PATCH", path: "/api/ticket", body: { ticketId: "{ticket}", status: "claimed" } },
            { method: "PATCH", path: "/api/ticket", body: { ticketId: "{ticket}", status: "backlog" } },
          ],
          CONNECTIONS,
          (i) => ({ ticket: s.moveTickets[i]! }),
        ),
    },
  );
  for (const n of AGENT_COUNTS) {
    list.push({
      name: `agent loop, ${n} agents`,
      group: "loop",
      spec: async () => ({ kind: "agents", base, timeoutMs: 120_000, agents: await agentsFor(s, n) }),
    });
  }
  return list;
}

/**
 * Delta context (issue 27.3) on an unchanged small project: each connection polls with the cursor of its
 * own last full answer; the ratio is to the full (or compact) answer's row, the note gives the bytes.
 */
function deltaRows(base: string, light: Key[], compact: boolean): Workload[] {
  const mode = compact ? "compact" : "full";
  const q = compact ? "compact=true&" : "";
  let bytes = { delta: 0, whole: 0 };
  const cursors = async (n: number) =>
    await pool(
      8,
      light.slice(0, n).map((k, i) => async () => {
        await request(base, "GET", `/api/context?${q}`, { token: k.key });
        const whole = await request(base, "GET", `/api/context?${q}`, { token: k.key });
        const cursor = String(whole.body?.data?.contextCursor ?? "");
        if (i === 0) {
          const delta = await request(base, "GET", `/api/context?${q}since=${cursor}`, { token: k.key });
          bytes = { delta: delta.text.length, whole: whole.text.length };
        }
        return cursor;
      }),
    );
  const note = () =>
    bytes.whole > 0
      ? `body ${bytes.delta} B against ${bytes.whole} B whole (${
        (100 * bytes.delta / bytes.whole).toFixed(0)
      }%)`
      : undefined;
  const path = `/api/context?${q}since={cursor}`;
  return [
    {
      name: `GET /context delta ${mode}, unchanged small project`,
      group: "context",
      floor: `GET /context ${mode}, small project`,
      spec: async () => {
        const list = await cursors(CONNECTIONS);
        return http(base, light, [{ method: "GET", path }], CONNECTIONS, (i) => ({ cursor: list[i]! }));
      },
      note,
    },
    {
      name: `1 caller: GET /context delta ${mode}, unchanged small project`,
      group: "context",
      spec: async () => {
        const list = await cursors(1);
        return http(base, light, [{ method: "GET", path }], 1, () => ({ cursor: list[0]! }));
      },
      note,
    },
  ];
}

/**
 * The dashboard's pages on the large project, one signed-in reader (issue 14: each under 100 ms server
 * time). The server time is the page's `Server-Timing` header (column "server p50/p99").
 */
function dashboardPages(s: Setup): Workload[] {
  const d = s.dashboard;
  const p = `/projects/${d.projectId}`;
  const pages: Array<[string, string]> = [
    ["projects", "/"],
    ["board", p],
    ["ticket", `${p}/tickets/${d.ticketKey}`],
    ["claims", `${p}/claims`],
    ["agents", `${p}/agents`],
    ["threads", `${p}/threads`],
    ["sprint", `${p}/sprints/${d.sprintId}`],
    ["ledger", `${p}/ledger`],
  ];
  return pages.map(([name, path]) => ({
    name: `1 caller: dashboard ${name}, large project`,
    group: "dashboard",
    spec: (): HttpSpec => ({
      kind: "http",
      base: s.svc.base,
      connections: 1,
      durationMs: DURATION_MS,
      warmupMs: WARMUP_MS,
      vars: [{ cookie: d.cookie }],
      steps: [{ method: "GET", path, headers: { Cookie: "{cookie}" } }],
    }),
  }));
}

let agentRuns = 0;

/** Pairing codes for `n` fresh agents, ten per project, each pairing from its own forwarded address. */
async function agentsFor(s: Setup, n: number) {
  const run = ++agentRuns;
  const projects = await pool(
    8,
    Array.from(
      { length: Math.ceil(n / AGENTS_PER_PROJECT) },
      (_, i) => async () => {
        const id = await newProject(s.svc.base, s.orgId, `Agents ${run}.${i}`);
        await writeBrief(s.svc.base, (await createKeys(s.svc.base, id, 1, `lead${run}x${i}`))[0]!.key);
        return id;
      },
    ),
  );
  return await pool(
    8,
    Array.from({ length: n }, (_, i) => async () => {
      const code = await admin(
        s.svc.base,
        "POST",
        `/projects/${projects[Math.floor(i / AGENTS_PER_PROJECT)]}/pairing-codes`,
        { role: "generator" },
      );
      return { code: code.code, name: `agent-${run}-${i}`, address: `10.${run}.${i >> 8}.${i & 255}`, n: i };
    }),
  );
}

async function startFloorServer(body: string): Promise<{ base: string; pid: number }> {
  const file = await Deno.makeTempFile({ prefix: "bench-me-", suffix: ".json" });
  await Deno.writeTextFile(file, body);
  const port = freePort();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", `${ROOT}/scripts/bench/floor-server.ts`, file],
    cwd: ROOT,
    env: { PORT: String(port) },
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  onCleanup(async () => {
    try {
      child.kill("SIGKILL");
    } catch { /* gone */ }
    await child.status;
    await Deno.remove(file).catch(() => {});
  });
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  while (!seen.includes("listening on")) {
    const { value, done } = await reader.read();
    if (done) throw new Error("floor server did not start");
    seen += value;
  }
  reader.releaseLock();
  child.stdout.cancel().catch(() => {});
  return { base: `http://127.0.0.1:${port}`, pid: child.pid };
}

/**
 * Whether the rate windows are reset while the row runs (PostgreSQL only): every row of the service but
 * the agent loop, which meets the limits as agents do. Otherwise the per-agent budgets (90 ledger writes,
 * 45 claims, 30 releases per 5 minutes) and the one-minute bursts (240 units per agent, 720 per project)
 * refuse most calls within seconds on a fast machine, and the row measures the limiter's ceiling.
 */
function measuresService(w: Workload): boolean {
  return w.group !== "floor" && w.group !== "loop";
}

/** Resets every rate window (PostgreSQL): workloads start clean, single-project rows stay unrefused. */
function rateReset(dbUrl: string | undefined) {
  if (!dbUrl) return { clear: async () => {}, during: () => () => {} };
  let sqlClient: Awaited<ReturnType<typeof openSql>> | null = null;
  const openSql = async () => (await import("postgres")).default(dbUrl, { max: 1, onnotice: () => {} });
  const get = async () => (sqlClient ??= await openSql());
  onCleanup(async () => {
    await sqlClient?.end({ timeout: 2 });
  });
  const clear = async () => {
    const sql = await get();
    // SKIP LOCKED: the reset never waits on a window the service is counting, so it cannot deadlock
    // with an admission that holds the agent window and waits for the project window.
    await sql`DELETE FROM rate_counters WHERE ctid IN (SELECT ctid FROM rate_counters FOR UPDATE SKIP LOCKED)`;
  };
  return {
    clear,
    during: () => {
      const timer = setInterval(() => clear().catch(() => {}), 250);
      return () => clearInterval(timer);
    },
  };
}

async function soak(s: Setup, seconds: number): Promise<Row> {
  const samples: number[] = [rssMb(s.svc.child.pid)];
  const spec = {
    ...http(s.svc.base, s.light, [
      { method: "GET", path: "/api/me" },
      { method: "GET", path: "/api/context?compact=true" },
    ]),
    durationMs: seconds * 1000,
  } as Spec;
  const sampler = setInterval(() => samples.push(rssMb(s.svc.child.pid)), 10_000);
  const result = await load(spec);
  clearInterval(sampler);
  samples.push(rssMb(s.svc.child.pid));
  const mid = samples[Math.floor(samples.length / 3)]!;
  return {
    soakGrowthMb: samples.at(-1)! - mid,
    ...result,
    name: `soak ${seconds} s: GET /me + GET /context compact`,
    group: "read",
    connections: CONNECTIONS,
    rssBeforeMb: samples[0],
    rssAfterMb: samples.at(-1),
    note: `RSS every 10 s: ${samples.map((v) => v.toFixed(0)).join(" ")} MB; growth after warm-up ${
      (samples.at(-1)! - mid).toFixed(0)
    } MB`,
  };
}

async function main(): Promise<number> {
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    Deno.addSignalListener(signal, async () => {
      await cleanup();
      Deno.exit(130);
    });
  }
  const t0 = performance.now();
  let env: Record<string, string>;
  let dbUrl: string | undefined;
  if (engine === "postgres") {
    const pg = await startPostgres();
    dbUrl = pg.url;
    env = { DATABASE_URL: pg.url };
  } else {
    const dir = await Deno.makeTempDir({ prefix: "bench-pglite-" });
    onCleanup(() => Deno.remove(dir, { recursive: true }).catch(() => {}));
    env = { DATA_DIR: dir };
  }
  if (WORKERS) env.SVC_WORKERS = WORKERS;
  env.SVC_WEBHOOK_ALLOW_LOOPBACK = "1"; // the webhook row's receiver listens on loopback
  const workers = engine === "pglite" ? 1 : Number(WORKERS || navigator.hardwareConcurrency);
  const setup = await setUp(env);
  const floor = await startFloorServer(setup.meBody);
  const floorBase = floor.base;
  const reset = rateReset(dbUrl);
  const rows: Row[] = [];
  const all = workloads(setup, floorBase, dbUrl);
  const picked = (w: Workload) =>
    ONLY.length === 0 || w.group === "floor" || ONLY.some((o) => w.name.toLowerCase().includes(o));
  // A row measured against another row (GET /me for the context rows) brings that row along.
  const chosen = all.filter((w) => picked(w) || all.some((c) => picked(c) && c.floor === w.name));
  let passed = 0;
  let failed = 0;
  for (const w of chosen) {
    await reset.clear();
    const spec = await w.spec();
    const pid = setup.svc.child.pid;
    // Per-request CPU of whoever answers: the bare-route server, the service, or (sql) the load process.
    if (spec.kind !== "sql") spec.cpuPid = spec.base === floorBase ? floor.pid : pid;
    const before = rssMb(pid);
    const stop = measuresService(w) ? reset.during() : () => {};
    let result: LoadResult;
    try {
      result = await load(spec);
    } finally {
      stop();
    }
    const connections = spec.kind === "agents" ? spec.agents.length : spec.connections;
    const row: Row = {
      ...result,
      name: w.name,
      group: w.group,
      connections,
      ...(w.group === "floor" ? {} : { rssBeforeMb: before, rssAfterMb: rssMb(pid) }),
    };
    const note = w.note?.();
    if (note) row.note = note;
    const floorRow = rows.find((r) => r.name === w.floor);
    if (floorRow && floorRow.rps > 0) {
      row.floor = w.floor!.replace(/^floor: /, "").replace(/,.*$/, "");
      row.ratio = row.rps / floorRow.rps;
    }
    rows.push(row);
    const serverErrors = Object.keys(result.errors).filter((k) => k === "no answer" || k.startsWith("5"));
    const ok = result.ok > 0 && serverErrors.length === 0 &&
      (spec.kind !== "agents" || result.completed === spec.agents.length);
    if (ok) passed++;
    else failed++;
    console.log(
      `${ok ? "ok  " : "FAIL"} ${w.name}: ${result.rps} req/s, p50 ${result.p50} ms, p99 ${result.p99} ms` +
        `${Object.keys(result.errors).length ? `, errors ${JSON.stringify(result.errors)}` : ""}` +
        `${result.completed !== undefined ? `, ${result.completed}/${connections} agents completed` : ""}`,
    );
    if (!ok && result.samples) console.log(`     ${result.samples.join("\n     ")}`);
    if (!ok) {
      const errs = setup.svc.lines.filter((l) => l.startsWith("err")).slice(-5);
      if (errs.length) {
        console.log(`     service: ${errs.map((l) => l.slice(0, 300)).join("\n     service: ")}`);
      }
    }
  }
  if (ONLY.length === 0 || ONLY.some((o) => "contended claims".includes(o))) {
    // Issue 24: agents waiting on a few hot files (the claim wait queue); double grants must be 0.
    const stop = reset.during();
    const row = await contendedClaims(setup.svc.base, smoke ? 4 : Math.min(CONNECTIONS, 16), DURATION_MS)
      .finally(stop);
    rows.push(row);
    const ok = !row.errors["double grants"] && row.requests > 0;
    if (ok) passed++;
    else failed++;
    console.log(`${ok ? "ok  " : "FAIL"} ${row.name}: ${row.note}`);
  }
  if (ONLY.length === 0 || ONLY.some((o) => "webhooks".includes(o))) {
    // Issue 26: deliveries to a loopback receiver, the lag from event to delivery, ledger writes unchanged.
    const stop = reset.during();
    const row = await webhookRow(setup.svc.base, smoke ? 2 : 8, DURATION_MS).finally(stop);
    rows.push(row);
    const ok = row.requests > 0 && !row.errors["not delivered"];
    if (ok) passed++;
    else failed++;
    console.log(`${ok ? "ok  " : "FAIL"} ${row.name}: ${row.note}`);
  }
  if (SOAK_S > 0) {
    const stop = reset.during();
    rows.push(await soak(setup, SOAK_S).finally(stop));
  }

  const memory = memorySummary(setup.svc.child.pid, workers, rows.find((r) => r.soakGrowthMb !== undefined));
  const load1 = Deno.loadavg().map((v) => v.toFixed(1)).join(" ");
  const meta = {
    engine,
    workers,
    connections: CONNECTIONS,
    durationSeconds: DURATION_MS / 1000,
    warmupSeconds: WARMUP_MS / 1000,
    smoke,
    large: SIZE,
    boardTickets: BOARD_TICKETS,
    keys: KEYS,
    cpus: navigator.hardwareConcurrency,
    loadAverage: load1,
    deno: Deno.version.deno,
    at: new Date().toISOString(),
    totalSeconds: Math.round((performance.now() - t0) / 1000),
    memory,
  };
  const title =
    `deno task bench: ${engine === "postgres" ? "PostgreSQL" : "PGlite"}, ${workers} worker(s), ` +
    `${CONNECTIONS} connections, ` +
    `${DURATION_MS / 1000} s per row`;
  const table = markdown(title, rows, [
    `${meta.at}, ${meta.cpus} CPUs, load average ${load1} (1, 5, 15 min), ${meta.totalSeconds} s in all.`,
    "",
    memoryLine(memory),
  ]);
  console.log(`\n${table}`);
  if (!smoke || args.values.out) {
    const stem = args.values.out || `${ROOT}/bench/results/latest${engine === "pglite" ? "-pglite" : ""}`;
    await Deno.mkdir(stem.replace(/\/[^/]*$/, ""), { recursive: true });
    await Deno.writeTextFile(`${stem}.json`, JSON.stringify({ meta, rows }, null, 2) + "\n");
    await Deno.writeTextFile(`${stem}.md`, table);
    console.log(`wrote ${stem}.json and ${stem}.md`);
  }
  await cleanup();
  console.log(`${passed} passed, ${failed} failed`);
  return failed === 0 ? 0 : 1;
}

if (import.meta.main) {
  let code = 1;
  try {
    code = await main();
  } catch (err) {
    console.error(err instanceof Error ? err.stack ?? err.message : err);
    await cleanup();
    console.log("0 passed, 1 failed");
  }
  Deno.exit(code);
}
