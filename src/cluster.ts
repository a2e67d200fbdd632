import type { Config } from "@/config.ts";
import type { Engine } from "@/db/dialect.ts";
import type { Metrics, MetricsState } from "@/http/metrics.ts";

/**
 * Every core (issue 27.2): the first worker is the main isolate (it also runs migrations, the start-up
 * lines and the background work, once per cluster); workers 2..N are Web Workers of the same process
 * (`src/serve-worker.ts`), each with its own app and database pool, all listening on one port with
 * `reusePort` so the kernel spreads connections between them. Everything they share lives in the
 * database already (limits, claims, the test clock's offset), as it does between instances.
 */

/** The workers this start runs: 1 on PGlite (one process owns the data directory), else SVC_WORKERS or cores. */
export function workerCount(config: Config, engine: Engine): number {
  if (engine === "pglite") return 1;
  if (Deno.env.get("DENO_DEPLOYMENT_ID")) return 1;
  return config.workers ?? Math.max(1, navigator.hardwareConcurrency || 1);
}

/** What the main isolate sends a worker. */
export interface WorkerStart {
  type: "start";
  config: Config;
  /** The admin token in effect (configured or generated at start). */
  adminToken: string | undefined;
  /** The port the first worker bound (PORT=0 picks one there). */
  port: number;
  /** 1-based; the main isolate is worker 1. */
  index: number;
  count: number;
}

/** What a worker answers. */
export type WorkerReply =
  | { type: "listening" }
  | { type: "failed"; reason: string }
  | { type: "stopped"; clean: boolean };

export interface Cluster {
  /** Stops every extra worker: its server (in-flight requests finish, bounded) and its pool. */
  stop(ms: number): Promise<boolean>;
}

function replyOf(worker: Worker, type: WorkerReply["type"] | "any"): Promise<WorkerReply> {
  return new Promise((resolve) => {
    const onMessage = (e: MessageEvent<WorkerReply>) => {
      if (type !== "any" && e.data.type !== type && e.data.type !== "failed") return;
      worker.removeEventListener("message", onMessage);
      resolve(e.data);
    };
    worker.addEventListener("message", onMessage);
    worker.addEventListener("error", (e) => {
      e.preventDefault();
      resolve({ type: "failed", reason: e.message });
    });
  });
}

/**
 * Starts workers 2..count and resolves once each listens; rejects with the first failure (the caller
 * exits, which ends them).
 */
export async function startWorkers(
  start: Omit<WorkerStart, "type" | "index">,
  timeoutMs: number,
): Promise<Cluster> {
  const workers: Worker[] = [];
  for (let index = 2; index <= start.count; index++) {
    const worker = new Worker(new URL("./serve-worker.ts", import.meta.url), { type: "module" });
    workers.push(worker);
    const message: WorkerStart = { type: "start", ...start, index };
    worker.postMessage(message);
  }
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<WorkerReply>((resolve) => {
    timer = setTimeout(
      () => resolve({ type: "failed", reason: `no answer within ${timeoutMs} ms` }),
      timeoutMs,
    );
  });
  try {
    const replies = await Promise.all(workers.map((w) => Promise.race([replyOf(w, "any"), timeout])));
    const failed = replies.find((r) => r.type !== "listening");
    if (failed) {
      for (const w of workers) w.terminate();
      throw new Error(`a worker did not start: ${failed.type === "failed" ? failed.reason : failed.type}`);
    }
  } finally {
    clearTimeout(timer);
  }
  return {
    async stop(ms: number) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<WorkerReply>((resolve) => {
        timer = setTimeout(() => resolve({ type: "stopped", clean: false }), ms);
      });
      const replies = await Promise.all(workers.map((w) => {
        const reply = Promise.race([replyOf(w, "stopped"), late]);
        w.postMessage({ type: "stop" });
        return reply;
      }));
      clearTimeout(timer);
      for (const w of workers) w.terminate();
      return replies.every((r) => r.type === "stopped" && r.clean);
    },
  };
}

/**
 * `/metrics` with several workers: the worker that answers the scrape asks the others for their counters
 * over a BroadcastChannel and sums them, so a scrape sees the whole process whichever worker it reached.
 * Returns the function that collects the other workers' states (at most `waitMs`).
 */
export function shareMetrics(
  metrics: Metrics,
  workers: number,
  waitMs = 500,
): () => Promise<MetricsState[]> {
  const channel = new BroadcastChannel("svc-metrics");
  const waiting = new Map<string, (state: MetricsState) => void>();
  channel.onmessage = (e: MessageEvent<{ ask?: string; answer?: string; state?: MetricsState }>) => {
    if (e.data.ask) channel.postMessage({ answer: e.data.ask, state: metrics.state() });
    else if (e.data.answer && e.data.state) waiting.get(e.data.answer)?.(e.data.state);
  };
  return () =>
    new Promise((resolve) => {
      const id = crypto.randomUUID();
      const states: MetricsState[] = [];
      const done = () => {
        clearTimeout(timer);
        waiting.delete(id);
        resolve(states);
      };
      const timer = setTimeout(done, waitMs);
      waiting.set(id, (state) => {
        states.push(state);
        if (states.length >= workers - 1) done();
      });
      channel.postMessage({ ask: id });
    });
}
