import type { Clock } from "@/clock.ts";
import type { Db } from "@/db/database.ts";
import { isDatabaseUnavailable } from "@/db/unavailable.ts";
import { runPendingJobs } from "@/domain/jobs/run.ts";
import { pruneTables } from "@/domain/maintenance/prune.ts";
import { syncTestClock } from "@/domain/maintenance/test-clock.ts";
import { JOB_HANDLERS } from "@/domain/jobs/handlers.ts";
import { advanceLedgerChains } from "@/domain/audit/chain.ts";
import { settleAllQueues } from "@/domain/claims/queue.ts";
import { foldCounts } from "@/domain/core/project-counts.ts";
import type { LogWriter } from "@/http/access-log.ts";
import type { Metrics } from "@/http/metrics.ts";
import { loggableError } from "@/shared/log-safe.ts";
import { deliverDueWebhooks } from "@/domain/webhooks/deliver.ts";

/** Pruning runs at most this often (service clock), per instance. */
export const PRUNE_EVERY_MS = 60_000;
/** The ledger's hash chain catches up at most this often (service clock), per instance. */
export const LEDGER_CHAIN_EVERY_MS = 2_000;

export interface BackgroundDeps {
  db: Db;
  clock: Clock;
  testClock?: boolean;
  metrics?: Metrics;
  log?: LogWriter;
  /** `SVC_WEBHOOK_ALLOW_LOOPBACK=1`: webhooks may go to http and loopback addresses. */
  webhookAllowLoopback?: boolean;
}

/** Stops the background work: no new round or job starts; resolves once the current job has finished. */
export type StopWork = () => Promise<void>;

/**
 * Background work of one instance: pending jobs (rows in the database, so a restart loses none), due
 * webhook deliveries (the outbox, likewise) and the pruning of tables that grow with traffic. With the test clock on, each run first reads the shared
 * clock offset, so an advance on any instance is seen here too.
 */
export function startBackgroundWork(deps: BackgroundDeps, intervalMs = 1000): StopWork {
  let current: Promise<void> | null = null;
  let stopping = false;
  let lastPrune: number | null = null;
  let lastChain: number | null = null;
  const log = deps.log ?? ((level, msg, fields) => {
    (level === "error" ? console.error : console.log)(fields?.error ? `${msg}: ${fields.error}` : msg);
  });
  const round = async () => {
    const started = performance.now();
    let outcome = "ok";
    try {
      if (deps.testClock) await syncTestClock(deps.db, deps.clock);
      const ran = await runPendingJobs({ ...deps, jobs: JOB_HANDLERS }, 20, () => stopping);
      deps.metrics?.jobsRun.inc({}, ran);
      // Webhook deliveries that are due (retries, and what no request kicked); resumes after a restart.
      await deliverDueWebhooks(
        {
          db: deps.db,
          clock: deps.clock,
          destinations: { allowLoopback: deps.webhookAllowLoopback ?? false },
        },
        100,
        () => stopping,
      );
      // The claim wait queue's due work (expired requests, grants after a claim expired) within 2 s.
      if (!stopping) await settleAllQueues(deps.db, deps.clock.now());
      // The deltas of the counts kept by trigger (migration 0028) folded, so that reads stay short.
      if (!stopping) await foldCounts(deps.db);
      const now = deps.clock.now().getTime();
      if (!stopping && (lastChain === null || now - lastChain >= LEDGER_CHAIN_EVERY_MS)) {
        lastChain = now;
        await advanceLedgerChains({ db: deps.db, clock: deps.clock, publicUrl: "" });
      }
      if (!stopping && (lastPrune === null || now - lastPrune >= PRUNE_EVERY_MS)) {
        lastPrune = now;
        await pruneTables(deps);
      }
    } catch (err) {
      // Database down: one line per round (the jobs stay queued and run once it is back).
      if (isDatabaseUnavailable(err)) {
        outcome = "db_unavailable";
        log("error", "background work paused: database unavailable", { error: errorText(err) });
      } else {
        outcome = "failed";
        log("error", "background work failed", { error: loggableError(err) });
      }
    } finally {
      deps.metrics?.jobRounds.inc({ outcome });
      deps.metrics?.jobRoundDuration.observe({}, (performance.now() - started) / 1000);
    }
  };
  const timer = setInterval(() => {
    if (current || stopping) return;
    current = round().finally(() => {
      current = null;
    });
  }, intervalMs);
  return async () => {
    stopping = true;
    clearInterval(timer);
    if (current) await current;
  };
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
