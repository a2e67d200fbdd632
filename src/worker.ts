import type { Clock } from "@/clock.ts";
import type { Db } from "@/db/database.ts";
import { isDatabaseUnavailable } from "@/db/unavailable.ts";
import { runPendingJobs } from "@/domain/jobs/run.ts";
import { pruneTables } from "@/domain/maintenance/prune.ts";
import { syncTestClock } from "@/domain/maintenance/test-clock.ts";
import { JOB_HANDLERS } from "@/domain/jobs/handlers.ts";
import { loggableError } from "@/shared/log-safe.ts";

/** Pruning runs at most this often (service clock), per instance. */
export const PRUNE_EVERY_MS = 60_000;

/**
 * Background work of one instance: pending jobs (rows in the database, so a restart loses none) and the
 * pruning of tables that grow with traffic. With the test clock on, each run first reads the shared
 * clock offset, so an advance on any instance is seen here too.
 */
export function startBackgroundWork(
  deps: { db: Db; clock: Clock; testClock?: boolean },
  intervalMs = 1000,
): () => void {
  let running = false;
  let lastPrune: number | null = null;
  const timer = setInterval(async () => {
    if (running) return;
    running = true;
    try {
      if (deps.testClock) await syncTestClock(deps.db, deps.clock);
      await runPendingJobs({ ...deps, jobs: JOB_HANDLERS });
      const now = deps.clock.now().getTime();
      if (lastPrune === null || now - lastPrune >= PRUNE_EVERY_MS) {
        lastPrune = now;
        await pruneTables(deps);
      }
    } catch (err) {
      // Database down: one line per round (the jobs stay queued and run once it is back).
      if (isDatabaseUnavailable(err)) {
        console.error(`background work paused: database unavailable (${errorText(err)})`);
      } else console.error("background work failed:", loggableError(err));
    } finally {
      running = false;
    }
  }, intervalMs);
  return () => clearInterval(timer);
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
