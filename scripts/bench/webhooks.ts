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
import type { Row } from "./report.ts";

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** Refused writes by status (reported: a limit would make the row meaningless). */
const statuses = new Map<number, number>();

/** Ledger writes by one agent per key for the duration; answers writes per second. */
async function writeFor(base: string, keys: string[], durationMs: number): Promise<number> {
  const until = performance.now() + durationMs;
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
  return written / (durationMs / 1000);
}

/**
 * The webhook row against a running service started with `SVC_WEBHOOK_ALLOW_LOOPBACK=1`: ledger writes/s
 * without, then with, an endpoint subscribed to `*` on a loopback receiver in this process; the row's
 * req/s are deliveries/s and its percentiles the lag from the event's `createdAt` to its arrival.
 */
export async function webhookRow(base: string, writers: number, durationMs: number): Promise<Row> {
  const letters = Array.from({ length: 4 }, () => String.fromCharCode(65 + Math.floor(Math.random() * 26)));
  const { projectId } = await newProject(base, `WB${letters.join("")}`);
  const keys: string[] = [];
  for (let i = 0; i < writers; i++) {
    const key = await admin(base, "POST", `/projects/${projectId}/api-keys`, { agentName: `writer-${i}` });
    keys.push(key.key);
  }
  await writeFor(base, keys.slice(0, 1), durationMs); // warm-up
  const before = await writeFor(base, keys, durationMs);
  const lags: number[] = [];
  let lastArrival = 0;
  const receiver = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const body = JSON.parse(await req.text());
    const now = Date.now();
    lags.push(now - Date.parse(body.data.createdAt));
    lastArrival = now;
    return new Response(null, { status: 204 });
  });
  try {
    await admin(base, "POST", `/projects/${projectId}/webhooks`, {
      url: `http://127.0.0.1:${receiver.addr.port}/hook`,
      events: ["*"],
    });
    const started = Date.now();
    const after = await writeFor(base, keys, durationMs);
    const expected = Math.round(after * (durationMs / 1000));
    for (let waited = 0; lags.length < expected && waited < 60_000; waited += 100) await sleep(100);
    const sorted = [...lags].sort((a, b) => a - b);
    const seconds = Math.max(0.001, (lastArrival - started) / 1000);
    const lost = Math.max(0, expected - lags.length);
    return {
      requests: lags.length,
      ok: lags.length,
      seconds,
      rps: Math.round((lags.length / seconds) * 10) / 10,
      p50: percentile(sorted, 50),
      p95: percentile(sorted, 95),
      p99: percentile(sorted, 99),
      max: sorted.at(-1) ?? NaN,
      errors: {
        ...Object.fromEntries([...statuses].map(([k, v]) => [`status ${k}`, v])),
        ...(lost ? { "not delivered": lost } : {}),
      },
      name: `webhooks: ${writers} ledger writers, one endpoint on loopback`,
      group: "write",
      connections: writers,
      note: `req/s = deliveries/s; p50/p95/p99 = lag from event to delivery; ledger writes ${
        Math.round(before)
      }/s without an endpoint, ${Math.round(after)}/s with one (${(after / before).toFixed(2)})`,
    };
  } finally {
    await receiver.shutdown();
  }
}

async function main() {
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
  const env: Record<string, string> = { SVC_WEBHOOK_ALLOW_LOOPBACK: "1" };
  if (args.values.engine === "postgres") env.DATABASE_URL = (await startPostgres()).url;
  else env.DATABASE_URL = "memory://";
  const svc = await startService(env, { label: "svc" });
  const row = await webhookRow(svc.base, WRITERS, DURATION_MS);
  console.log(JSON.stringify(row));
  console.log(`| ${row.name} (${args.values.engine}) | ${row.rps} deliveries/s | ${row.note} |`);
}

if (import.meta.main) {
  try {
    await main();
  } finally {
    await cleanup();
  }
}
