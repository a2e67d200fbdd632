import { sql } from "kysely";
import { createApp } from "@/app.ts";
import { systemClock } from "@/clock.ts";
import { type Config, readConfig } from "@/config.ts";
import { openDatabase, type OpenedDatabase } from "@/db/dialect.ts";
import { migrateToLatest } from "@/db/migrate.ts";
import { DataDirInUseError } from "@/db/data-dir-lock.ts";
import { ensureDemo, resolveAdminToken } from "@/bootstrap.ts";
import { startupLines } from "@/startup-lines.ts";
import { startBackgroundWork } from "@/worker.ts";
import { closeEventStreams } from "@/routes/event-stream.ts";
import { type Cluster, shareMetrics, startWorkers, workerCount } from "@/cluster.ts";
import { defaultLogFormat, logWriter } from "@/http/access-log.ts";
import { Metrics } from "@/http/metrics.ts";

/** A start that cannot reach its database gives up after this long. */
const STARTUP_DATABASE_MS = 10_000;
/**
 * Graceful shutdown: in-flight requests and the current background job get this long (in parallel), the
 * database pool this long after; the process exits by SHUTDOWN_HARD_MS whatever happens.
 */
const SHUTDOWN_SERVER_MS = 3_000;
const SHUTDOWN_DATABASE_MS = 2_000;
const SHUTDOWN_HARD_MS = 9_000;
/** Extra workers (src/cluster.ts) must listen within this long. */
const STARTUP_WORKERS_MS = 30_000;

/** A failed start: one line on stderr (no stack), exit code 1. */
function fatal(reason: string): never {
  console.error(`cannot start: ${reason.replace(/\s+/g, " ").trim()}`);
  Deno.exit(1);
}

function messageOf(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    return typeof code === "string" && !err.message.includes(code) ? `${err.message} (${code})` : err.message;
  }
  return String(err);
}

