/**
 * `deno run -A scripts/bench/webhooks.ts [--engine pglite|postgres] [--duration 3] [--writers 8]`: the webhook
 * row of the benchmark (issue 26). The service runs as its own process; writers append ledger entries
 * (`POST /api/ledger`, one `ledger.appended` event each) for `--duration` seconds, first with no endpoint (the
 * ledger write throughput the outbox trigger must not lower), then with one endpoint subscribed to `*`
 * pointing at a receiver on loopback in this process. Reports ledger writes/s in both phases, webhook
 * deliveries/s, and the lag from the event's `createdAt` to its arrival (p50, p99).
 */
import { parseArgs } from "node:util";
import { admin, cleanup, newProject, request, sleep, startPostgres, startService } from "../chaos/lib.ts";

const args = parseArgs({
  args: Deno.args,
  options: {
    engine: { type: "string", default: "pglite" },
    duration: { type: "string", default: "3" },
    writers: { type: "string", default: "8" },
  },
});
const DURATION_MS = Number(args.values.duration) * 1000;
const WRITERS = Number(args.values.writers);

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** Refused writes by status (reported: a limit would make the row meaningless). */
const statuses = new Map<number, number>();

/** Ledger writes by `WRITERS` agents for the duration; answers writes per second. */
async function writeFor(base: string, keys: string[]): Promise<number> {
  const until = performance.now() + DURATION_MS;
  let written = 0;
  await Promise.all(keys.map(async (token, w) => {
    for (let i = 0; performance.now() < until; i++) {
      const res = await request(base, "POST", "/api/ledger", {
        token,
        body: { type: "PROGRESS", content: `bench ${w}-${i}` },
      });
      if (res.status >= 200 && res.status < 300) written++;
      else statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
    }
  }));
  return written / (DURATION_MS / 1000);
}

async function main() {
  const env: Record<string, string> = { SVC_WEBHOOK_ALLOW_LOOPBACK: "1" };
  if (args.values.engine === "postgres") env.DATABASE_URL = (await startPostgres()).url;
  else env.DATABASE_URL = "memory://";
  const svc = await startService(env, { label: "svc" });
  const { projectId } = await newProject(svc.base, "WB");
  const keys: string[] = [];
  for (let i = 0; i < WRITERS; i++) {
    const key = await admin(svc.base, "POST", `/projects/${projectId}/api-keys`, {
      agentName: `writer-${i}`,
    });
    keys.push(key.key);
  }
  await writeFor(svc.base, keys.slice(0, 1)); // warm-up
  const before = await writeFor(svc.base, keys);

  const lags: number[] = [];
  let lastArrival = 0;
  const receiver = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const body = JSON.parse(await req.text());
    const now = Date.now();
    lags.push(now - Date.parse(body.data.createdAt));
    lastArrival = now;
    return new Response(null, { status: 204 });
  });
  await admin(svc.base, "POST", `/projects/${projectId}/webhooks`, {
    url: `http://127.0.0.1:${receiver.addr.port}/hook`,
    events: ["*"],
  });
  const started = Date.now();
  const after = await writeFor(svc.base, keys);
  const expected = Math.round(after * (DURATION_MS / 1000));
  for (let waited = 0; lags.length < expected && waited < 60_000; waited += 100) await sleep(100);
  const sorted = [...lags].sort((a, b) => a - b);
  const deliveredPerSecond = lags.length / Math.max(0.001, (lastArrival - started) / 1000);
  await receiver.shutdown();
  const row = {
    engine: args.values.engine,
    writers: WRITERS,
    durationSeconds: DURATION_MS / 1000,
    ledgerWritesPerSecondWithoutEndpoint: Math.round(before),
    ledgerWritesPerSecondWithEndpoint: Math.round(after),
    webhookDeliveriesPerSecond: Math.round(deliveredPerSecond),
    delivered: lags.length,
    lagP50Ms: percentile(sorted, 50),
    lagP99Ms: percentile(sorted, 99),
    refusedWrites: Object.fromEntries(statuses),
  };
  console.log(JSON.stringify(row));
  console.log(
    `| webhooks (${row.engine}) | ledger ${row.ledgerWritesPerSecondWithoutEndpoint}/s -> ` +
      `${row.ledgerWritesPerSecondWithEndpoint}/s with an endpoint | ${row.webhookDeliveriesPerSecond} deliveries/s | ` +
      `lag p50 ${row.lagP50Ms} ms, p99 ${row.lagP99Ms} ms |`,
  );
}

try {
  await main();
} finally {
  await cleanup();
}
