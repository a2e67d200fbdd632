import { runToolResultsJob, TOOL_RESULTS_JOB } from "@/domain/handoff/tool-results.ts";
import type { JobHandlers } from "./run.ts";

/** Every kind of pending job the service writes, with the handler that runs it. */
export const JOB_HANDLERS: JobHandlers = Object.freeze({
  [TOOL_RESULTS_JOB]: runToolResultsJob,
});
