/**
 * The load process of `deno task bench` (scripts/bench/main.ts starts it; never imported by the
 * service). Reads one workload spec (JSON file named by the first argument), drives it for its duration
 * at its concurrency over loopback with keep-alive connections, and prints one JSON result on stdout.
 *
 * Kinds:
 * - `http`: each connection repeats its cycle of steps (templated with the connection's variables);
 * - `sql`: the floor of an operation, driven with postgres.js straight at the database;
 * - `agents`: N agents at once, each running the agent loop once (pair, context, ticket, begin, five
 *   ledger entries, claim and release, handoff).
 */
import process from "node:process";
import postgres from "postgres";

export interface Step {
  method: string;
  /** Templated: `{name}` takes the connection's variable `name`. */
  path: string;
  body?: unknown;
  /** Extra request headers, templated like the path (the dashboard's `Cookie`). */
  headers?: Record<string, string>;
}

export interface HttpSpec {
  kind: "http";
  base: string;
  connections: number;
  durationMs: number;
  warmupMs: number;
  /** One entry per connection (used round-robin): `token` (if any) is the bearer, others fill templates. */
  vars: Array<Record<string, string>>;
  steps: Step[];
}

export interface SqlSpec {
  kind: "sql";
  url: string;
  connections: number;
  durationMs: number;
  warmupMs: number;
  /** `auth`: token UPDATE ... RETURNING + limiter upsert; `write`: the same + one ledger insert. */
  floor: "auth" | "write";
  /** One per connection (round-robin): a token hash and its project. */
  vars: Array<{ tokenHash: string; projectId: string; agentId: string }>;
}

export interface AgentsSpec {
  kind: "agents";
  base: string;
  timeoutMs: number;
  agents: Array<{ code: string; name: string; address: string; n: number }>;
}

/**
 * Whose CPU a row charges to its requests: the process that answers them (the service, or the bare-route
 * floor server), read from /proc, or for the `sql` floor this load process itself (its postgres.js client).
 */
export type Spec = (HttpSpec | SqlSpec | AgentsSpec) & { cpuPid?: number };

export interface LoadResult {
  requests: number;
  ok: number;
  seconds: number;
  rps: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
  /** Non-2xx answers by `status CODE`, and `no answer` for transport failures. */
  errors: Record<string, number>;
  /** Agent loop only: agents that finished their loop. */
  completed?: number;
  /** Server time (the answer's `Server-Timing` duration, where the service reports one), ms. */
  serverP50?: number;
  serverP99?: number;
  /** CPU (user + system) of the answering process over the measured window, ms per request. */
  cpuMsPerRequest?: number;
  samples?: string[];
}

/** Clock ticks per second of /proc's utime and stime (USER_HZ: 100 on Linux). */
const USER_HZ = 100;

/** CPU ms used so far by `pid` (all its threads: every worker of the service), or by this process. */
export function cpuMs(pid?: number): number {
  if (pid === undefined) {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  }
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    // Fields after the command name (which may hold spaces): state is field 3, utime 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 1000 / USER_HZ;
  } catch {
    return NaN;
  }
}

class Recorder {
  latencies: number[] = [];
  serverTimes: number[] = [];
  errors = new Map<string, number>();
  samples: string[] = [];
  requests = 0;
  ok = 0;
  recording = false;
  /** CPU of the answering process over the recorded window (set by `timed`). */
  cpuMs = NaN;

  add(ms: number, status: number, code: string | undefined, text?: string, serverMs?: number): void {
    if (!this.recording) return;
    this.requests++;
    if (status >= 200 && status < 300) {
      this.ok++;
      this.latencies.push(ms);
      if (serverMs !== undefined) this.serverTimes.push(serverMs);
      return;
    }
    const key = status === 0 ? "no answer" : `${status}${code ? ` ${code}` : ""}`;
    this.errors.set(key, (this.errors.get(key) ?? 0) + 1);
    if (this.samples.length < 5 && text) this.samples.push(`${key}: ${text.slice(0, 300)}`);
  }

  result(seconds: number, extra: Partial<LoadResult> = {}): LoadResult {
    const sorted = Float64Array.from(this.latencies).sort();
    const percentile = (values: Float64Array, p: number) =>
      values.length === 0 ? NaN : values[Math.min(values.length - 1, Math.ceil(p * values.length) - 1)]!;
    const pct = (p: number) => percentile(sorted, p);
    const round = (v: number) => Math.round(v * 100) / 100;
    const server = Float64Array.from(this.serverTimes).sort();
    return {
      requests: this.requests,
      ok: this.ok,
      seconds: round(seconds),
      rps: Math.round(this.ok / seconds),
      p50: round(pct(0.5)),
      p95: round(pct(0.95)),
      p99: round(pct(0.99)),
      max: round(sorted.length ? sorted[sorted.length - 1]! : NaN),
      errors: Object.fromEntries(this.errors),
      ...(server.length
        ? { serverP50: round(percentile(server, 0.5)), serverP99: round(percentile(server, 0.99)) }
        : {}),
      ...(Number.isFinite(this.cpuMs) && this.requests > 0
        ? { cpuMsPerRequest: Math.round(this.cpuMs / this.requests * 1000) / 1000 }
        : {}),
      ...(this.samples.length ? { samples: this.samples } : {}),
      ...extra,
    };
  }
}

