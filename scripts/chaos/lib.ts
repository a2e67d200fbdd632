/**
 * Shared pieces of the chaos experiments (`scripts/chaos/*.experiment.ts`): a throwaway PostgreSQL
 * (never the shared server), the service as a child process, an HTTP client that never throws, pairing
 * through the operator API, outcome tallies, invariant checks, and cleanup that kills every child
 * whatever happens (normal end, exception, signal or the experiment's own deadline).
 */
import postgres from "postgres";

export const ROOT = new URL("../../", import.meta.url).pathname.replace(/\/$/, "");
export const ADMIN_TOKEN = "chaos-admin-token";

// ---------------------------------------------------------------------------------------------------
// Cleanup

const cleanups: Array<() => Promise<void> | void> = [];
let cleaning: Promise<void> | null = null;

/** Registers work to run at the end (children to kill, directories to remove), last first. */
export function onCleanup(fn: () => Promise<void> | void): void {
  cleanups.push(fn);
}

export function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    for (const fn of cleanups.reverse()) {
      try {
        await fn();
      } catch (err) {
        console.error(`cleanup: ${err instanceof Error ? err.message : err}`);
      }
    }
  })();
  return cleaning;
}

/**
 * Runs an experiment: a hard deadline, cleanup on every path (also SIGINT/SIGTERM), and the exit code
 * from the invariant checks (0 when every check held).
 */
export async function experiment(
  name: string,
  deadlineMs: number,
  body: () => Promise<void>,
): Promise<never> {
  const started = performance.now();
  console.log(`== ${name} (deadline ${Math.round(deadlineMs / 1000)} s)`);
  const abort = async (why: string) => {
    console.error(`${name}: ${why}; killing every child`);
    await cleanup();
    Deno.exit(1);
  };
  const timer = setTimeout(() => abort(`deadline of ${deadlineMs / 1000} s passed`), deadlineMs);
  for (const signal of ["SIGINT", "SIGTERM"] as const) Deno.addSignalListener(signal, () => abort(signal));
  let code = 0;
  try {
    await body();
  } catch (err) {
    console.error(`${name}: ${err instanceof Error ? err.stack ?? err.message : err}`);
    code = 1;
  }
  await cleanup();
  clearTimeout(timer);
  const failedChecks = checks.filter((c) => !c.ok).length;
  if (failedChecks > 0) code = 1;
  console.log(
    `${name}: ${checks.length - failedChecks}/${checks.length} invariant checks held, ` +
      `${((performance.now() - started) / 1000).toFixed(1)} s, ${code === 0 ? "PASSED" : "FAILED"}`,
  );
  Deno.exit(code);
}

// ---------------------------------------------------------------------------------------------------
// Invariant checks

const checks: Array<{ name: string; ok: boolean }> = [];

/** Records and prints one invariant check. */
export function check(name: string, ok: boolean, detail = ""): boolean {
  checks.push({ name, ok });
  console.log(`  [${ok ? "ok" : "FAIL"}] ${name}${detail ? `: ${detail}` : ""}`);
  return ok;
}

// ---------------------------------------------------------------------------------------------------
// Processes

async function run(cmd: string, args: string[], env: Record<string, string> = {}): Promise<string> {
  const out = await new Deno.Command(cmd, { args, env, stdout: "piped", stderr: "piped", cwd: ROOT })
    .output();
  const stdout = new TextDecoder().decode(out.stdout);
  if (!out.success) {
    throw new Error(`${cmd} ${args.join(" ")} failed: ${new TextDecoder().decode(out.stderr).trim()}`);
  }
  return stdout;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A free loopback port (bound then released). */
export function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

// ---------------------------------------------------------------------------------------------------
// PostgreSQL

export interface TempPostgres {
  dir: string;
  url: string;
  port: number;
  /** `pg_ctl stop -m fast` (connections terminated with 57P01). */
  stop(): Promise<void>;
  /** Starts the stopped server again on the same port. */
  start(): Promise<void>;
  /** Removes the server and its directory. */
  destroy(): Promise<void>;
}

async function pgctl(dir: string, args: string): Promise<void> {
  const bindir = (await run("pg_config", ["--bindir"])).trim();
  await run("su", ["postgres", "-s", "/bin/bash", "-c", `'${bindir}/pg_ctl' -D '${dir}/data' ${args}`]);
}

/** A throwaway PostgreSQL from `scripts/pg-temp.sh`, on a port above the shared server's. */
export async function startPostgres(): Promise<TempPostgres> {
  const out = await run(`${ROOT}/scripts/pg-temp.sh`, [], {
    // Below Linux's ephemeral range (32768-60999), where loopback clients' local ports would collide.
    PGTEMP_PORT: String(20000 + Math.floor(Math.random() * 10000)),
  });
  const [dir, url] = out.trim().split(/\s+/) as [string, string];
  const port = Number(new URL(url).port);
  if (port === 55432) throw new Error("pg-temp.sh gave the shared server's port");
  let destroyed = false;
  const pg: TempPostgres = {
    dir,
    url,
    port,
    stop: () => pgctl(dir, "-m fast -w stop"),
    start: () =>
      pgctl(
        dir,
        `-l '${dir}/log' -w -o '-p ${port} -h 127.0.0.1 -k ${dir} -c fsync=off ` +
          `-c synchronous_commit=off -c full_page_writes=off -c max_connections=300' start`,
      ),
    destroy: async () => {
      if (destroyed) return;
      destroyed = true;
      await run(`${ROOT}/scripts/pg-temp.sh`, ["stop", dir]);
    },
  };
  onCleanup(() => pg.destroy());
  console.log(`postgres: ${url} (${dir})`);
  return pg;
}

/** A postgres.js client for the final checks (closed at cleanup). */
export function sqlClient(url: string) {
  const sql = postgres(url, { max: 2, onnotice: () => {} });
  onCleanup(() => sql.end({ timeout: 2 }));
  return sql;
}

// ---------------------------------------------------------------------------------------------------
// The service

export interface Service {
  base: string;
  port: number;
  child: Deno.ChildProcess;
  /** Every output line (stdout and stderr), prefixed by the stream. */
  lines: string[];
  /** Resolves with the exit status once the process ended. */
  exited: Promise<Deno.CommandStatus>;
  kill(signal?: Deno.Signal): void;
}

async function pipeLines(
  stream: ReadableStream<Uint8Array>,
  onLine: (line: string) => void,
): Promise<void> {
  let rest = "";
  for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
    const parts = (rest + chunk).split("\n");
    rest = parts.pop() ?? "";
    for (const p of parts) onLine(p);
  }
  if (rest) onLine(rest);
}

