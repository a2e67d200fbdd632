import type { Hono } from "hono";
import { sql } from "kysely";
import { pendingMigrations } from "@/db/migrate.ts";
import type { Db } from "@/db/database.ts";
import { timingSafeEqual } from "@/domain/core/crypto.ts";
import type { AppEnv } from "@/http/env.ts";
import { errorBody } from "@/http/errors.ts";
import type { Gauge, Metrics, MetricsState } from "@/http/metrics.ts";

/** A readiness check gives up after this long: a database that does not answer is not ready. */
export const READY_TIMEOUT_MS = 2_000;
/** On `/health` when several workers serve the port: `index/count` of the one that answered. */
export const WORKER_HEADER = "Svc-Worker";
/** Pool size of the PostgreSQL client (src/db/dialect.ts); PGlite has one connection. */
const POOL_MAX = { postgres: 10, pglite: 1 } as const;

async function within<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      work,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

function reason(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Readiness: the database answers and every migration of this build has run. */
export async function readiness(db: Db) {
  const started = performance.now();
  try {
    await within(sql`select 1`.execute(db), READY_TIMEOUT_MS);
  } catch (err) {
    return { ready: false, database: { ok: false, error: reason(err) }, migrations: null };
  }
  const pingMs = Math.round((performance.now() - started) * 10) / 10;
  try {
    const pending = await within(pendingMigrations(db), READY_TIMEOUT_MS);
    return {
      ready: pending.length === 0,
      database: { ok: true, pingMs },
      migrations: { current: pending.length === 0, pending },
    };
  } catch (err) {
    return {
      ready: false,
      database: { ok: true, pingMs },
      migrations: { current: false, error: reason(err) },
    };
  }
}

/** Gauges read at scrape time: database reachability, pool size, and the job queue (all instances). */
async function scrapeGauges(db: Db, engine: keyof typeof POOL_MAX): Promise<Gauge[]> {
  const started = performance.now();
  let up = 0;
  let pending: number | null = null;
  let failed: number | null = null;
  try {
    const row = await within(
      sql<{ pending: number; failed: number }>`
        SELECT count(*) FILTER (WHERE done_at IS NULL AND attempts < 5)::int AS pending,
               count(*) FILTER (WHERE done_at IS NULL AND attempts >= 5)::int AS failed
        FROM pending_jobs`.execute(db),
      READY_TIMEOUT_MS,
    );
    up = 1;
    pending = row.rows[0]?.pending ?? 0;
    failed = row.rows[0]?.failed ?? 0;
  } catch {
    up = 0;
  }
  const gauges: Gauge[] = [
    { name: "svc_db_up", help: "1 when the database answered the scrape's query", samples: [{ value: up }] },
    {
      name: "svc_db_query_seconds",
      help: "Duration of the scrape's database query",
      samples: [{ value: (performance.now() - started) / 1000 }],
    },
    {
      name: "svc_db_pool_max_connections",
      help: "Connections the database pool may open",
      samples: [{ labels: { engine }, value: POOL_MAX[engine] }],
    },
  ];
  if (pending !== null && failed !== null) {
    gauges.push({
      name: "svc_background_jobs_pending",
      help: "Jobs waiting in the shared queue (every instance), by state",
      samples: [{ labels: { state: "queued" }, value: pending }, {
        labels: { state: "gave_up" },
        value: failed,
      }],
    });
  }
  return gauges;
}

/** `/health` (liveness), `/ready` (readiness) and `/metrics` (Prometheus text, admin token). */
export function registerOps(
  app: Hono<AppEnv>,
  metrics: Metrics,
  worker?: string,
  peerMetrics?: () => Promise<MetricsState[]>,
): void {
  app.get("/health", (c) => {
    // Several workers serve the port: a header (never the body the contract fixes) says which one answered.
    if (worker) c.header(WORKER_HEADER, worker);
    return c.json({ ok: true, version: c.get("deps").config.version });
  });
  app.get("/ready", async (c) => {
    const result = await readiness(c.get("deps").db);
    return c.json(result, result.ready ? 200 : 503);
  });
  app.get("/metrics", async (c) => {
    const { config, db, engine } = c.get("deps");
    const expected = config.adminToken;
    if (!expected) {
      return c.json(errorBody("NOT_FOUND", "Metrics need SVC_ADMIN_TOKEN, which is not set"), 404);
    }
    const supplied = /^Bearer\s+(.+)$/i.exec(c.req.header("authorization") ?? "")?.[1]?.trim() ?? "";
    if (!timingSafeEqual(supplied, expected)) {
      return c.json(errorBody("UNAUTHORIZED", "Missing or wrong admin token"), 401);
    }
    const whole = peerMetrics ? metrics.merged(await peerMetrics()) : metrics;
    const text = whole.render(await scrapeGauges(db, engine));
    return c.body(text, 200, { "Content-Type": "text/plain; version=0.0.4; charset=utf-8" });
  });
}