function fill(template: string, vars: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (m, name: string) => vars[name] ?? m);
}

function fillBody(body: unknown, vars: Record<string, string>): string | undefined {
  return body === undefined ? undefined : fill(JSON.stringify(body), vars);
}

interface Answer {
  status: number;
  // deno-lint-ignore no-explicit-any
  body: any;
  text: string;
  /** `Server-Timing` total duration, when the answer carries one. */
  serverMs?: number;
}

function serverTiming(header: string | null): number | undefined {
  const m = header ? /dur=([\d.]+)/.exec(header) : null;
  return m ? Number(m[1]) : undefined;
}

async function call(
  base: string,
  method: string,
  path: string,
  token: string | undefined,
  body: string | undefined,
  headers: Record<string, string> = {},
): Promise<Answer> {
  try {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: {
        ...(token ? { Authorization: `Bearer ${token}` } : {}),
        ...(body !== undefined ? { "Content-Type": "application/json" } : {}),
        ...headers,
      },
      body: body ?? null,
      // A redirect is an answer (a dashboard page that lost its session redirects to sign-in).
      redirect: "manual",
      signal: AbortSignal.timeout(30_000),
    });
    const text = await res.text();
    const serverMs = serverTiming(res.headers.get("server-timing"));
    let parsed: unknown = null;
    if (res.status >= 300 || text.length < 100_000) {
      try {
        parsed = JSON.parse(text);
      } catch { /* not JSON */ }
    }
    return {
      status: res.status,
      body: parsed,
      text: res.status >= 300 ? text : "",
      ...(serverMs !== undefined ? { serverMs } : {}),
    };
  } catch (err) {
    return { status: 0, body: null, text: err instanceof Error ? err.message : String(err) };
  }
}

/** Runs `loop(i)` on `connections` loops: warm-up (not recorded), then the timed run. */
async function timed(
  rec: Recorder,
  connections: number,
  warmupMs: number,
  durationMs: number,
  loop: (i: number, running: () => boolean) => Promise<void>,
  cpuPid?: number,
): Promise<number> {
  let stopAt = performance.now() + warmupMs + durationMs;
  const running = () => performance.now() < stopAt;
  let started = 0;
  let cpuAtStart = 0;
  const start = () => {
    rec.recording = true;
    started = performance.now();
    cpuAtStart = cpuMs(cpuPid);
  };
  const warm = setTimeout(() => {
    start();
    stopAt = started + durationMs;
  }, warmupMs);
  if (warmupMs === 0) {
    clearTimeout(warm);
    start();
  }
  await Promise.all(Array.from({ length: connections }, (_, i) => loop(i, running)));
  rec.cpuMs = cpuMs(cpuPid) - cpuAtStart;
  return (performance.now() - started) / 1000;
}

async function runHttp(spec: HttpSpec & { cpuPid?: number }): Promise<LoadResult> {
  const rec = new Recorder();
  const seconds = await timed(rec, spec.connections, spec.warmupMs, spec.durationMs, async (i, running) => {
    const vars = spec.vars[i % spec.vars.length]!;
    let step = 0;
    while (running()) {
      const s = spec.steps[step++ % spec.steps.length]!;
      const t0 = performance.now();
      const headers = Object.fromEntries(Object.entries(s.headers ?? {}).map(([k, v]) => [k, fill(v, vars)]));
      const res = await call(
        spec.base,
        s.method,
        fill(s.path, vars),
        vars.token,
        fillBody(s.body, vars),
        headers,
      );
      rec.add(performance.now() - t0, res.status, res.body?.error?.code, res.text, res.serverMs);
      // Events polling follows the cursor it was given.
      if (res.status === 200 && typeof res.body?.data?.nextCursor === "string" && "cursor" in vars) {
        vars.cursor = res.body.data.nextCursor;
      }
    }
  }, spec.cpuPid);
  return rec.result(seconds);
}

