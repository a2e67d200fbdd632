import { sql } from "kysely";
import { createApp } from "@/app.ts";
import { systemClock } from "@/clock.ts";
import { type Config, readConfig } from "@/config.ts";
import { openDatabase, type OpenedDatabase } from "@/db/dialect.ts";
import { migrateToLatest } from "@/db/migrate.ts";
import { ADMIN_TOKEN_FILE, ensureDemo, resolveAdminToken } from "@/bootstrap.ts";
import { startBackgroundWork } from "@/worker.ts";

/** A start that cannot reach its database gives up after this long. */
const STARTUP_DATABASE_MS = 10_000;
/** Graceful shutdown: in-flight requests get this long, the database pool this long after. */
const SHUTDOWN_SERVER_MS = 3_000;
const SHUTDOWN_DATABASE_MS = 2_000;

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
  if (config.port === 0) return;
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

const clock = systemClock();
let opened: OpenedDatabase | undefined;
let started: {
  adminToken: string | undefined;
  demo: Awaited<ReturnType<typeof ensureDemo>>;
};
try {
  opened = await openDatabase(config.databaseUrl, config.dataDir);
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
  const embedded = opened.engine === "pglite";
  const demo = embedded && !config.noDemo ? await ensureDemo(opened.db, clock) : null;
  started = { adminToken, demo };
} catch (err) {
  fatal(`${where(config)} is not usable: ${messageOf(err)}`);
}
const { db, engine, close } = opened!;
const { adminToken, demo } = started;
const app = createApp({ db, engine, clock, config: { ...config, adminToken } });

let server: Deno.HttpServer;
try {
  server = Deno.serve({
    port: config.port,
    hostname: config.host,
    onListen: ({ hostname, port }) => {
      console.log(`listening on http://${hostname}:${port} (public ${config.publicUrl}, ${engine})`);
      if (adminToken && !config.adminToken) {
        console.log(`admin token: ${adminToken} (kept in ${config.dataDir}/${ADMIN_TOKEN_FILE})`);
      }
      if (demo) {
        console.log(
          demo.password
            ? `demo project: Demo (DEMO), sign in as ${demo.email} / ${demo.password} (shown only now)`
            : `demo project: Demo (DEMO), sign in as ${demo.email} (password printed at first start)`,
        );
        console.log(`demo pairing code: ${demo.pairingCode} (expires ${demo.codeExpiresAt})`);
        console.log(
          `pair: curl -s -X POST ${config.publicUrl}/api/pair/connect -H 'Content-Type: application/json' ` +
            `-d '{"code":"${demo.pairingCode}","agentName":"my-agent"}'`,
        );
      }
    },
  }, app.fetch);
} catch (err) {
  await within(close(), SHUTDOWN_DATABASE_MS, "close timed out").catch(() => {});
  const reason = err instanceof Deno.errors.AddrInUse
    ? portInUse(config)
    : `cannot listen on ${config.host}:${config.port}: ${messageOf(err)}`;
  fatal(reason);
}
const stopWork = startBackgroundWork({ db, clock, testClock: config.testClock });

/**
 * Graceful shutdown that ends whatever the database does: stop background work, let in-flight
 * requests finish (bounded), close the pool (bounded), exit. A second signal exits at once.
 */
let stopping = false;
const shutdown = async () => {
  if (stopping) Deno.exit(1);
  stopping = true;
  let clean = true;
  stopWork();
  await within(server.shutdown(), SHUTDOWN_SERVER_MS, "in-flight requests did not finish").catch((err) => {
    clean = false;
    console.error(`shutdown: ${messageOf(err)}`);
  });
  await within(close(), SHUTDOWN_DATABASE_MS, "the database did not close").catch((err) => {
    clean = false;
    console.error(`shutdown: ${messageOf(err)}`);
  });
  Deno.exit(clean ? 0 : 1);
};
Deno.addSignalListener("SIGINT", shutdown);
if (Deno.build.os !== "windows") Deno.addSignalListener("SIGTERM", shutdown);
