/**
 * One extra worker of the cluster (src/cluster.ts): a Web Worker that opens its own database pool and
 * serves its own app on the shared port (`reusePort`). No migrations, no start-up lines and no background
 * work here: the main isolate does those once for the cluster.
 */
import { createApp } from "@/app.ts";
import { systemClock } from "@/clock.ts";
import { openDatabase } from "@/db/dialect.ts";
import { defaultLogFormat, logWriter } from "@/http/access-log.ts";
import { Metrics } from "@/http/metrics.ts";
import { shareMetrics, type WorkerReply, type WorkerStart } from "@/cluster.ts";

interface WorkerScope {
  postMessage(message: WorkerReply): void;
  onmessage: ((e: MessageEvent<WorkerStart | { type: "stop" }>) => void) | null;
}
const scope = self as unknown as WorkerScope;

let stop: (() => Promise<boolean>) | undefined;

async function start(message: WorkerStart): Promise<void> {
  const { config, adminToken, port, index, count } = message;
  const { db, engine, close } = await openDatabase(config.databaseUrl, config.dataDir);
  const metrics = new Metrics();
  const app = createApp(
    { db, engine, clock: systemClock(), config: { ...config, adminToken } },
    {
      metrics,
      log: logWriter(config.logFormat ?? defaultLogFormat()),
      worker: `${index}/${count}`,
      peerMetrics: shareMetrics(metrics, count),
    },
  );
  const server = Deno.serve({
    port,
    hostname: config.host,
    reusePort: true,
    onListen: () => scope.postMessage({ type: "listening" }),
  }, app.fetch);
  stop = async () => {
    const closed = await server.shutdown().then(() => true, () => false);
    const released = await close().then(() => true, () => false);
    return closed && released;
  };
}

scope.onmessage = (e) => {
  const message = e.data;
  if (message.type === "start") {
    start(message).catch((err) =>
      scope.postMessage({ type: "failed", reason: err instanceof Error ? err.message : String(err) })
    );
  } else if (message.type === "stop") {
    (stop ?? (() => Promise.resolve(true)))().then((clean) => scope.postMessage({ type: "stopped", clean }));
  }
};