/**
 * The V8 flags the service runs with (`deno task start`, the Dockerfile; tests/perf/memory.test.ts keeps
 * them equal), docs/performance.md "Memory": the young generation capped at 2 x 8 MB instead of 2 x 16 MB,
 * and an old generation of at most 512 MB, which is what makes V8 grow it by a factor of about 1.4 past the
 * live set between full collections rather than 4 (on a large machine the default limit is several GB).
 * The service's live heap is about 40 MB (every answer is bounded), far from the cap.
 */
export const SERVICE_V8_FLAGS = "--max-semi-space-size=8,--max-old-space-size=512";

/**
 * Starts `deno run -A src/main.ts` (with SERVICE_V8_FLAGS) with its own port and admin token (no demo data, proxy headers
 * trusted so each pairing can come from its own address) and waits for `listening on`.
 */
export async function startService(
  env: Record<string, string>,
  options: { port?: number; label?: string; quiet?: boolean; timeoutMs?: number } = {},
): Promise<Service> {
  const port = options.port ?? freePort();
  const label = options.label ?? "svc";
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", `--v8-flags=${SERVICE_V8_FLAGS}`, "-A", "src/main.ts"],
    cwd: ROOT,
    env: {
      PORT: String(port),
      SVC_ADMIN_TOKEN: ADMIN_TOKEN,
      SVC_NO_DEMO: "1",
      SVC_TRUST_PROXY: "1",
      NO_COLOR: "1",
      ...env,
    },
    clearEnv: false,
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let alive = true;
  const exited = child.status.then((s) => {
    alive = false;
    return s;
  });
  const kill = (signal: Deno.Signal = "SIGKILL") => {
    if (!alive) return;
    try {
      child.kill(signal);
    } catch { /* already gone */ }
  };
  onCleanup(async () => {
    kill("SIGKILL");
    await exited;
  });
  const lines: string[] = [];
  let listening: () => void = () => {};
  const ready = new Promise<void>((resolve) => (listening = resolve));
  const onLine = (stream: string) => (line: string) => {
    lines.push(`${stream}: ${line}`);
    if (!options.quiet && stream === "err" && lines.filter((l) => l.startsWith("err")).length <= 5) {
      console.log(`  [${label} stderr] ${line.slice(0, 200)}`);
    }
    if (line.includes("listening on")) listening();
  };
  pipeLines(child.stdout, onLine("out")).catch(() => {});
  pipeLines(child.stderr, onLine("err")).catch(() => {});
  const timeoutMs = options.timeoutMs ?? 60_000;
  const outcome = await Promise.race([
    ready.then(() => "ready" as const),
    exited.then(() => "exited" as const),
    sleep(timeoutMs).then(() => "timeout" as const),
  ]);
  if (outcome !== "ready") {
    kill();
    throw new Error(`${label} did not start (${outcome}):\n${lines.slice(-10).join("\n")}`);
  }
  const service = { base: `http://127.0.0.1:${port}`, port, child, lines, exited, kill };
  return service;
}

// ---------------------------------------------------------------------------------------------------
// HTTP

export interface Reply {
  /** 0 when no HTTP answer came (connection refused or reset, timeout). */
  status: number;
  headers: Headers;
  // deno-lint-ignore no-explicit-any
  body: any;
  text: string;
  ms: number;
}

