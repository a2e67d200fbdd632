import type { Clock } from "@/clock.ts";
import type { Db, Trx } from "@/db/database.ts";
import { isDatabaseUnavailable } from "@/db/unavailable.ts";

/**
 * A job handler: runs one pending job's payload inside the transaction that marks it done, so its
 * writes and the completion commit together.
 */
export type JobHandler = (trx: Trx, clock: Clock, payload: Record<string, unknown>) => Promise<void>;

/** Job kind to handler; the composition root passes the table (`JOB_HANDLERS` in ./handlers.ts). */
export type JobHandlers = Readonly<Record<string, JobHandler>>;
export const MAX_JOB_ATTEMPTS = 5;
const MAX_ATTEMPTS = MAX_JOB_ATTEMPTS;

/**
 * Runs open jobs oldest first. Each job is claimed with `FOR UPDATE SKIP LOCKED` inside its own
 * transaction, so several instances share the queue and a crash leaves the job for the next run.
 * A failing job rolls back and is retried, up to five attempts. `stopping` is read before each job: a
 * shutdown lets the current job finish and starts no other.
 */
export async function runPendingJobs(
  deps: { db: Db; clock: Clock; jobs: JobHandlers },
  max = 20,
  stopping: () => boolean = () => false,
): Promise<number> {
  let done = 0;
  for (let i = 0; i < max && !stopping(); i++) {
    let failedJob: { id: string; error: string } | null = null;
    let current: string | null = null;
    const ran = await deps.db.transaction().execute(async (trx) => {
      const job = await trx.selectFrom("pending_jobs").selectAll().where("done_at", "is", null)
        .where("attempts", "<", MAX_ATTEMPTS).orderBy("created_at").limit(1).forUpdate().skipLocked()
        .executeTakeFirst();
      if (!job) return false;
      current = job.id;
      const handler = deps.jobs[job.kind];
      if (!handler) {
        failedJob = { id: job.id, error: `no handler for job kind "${job.kind}"` };
        return true;
      }
      await handler(trx, deps.clock, job.payload);
      await trx.updateTable("pending_jobs").set({ done_at: deps.clock.now(), attempts: job.attempts + 1 })
        .where("id", "=", job.id).execute();
      return true;
    }).catch((err) => {
      // The handler failed and its transaction rolled back: count the attempt outside it. A lost
      // database connection is not the job's fault: leave its attempts alone, it runs again later.
      if (current === null || isDatabaseUnavailable(err)) throw err;
      failedJob = { id: current, error: err instanceof Error ? err.message : String(err) };
      return true;
    });
    const failed = failedJob as { id: string; error: string } | null;
    if (failed) {
      await deps.db.updateTable("pending_jobs")
        .set((eb) => ({ attempts: eb("attempts", "+", 1), last_error: failed.error }))
        .where("id", "=", failed.id).execute();
    }
    if (!ran) break;
    done++;
  }
  return done;
}
