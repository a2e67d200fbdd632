import postgres from "postgres";
import { PGlite } from "@electric-sql/pglite";
import { createApp } from "@/app.ts";
import { LOOPBACK_PROXIES } from "@/shared/client-address.ts";
import { systemClock } from "@/clock.ts";
import { type Config, readConfig } from "@/config.ts";
import type { Db } from "@/db/database.ts";
import { type Engine, openDatabase } from "@/db/dialect.ts";
import { migrateToLatest } from "@/db/migrate.ts";
import { contractChecked } from "./contract-check.ts";
import type { Clock } from "@/clock.ts";

export const ADMIN_TOKEN = "test-admin-token";

const MIGRATIONS_DIR = new URL("../../src/db/migrations/", import.meta.url);

/** A key for the migration sources: a snapshot or template made from other migrations is not reused. */
async function migrationsKey(): Promise<string> {
  const sources: string[] = [];
  for await (const entry of Deno.readDir(MIGRATIONS_DIR)) {
    if (entry.isFile) {
      sources.push(entry.name + (await Deno.readTextFile(new URL(entry.name, MIGRATIONS_DIR))));
    }
  }
  sources.sort();
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(sources.join("\n")));
  return Array.from(new Uint8Array(digest).slice(0, 12), (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * A test PGlite starts with small shared buffers: the default 128 MB are zeroed at every start, which
 * was a quarter of the start's time, and a test database never fills 16 MB.
 */
const TEST_PGLITE_START = [...PGlite.defaultStartParams, "-c", "shared_buffers=16MB"];

/**
 * A dump of an in-memory PGlite with every migration applied, cached in the temp directory under a
 * hash of the migration sources, so each test file skips initdb and the migrations. It is made small,
 * because each start copies it several times: 1 MB WAL segments instead of 16, and no template
 * databases (PGlite serves the `postgres` database; nothing creates databases in a test).
 */
async function migratedSnapshot(): Promise<Blob> {
  const path = `${Deno.env.get("TMPDIR") ?? "/tmp"}/svc-test-pglite-${await migrationsKey()}-small.tar`;
  try {
    return new Blob([await Deno.readFile(path)]);
  } catch {
    const fresh = await openDatabase("memory://", "", { pglite: { initDbStartParams: ["--wal-segsize=1"] } });
    await migrateToLatest(fresh.db);
    const pglite = fresh.pglite;
    if (!pglite) throw new Error("Cannot snapshot: openDatabase did not expose PGlite");
    for (const template of ["template0", "template1"]) {
      await pglite.exec(`ALTER DATABASE ${template} IS_TEMPLATE false`);
      await pglite.exec(`DROP DATABASE ${template}`);
    }
    await pglite.exec("CHECKPOINT");
    const dump = await pglite.dumpDataDir("none");
    await fresh.close();
    const bytes = new Uint8Array(await dump.arrayBuffer());
    const temp = `${path}.${crypto.randomUUID()}`;
    await Deno.writeFile(temp, bytes);
    await Deno.rename(temp, path);
    return new Blob([bytes]);
  }
}

/**
 * On PostgreSQL, a migrated template database (one per migration key, made once under an advisory
 * lock): each test database is a copy of it, which is several times faster than migrating.
 */
async function migratedTemplate(baseUrl: string): Promise<string> {
  const name = `svc_test_template_${(await migrationsKey()).slice(0, 16)}`;
  const admin = postgres(baseUrl, { max: 1, onnotice: () => {} });
  try {
    await admin`SELECT pg_advisory_lock(727274)`;
    const [found] = await admin`SELECT 1 FROM pg_database WHERE datname = ${name}`;
    if (!found) {
      const building = `${name}_building`;
      await admin.unsafe(`DROP DATABASE IF EXISTS ${building} WITH (FORCE)`);
      await admin.unsafe(`CREATE DATABASE ${building}`);
      const url = new URL(baseUrl);
      url.pathname = `/${building}`;
      const opened = await openDatabase(url.toString(), "");
      await migrateToLatest(opened.db);
      await opened.close();
      await admin.unsafe(`ALTER DATABASE ${building} RENAME TO ${name}`);
    }
    await admin`SELECT pg_advisory_unlock(727274)`;
  } finally {
    await admin.end();
  }
  return name;
}

export interface TestEnv {
  engine: Engine;
  db: Db;
  clock: Clock;
  config: Config;
  /** In-process request against the whole app (no socket); answers are checked against the document. */
  fetch(path: string, init?: RequestInit): Promise<Response>;
  close(): Promise<void>;
}

/**
 * A fresh service on a fresh database: in-memory PGlite by default, or a new PostgreSQL database
 * created under `TEST_DATABASE_URL` (dropped on close). The test clock and proxy trust are on.
 */
export async function startTestEnv(overrides: Partial<Config> = {}): Promise<TestEnv> {
  const baseUrl = Deno.env.get("TEST_DATABASE_URL");
  let url = "memory://";
  let dropDatabase: (() => Promise<void>) | null = null;
  if (baseUrl) {
    const name = `svc_test_${crypto.randomUUID().replace(/-/g, "").slice(0, 16)}`;
    const template = await migratedTemplate(baseUrl);
    const admin = postgres(baseUrl, { max: 1, onnotice: () => {} });
    await admin.unsafe(`CREATE DATABASE ${name} TEMPLATE ${template}`);
    await admin.end();
    const parsed = new URL(baseUrl);
    parsed.pathname = `/${name}`;
    url = parsed.toString();
    dropDatabase = async () => {
      const again = postgres(baseUrl, { max: 1, onnotice: () => {} });
      await again.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
      await again.end();
    };
  }
  const opened = await openDatabase(
    url,
    "",
    baseUrl ? {} : { loadDataDir: await migratedSnapshot(), pglite: { startParams: TEST_PGLITE_START } },
  );
  await migrateToLatest(opened.db);
  const clock = systemClock();
  const config: Config = {
    ...readConfig({}),
    databaseUrl: url,
    adminToken: ADMIN_TOKEN,
    testClock: true,
    trustedProxies: LOOPBACK_PROXIES,
    publicUrl: "http://localhost:8787",
    ...overrides,
  };
  const app = createApp({ db: opened.db, engine: opened.engine, clock, config });
  return {
    engine: opened.engine,
    db: opened.db,
    clock,
    config,
    fetch: contractChecked((path: string, init?: RequestInit) =>
      Promise.resolve(app.fetch(new Request(`http://localhost:8787${path}`, init)))
    ),
    close: async () => {
      await opened.close();
      if (dropDatabase) await dropDatabase();
    },
  };
}