/** Rejects after `ms` with `message`; the timer does not keep the process alive once `work` settles. */
async function within<T>(work: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      work,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(message)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

function where(config: Config): string {
  if (!config.databaseUrl) return `embedded database in ${config.dataDir}`;
  try {
    const url = new URL(config.databaseUrl);
    return `database ${url.hostname}:${url.port || "5432"}${url.pathname}`;
  } catch {
    return "database (DATABASE_URL is not a URL)";
  }
}

/** The embedded database lives in DATA_DIR: refuse early, in plain words, when it cannot be written. */
async function assertWritableDataDir(dataDir: string): Promise<void> {
  try {
    await Deno.mkdir(dataDir, { recursive: true });
    const probe = `${dataDir.replace(/\/+$/, "")}/.write-test-${crypto.randomUUID()}`;
    await Deno.writeTextFile(probe, "");
    await Deno.remove(probe);
  } catch (err) {
    fatal(`data directory ${dataDir} is not writable: ${messageOf(err)}`);
  }
}

function portInUse(config: Config): string {
  return `port ${config.port} on ${config.host} is already in use`;
}

/** Refuses a busy port before the database is opened, so the failure comes at once. */
function assertPortFree(config: Config): void {
  // Deno Deploy assigns the socket itself (and sets DENO_DEPLOYMENT_ID).
  if (config.port === 0 || Deno.env.get("DENO_DEPLOYMENT_ID")) return;
  try {
    Deno.listen({ hostname: config.host, port: config.port }).close();
  } catch (err) {
    fatal(
      err instanceof Deno.errors.AddrInUse
        ? portInUse(config)
        : `cannot listen on ${config.host}:${config.port}: ${messageOf(err)}`,
    );
  }
}

let config: Config;
try {
  config = readConfig(Deno.env.toObject());
} catch (err) {
  fatal(messageOf(err));
}
if (!config.databaseUrl) await assertWritableDataDir(config.dataDir);
assertPortFree(config);

const log = logWriter(config.logFormat ?? defaultLogFormat());
const metrics = new Metrics();
const clock = systemClock();
let opened: OpenedDatabase | undefined;
let started: {
  adminToken: string | undefined;
  demo: Awaited<ReturnType<typeof ensureDemo>>;
};
try {
  opened = await openDatabase(config.databaseUrl, config.dataDir, {
    sharedBuffers: config.pgliteSharedBuffers,
  });
  if (opened.engine === "postgres") {
    // A server that does not answer (filtered port, wrong host) would otherwise hang the start.
    await within(
      sql`select 1`.execute(opened.db),
      STARTUP_DATABASE_MS,
      `no answer within ${STARTUP_DATABASE_MS / 1000} s`,
    );
  }
  await migrateToLatest(opened.db);
  const adminToken = await resolveAdminToken(opened.db, config, clock);
  // Demo data: by default on the embedded database (SVC_NO_DEMO=1 skips it), on request on PostgreSQL.
  const wantDemo = opened.engine === "pglite" ? !config.noDemo : config.demo && !config.noDemo;
  const demo = wantDemo ? await ensureDemo(opened.db, clock) : null;
  started = { adminToken, demo };
} catch (err) {
  // Another process serves this data directory: say which, not that the database is broken.
  if (err instanceof DataDirInUseError) fatal(err.message);
  fatal(`${where(config)} is not usable: ${messageOf(err)}`);
}
const { db, engine, close } = opened!;
const { adminToken, demo } = started;
const workers = workerCount(config, engine);
const app = createApp({ db, engine, clock, config: { ...config, adminToken } }, {
  metrics,
  log,
  ...(workers > 1 ? { worker: `1/${workers}`, peerMetrics: shareMetrics(metrics, workers) } : {}),
});

let server: Deno.HttpServer;
let listening: { hostname: string; port: number } | undefined;
try {
  server = Deno.serve({
    port: config.port,
    hostname: config.host,
    // Several workers share the port: each binds it with SO_REUSEPORT (Linux) and the kernel spreads connections.
    ...(workers > 1 ? { reusePort: true } : {}),
    onListen: (addr) => {
      listening = addr;
    },
  }, app.fetch);
} catch (err) {
  await within(close(), SHUTDOWN_DATABASE_MS, "close timed out").catch(() => {});
  const reason = err instanceof Deno.errors.AddrInUse
    ? portInUse(config)
    : `cannot listen on ${config.host}:${config.port}: ${messageOf(err)}`;
  fatal(reason);
}
const addr = listening ?? server.addr as Deno.NetAddr;
let cluster: Cluster | undefined;
if (workers > 1) {
  try {
    cluster = await startWorkers({ config, adminToken, port: addr.port, count: workers }, STARTUP_WORKERS_MS);
  } catch (err) {
    await within(server.shutdown(), SHUTDOWN_SERVER_MS, "shutdown timed out").catch(() => {});
    await within(close(), SHUTDOWN_DATABASE_MS, "close timed out").catch(() => {});
    fatal(messageOf(err));
  }
}
{
  const [first, ...rest] = startupLines(config, { listening: addr, engine, adminToken, demo, workers });
  log("info", first!, { publicUrl: config.publicUrl, engine, workers });
  for (const line of rest) log("info", line);
}
const stopWork = startBackgroundWork({
  db,
  clock,
  testClock: config.testClock,
  metrics,
  log,
  webhookAllowLoopback: config.webhookAllowLoopback,
});

/**
 * Graceful shutdown that ends whatever the database does: stop accepting, let in-flight requests and the
 * current background job finish (bounded, in parallel), close the pool (bounded), log, exit. A second
 * signal exits at once; a hard timer exits by SHUTDOWN_HARD_MS in any case.
 */
let stopping = false;
const shutdown = async (signal: Deno.Signal) => {
  if (stopping) Deno.exit(1);
  stopping = true;
  const started = performance.now();
  setTimeout(() => {
    log("error", "shutdown: hard limit reached, exiting", { signal });
    Deno.exit(1);
  }, SHUTDOWN_HARD_MS);
  log("info", "shutting down", { signal });
  // Open event streams end now (clients resume elsewhere with Last-Event-ID): nothing to wait for.
  closeEventStreams();
  let clean = true;
  const bounded = (work: Promise<unknown>, ms: number, what: string) =>
    within(work, ms, what).catch((err) => {
      clean = false;
      log("error", `shutdown: ${messageOf(err)}`, { signal });
    });
  await Promise.all([
    bounded(server.shutdown(), SHUTDOWN_SERVER_MS, "in-flight requests did not finish"),
    bounded(stopWork(), SHUTDOWN_SERVER_MS, "the background job did not finish"),
    bounded(
      (cluster?.stop(SHUTDOWN_SERVER_MS + SHUTDOWN_DATABASE_MS) ?? Promise.resolve(true)).then((ok) => {
        if (!ok) throw new Error("a worker did not stop cleanly");
      }),
      SHUTDOWN_SERVER_MS + SHUTDOWN_DATABASE_MS + 500,
      "the workers did not stop",
    ),
  ]);
  await bounded(close(), SHUTDOWN_DATABASE_MS, "the database did not close");
  log(clean ? "info" : "error", "stopped", {
    signal,
    clean,
    durationMs: Math.round(performance.now() - started),
  });
  Deno.exit(clean ? 0 : 1);
};
try {
  Deno.addSignalListener("SIGINT", () => shutdown("SIGINT"));
  if (Deno.build.os !== "windows") Deno.addSignalListener("SIGTERM", () => shutdown("SIGTERM"));
} catch (err) {
  // Platforms without signals (Deno Deploy) stop the isolate themselves.
  log("warn", `no signal handlers: ${messageOf(err)}`);
}
