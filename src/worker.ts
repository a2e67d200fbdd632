import type { Clock } from "@/clock.ts";
import type { Db } from "@/db/database.ts";
import { runPendingJobs } from "@/domain/jobs/run.ts";
import "@/domain/handoff/tool-results.ts";
import { loggableError } from "@/shared/log-safe.ts";

/** Background work of one instance: pending jobs (rows in the database, so a restart loses none). */
export function startBackgroundWork(deps: { db: Db; clock: Clock }, intervalMs = 1000): () => void {
  let running = false;
  const timer = setInterval(async () => {
    if (running) return;
    running = true;
    try {
      await runPendingJobs(deps);
    } catch (err) {
      console.error("background work failed:", loggableError(err));
    } finally {
      running = false;
    }
  }, intervalMs);
  return () => clearInterval(timer);
}
