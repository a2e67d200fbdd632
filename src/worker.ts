import type { Clock } from "@/clock.ts";
import type { Db } from "@/db/database.ts";
import { isDatabaseUnavailable } from "@/db/unavailable.ts";
import { runPendingJobs } from "@/domain/jobs/run.ts";
import "@/domain/handoff/tool-results.ts";

/** Background work of one instance: pending jobs (rows in the database, so a restart loses none). */
export function startBackgroundWork(deps: { db: Db; clock: Clock }, intervalMs = 1000): () => void {
  let running = false;
  const timer = setInterval(async () => {
    if (running) return;
    running = true;
    try {
      await runPendingJobs(deps);
    } catch (err) {
      // Database down: one line per round (the jobs stay queued and run once it is back).
      if (isDatabaseUnavailable(err)) {
        console.error(`background work paused: database unavailable (${errorText(err)})`);
      } else console.error("background work failed:", err);
    } finally {
      running = false;
    }
  }, intervalMs);
  return () => clearInterval(timer);
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
