import { CompiledQuery, type Driver, Kysely, PGliteDialect } from "kysely";
import { PGlite, type PGliteOptions } from "@electric-sql/pglite";
import { PostgresJSDialect } from "kysely-postgres-js";
import postgres from "postgres";
import type { Database, Db } from "./database.ts";
import { type DataDirLock, lockDataDir } from "./data-dir-lock.ts";
import { AcquireWatchdog } from "./acquire-watchdog.ts";
import { initdbInWorker } from "./initdb.ts";
import { withPreparedStatements } from "./pglite-prepared.ts";

export type Engine = "pglite" | "postgres";

export interface OpenedDatabase {
  db: Db;
  engine: Engine;
  close(): Promise<void>;
  /** The embedded instance, when the engine is PGlite (tests snapshot it). */
  pglite?: PGlite;
}

/**
 * The embedded engine's shared buffers unless configured (`SVC_PGLITE_SHARED_BUFFERS`). PGlite starts
 * PostgreSQL with 128 MB, all of it zeroed at start inside its WebAssembly memory, which never shrinks:
 * 128 MB resident from the first second, over a third of the process (issue 27.5). A cache miss costs a read
 * of the data directory's file, which the operating system's page cache serves.
 */
export const EMBEDDED_SHARED_BUFFERS = "16MB";

/**
 * Settings of the embedded engine's PostgreSQL, after PGlite's own (`PGlite.defaultStartParams`). Memory a
 * WebAssembly instance has touched stays resident for its life, so every per-operation allowance is a
 * lasting cost: `maintenance_work_mem` (an index build, 64 MB by default) is capped at 16 MB.
 */
export function embeddedStartParams(sharedBuffers = EMBEDDED_SHARED_BUFFERS): string[] {
  return [
    ...PGlite.defaultStartParams,
    "-c",
    `shared_buffers=${sharedBuffers}`,
    "-c",
    "maintenance_work_mem=16MB",
  ];
}

/**
 * Opens the database named by `url`: a `postgres://` URL uses postgres.js, `memory://` an in-memory
 * PGlite, and `undefined` an embedded PGlite stored in `dataDir`, which this process then holds until
 * `close()` (another opener gets `DataDirInUseError`, see data-dir-lock.ts). `sharedBuffers` sets the
 * embedded engine's cache (`EMBEDDED_SHARED_BUFFERS` when omitted).
 */
export async function openDatabase(
  url: string | undefined,
  dataDir: string,
  options: {
    loadDataDir?: Blob;
    pglite?: Pick<PGliteOptions, "startParams" | "initDbStartParams">;
    sharedBuffers?: string | undefined;
  } = {},
): Promise<OpenedDatabase> {
  if (url && /^postgres(ql)?:\/\//.test(url)) {
    const client = postgres(url, {
      max: 10,
      onnotice: () => {},
      // A server that does not answer a connection attempt is given up after 5 s.
      connect_timeout: 5,
      // Reconnect attempts back off to at most 1 s apart (the default grows to 20 s), so the pool is
      // back within about a second of the server.
      backoff: (retries: number) => Math.min(0.05 * 2 ** retries, 1),
      // Keep timestamps as Date and int8/numeric as strings (the defaults), uniform with PGlite below.
      types: {
        // jsonb values arrive already serialized (`toJson`): send them as is. The default json
        // serializer would stringify them again and store a JSON string instead of the value.
        jsonText: {
          to: 3802,
          from: [114, 3802],
          serialize: (x: unknown) => typeof x === "string" ? x : JSON.stringify(x),
          parse: (x: string) => JSON.parse(x),
        },
      },
    });
    const db = new Kysely<Database>({ dialect: new PostgresJSDialectFixed({ postgres: client }) });
    return {
      db,
      engine: "postgres",
      close: async () => {
        await db.destroy();
      },
    };
  }
  let lock: DataDirLock | undefined;
  if (url !== "memory://") {
    await Deno.mkdir(dataDir, { recursive: true });
    // Before PGlite reads a file: a second process on the directory would fork the database.
    lock = await lockDataDir(dataDir);
  }
  let pglite: PGlite;
  try {
    pglite = url === "memory://"
      // Tests start from a dump of an already migrated database: much faster than initdb each time.
      ? new PGlite({
        startParams: embeddedStartParams(options.sharedBuffers),
        ...options.pglite,
        ...(options.loadDataDir ? { loadDataDir: options.loadDataDir } : {}),
      })
      : await openEmbedded(
        `${dataDir.replace(/\/+$/, "")}/pgdata`,
        embeddedStartParams(options.sharedBuffers),
      );
    await pglite.waitReady;
  } catch (err) {
    lock?.release();
    throw err;
  }
  const db = new Kysely<Database>({ dialect: new PGliteDialect({ pglite: withPreparedStatements(pglite) }) });
  return {
    db,
    engine: "pglite",
    pglite,
    close: async () => {
      try {
        await db.destroy();
        if (!pglite.closed) await pglite.close();
      } finally {
        lock?.release();
      }
    },
  };
}

/** The embedded database in `path`; a first start creates it in a worker first (src/db/initdb.ts). */
async function openEmbedded(path: string, startParams: string[]): Promise<PGlite> {
  await initdbInWorker(path, startParams);
  return new PGlite(path, { startParams });
}

/**
 * kysely-postgres-js 5.0 on Kysely 0.29: when ROLLBACK fails (the connection is gone), Kysely's
 * PostgresDriver calls a private discard method that the postgres.js connection lacks, and the
 * `TypeError` it throws replaces the connection error (a 500 instead of a 503). Roll back plainly:
 * the postgres.js pool replaces a closed connection by itself.
 */
class PostgresJSDialectFixed extends PostgresJSDialect {
  override createDriver(): Driver {
    const driver = super.createDriver();
    // While the server is down, postgres.js keeps a connection request waiting through its reconnect
    // attempts, so a request would hang for the whole outage. Give up on acquiring after a bound
    // (a connection error: 503 with Retry-After) and hand back a connection that arrives later.
    const acquire = driver.acquireConnection.bind(driver);
    const watchdog = new AcquireWatchdog();
    driver.acquireConnection = async (...args: Parameters<Driver["acquireConnection"]>) => {
      const pending = acquire(...args);
      try {
        return await watchdog.wait(pending);
      } catch (err) {
        pending.then((connection) => driver.releaseConnection(connection), () => {});
        throw err;
      }
    };
    const destroy = driver.destroy.bind(driver);
    driver.destroy = async () => {
      watchdog.stop();
      await destroy();
    };
    driver.rollbackTransaction = async (connection) => {
      await connection.executeQuery(CompiledQuery.raw("rollback"));
    };
    return driver;
  }
}