async function runSql(spec: SqlSpec): Promise<LoadResult> {
  const sql = postgres(spec.url, { max: spec.connections, onnotice: () => {} });
  const rec = new Recorder();
  try {
    await sql`select 1`;
    const seconds = await timed(rec, spec.connections, spec.warmupMs, spec.durationMs, async (i, running) => {
      const v = spec.vars[i % spec.vars.length]!;
      while (running()) {
        const t0 = performance.now();
        try {
          const now = Date.now();
          const windowStart = new Date(Math.floor(now / 60_000) * 60_000);
          const [token] = await sql`UPDATE tokens SET last_used_at = now()
            WHERE token_hash = ${v.tokenHash} RETURNING id, agent_id, project_id, scopes, expires_at`;
          if (!token) throw new Error("floor: unknown token");
          await sql`INSERT INTO rate_counters (key, window_start, count, expires_at)
            VALUES (${`floor:${v.agentId}`}, ${windowStart}, 1, ${new Date(windowStart.getTime() + 60_000)})
            ON CONFLICT (key, window_start) DO UPDATE SET count = rate_counters.count + 1 RETURNING count`;
          if (spec.floor === "write") {
            await sql`INSERT INTO ledger_entries (id, project_id, type, content, source, agent_id, labels,
                created_at)
              VALUES (gen_random_uuid(), ${v.projectId}, 'PROGRESS', 'floor entry', 'agent', ${v.agentId},
                '[]'::jsonb, now()) RETURNING seq`;
          }
          rec.add(performance.now() - t0, 200, undefined);
        } catch (err) {
          rec.add(performance.now() - t0, 500, "SQL", err instanceof Error ? err.message : String(err));
        }
      }
    }, undefined);
    return rec.result(seconds);
  } finally {
    await sql.end({ timeout: 2 });
  }
}

/** One agent's loop; every answer is recorded; stops at the first failure of a step it depends on. */
async function agentLoop(spec: AgentsSpec, a: AgentsSpec["agents"][number], rec: Recorder): Promise<boolean> {
  const step = async (method: string, path: string, token: string | undefined, body?: unknown) => {
    const t0 = performance.now();
    const res = await call(
      spec.base,
      method,
      path,
      token,
      body === undefined ? undefined : JSON.stringify(body),
      {
        "X-Forwarded-For": a.address,
      },
    );
    rec.add(performance.now() - t0, res.status, res.body?.error?.code, res.text);
    return res.status >= 200 && res.status < 300 ? res.body?.data : null;
  };
  const paired = await step("POST", "/api/pair/connect", undefined, {
    code: a.code,
    agentName: a.name,
    platform: "claude-code",
  });
  if (!paired) return false;
  const token: string = paired.sessionToken;
  const sessionId: string = paired.sessionId;
  if (!await step("GET", "/api/context?compact=true", token)) return false;
  const files = [`src/agent${a.n}/main.ts`, `src/agent${a.n}/main.test.ts`];
  const ticket = await step("POST", "/api/ticket", token, {
    title: `Module of agent ${a.n}`,
    expectedFiles: files,
    doneDefinition: `Agent ${a.n}'s module works and is tested`,
    verificationCommand: `deno test src/agent${a.n}`,
    riskClass: "local",
    acceptanceCriteria: [{ title: "It answers its calls" }],
  });
  if (!ticket) return false;
  if (!await step("POST", "/api/begin", token, { ticketId: ticket.id, files, acknowledgeCriteria: true })) {
    return false;
  }
  for (let k = 0; k < 5; k++) {
    const entry = { type: "PROGRESS", content: `Step ${k} of agent ${a.n}`, sessionId, ticketId: ticket.id };
    if (!await step("POST", "/api/ledger", token, entry)) return false;
  }
  const extra = [`src/agent${a.n}/notes.md`];
  if (!await step("POST", "/api/claim", token, { files: extra, ticketId: ticket.id })) return false;
  if (!await step("POST", "/api/release", token, { files: extra })) return false;
  return !!await step("POST", "/api/handoff", token, {
    moduleName: `agent-${a.n}`,
    summary: `Agent ${a.n}'s module with tests`,
    sessionId,
    ticketId: ticket.id,
    testResults: "4 passed",
  });
}

async function runAgents(spec: AgentsSpec & { cpuPid?: number }): Promise<LoadResult> {
  const rec = new Recorder();
  rec.recording = true;
  const t0 = performance.now();
  const cpu0 = cpuMs(spec.cpuPid);
  const done = await Promise.all(spec.agents.map((a) => agentLoop(spec, a, rec).catch(() => false)));
  rec.cpuMs = cpuMs(spec.cpuPid) - cpu0;
  const seconds = (performance.now() - t0) / 1000;
  return rec.result(seconds, { completed: done.filter(Boolean).length });
}

if (import.meta.main) {
  const spec = JSON.parse(await Deno.readTextFile(Deno.args[0]!)) as Spec;
  const result = spec.kind === "http"
    ? await runHttp(spec)
    : spec.kind === "sql"
    ? await runSql(spec)
    : await runAgents(spec);
  console.log(JSON.stringify(result));
}