/**
 * One request; never throws. `timeoutMs` bounds it (default 30 s: in CI the experiments run beside a test
 * run, and a request the service answers slowly on a busy CPU is answered, not dropped).
 */
export async function request(
  base: string,
  method: string,
  path: string,
  options: { token?: string; body?: unknown; headers?: Record<string, string>; timeoutMs?: number } = {},
): Promise<Reply> {
  const started = performance.now();
  try {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: {
        ...(options.token ? { Authorization: `Bearer ${options.token}` } : {}),
        ...(options.body !== undefined ? { "Content-Type": "application/json" } : {}),
        ...options.headers,
      },
      body: options.body !== undefined ? JSON.stringify(options.body) : null,
      signal: AbortSignal.timeout(options.timeoutMs ?? 30_000),
    });
    const text = await res.text();
    let body: unknown = null;
    try {
      body = JSON.parse(text);
    } catch { /* not JSON */ }
    return { status: res.status, headers: res.headers, body, text, ms: performance.now() - started };
  } catch (err) {
    return {
      status: 0,
      headers: new Headers(),
      body: null,
      text: err instanceof Error ? err.message : String(err),
      ms: performance.now() - started,
    };
  }
}

/** An operator API call that must succeed (setup). */
// deno-lint-ignore no-explicit-any
export async function admin(base: string, method: string, path: string, body: unknown = {}): Promise<any> {
  const res = await request(base, method, `/admin${path}`, { token: ADMIN_TOKEN, body });
  if (res.status < 200 || res.status >= 300) {
    throw new Error(`admin ${method} ${path}: ${res.status} ${res.text.slice(0, 300)}`);
  }
  return res.body.data;
}

/** An organization (enterprise plan: no hourly unit cap) and a project in it. */
export async function newProject(
  base: string,
  prefix: string,
): Promise<{ projectId: string; prefix: string }> {
  const org = await admin(base, "POST", "/orgs", { name: `Chaos ${prefix}`, plan: "enterprise" });
  const project = await admin(base, "POST", "/projects", {
    orgId: org.id,
    name: `Chaos ${prefix}`,
    ticketPrefix: prefix,
  });
  return { projectId: project.id, prefix };
}

export interface Agent {
  token: string;
  sessionId: string;
  agentId: string;
  name: string;
}

let pairings = 0;

/** Pairs an agent through an operator-issued code, from its own (forwarded) client address. */
export async function pair(
  base: string,
  projectId: string,
  name: string,
  role = "generator",
): Promise<Reply> {
  const code = await request(base, "POST", `/admin/projects/${projectId}/pairing-codes`, {
    token: ADMIN_TOKEN,
    body: { role },
  });
  if (code.status !== 201 && code.status !== 200) return code;
  pairings++;
  return await request(base, "POST", "/api/pair/connect", {
    body: { code: code.body.data.code, agentName: name, platform: "claude-code" },
    headers: { "X-Forwarded-For": `10.${(pairings >> 16) & 255}.${(pairings >> 8) & 255}.${pairings & 255}` },
  });
}

export function agentOf(reply: Reply, name: string): Agent {
  const d = reply.body.data;
  return { token: d.sessionToken, sessionId: d.sessionId, agentId: d.agent.id, name };
}

// ---------------------------------------------------------------------------------------------------
// Tallies

/** Outcomes by status (and by `status code` for errors), plus 503 shape checks. */
export class Tally {
  byStatus = new Map<string, number>();
  requests = 0;
  unavailable = 0;
  /** 503s that were not JSON SERVICE_UNAVAILABLE + RETRY_LATER + Retry-After. */
  badUnavailable: string[] = [];
  /** Requests without an HTTP answer. */
  noAnswer: string[] = [];
  /** 5xx other than a well-formed 503. */
  serverErrors: string[] = [];

  add(label: string, r: Reply): void {
    this.requests++;
    const code = r.body?.error?.code;
    const key = r.status === 0 ? "no answer" : code ? `${r.status} ${code}` : String(r.status);
    this.byStatus.set(key, (this.byStatus.get(key) ?? 0) + 1);
    if (r.status === 0) this.noAnswer.push(`${label}: ${r.text.slice(0, 100)}`);
    if (r.status === 503) {
      this.unavailable++;
      const retryAfter = Number(r.headers.get("Retry-After"));
      const ok = code === "SERVICE_UNAVAILABLE" &&
        r.body?.error?.details?.recovery?.action === "RETRY_LATER" && retryAfter > 0;
      if (!ok) this.badUnavailable.push(`${label}: ${r.text.slice(0, 200)}`);
    } else if (r.status >= 500) {
      this.serverErrors.push(`${label}: ${r.status} ${r.text.slice(0, 200)}`);
    }
  }

  summary(): string {
    const parts = [...this.byStatus.entries()].sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k}: ${v}`);
    return `${this.requests} requests; ${parts.join(", ")}`;
  }

  print(title: string): void {
    console.log(`  ${title}: ${this.summary()}`);
  }
}
