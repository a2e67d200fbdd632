import assert from "node:assert/strict";
import { readConfig } from "@/config.ts";
import { workerCount } from "@/cluster.ts";
import { startupLines } from "@/startup-lines.ts";
import { Metrics } from "@/http/metrics.ts";
import { test } from "../helpers/mod.ts";
import { collect, emptyDatabase, freePort, waitForLine } from "../helpers/process.ts";

/** Issue 27.2: every core. The service runs SVC_WORKERS workers on one port; PGlite keeps one and says so. */

const ROOT = new URL("../../", import.meta.url).pathname;
const PG = Deno.env.get("TEST_DATABASE_URL") ?? "";
const NEEDS_PG = { ignore: PG === "", reason: "needs TEST_DATABASE_URL (PostgreSQL)" };

/** One `GET /health` on a fresh TCP connection (the kernel picks the worker per connection). */
async function healthOnNewConnection(port: number): Promise<{ worker: string | null; body: unknown }> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    await conn.write(
      new TextEncoder().encode("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"),
    );
    const text = await new Response(conn.readable).text();
    const [head = "", body = ""] = text.split("\r\n\r\n");
    const worker = /^svc-worker:\s*(\S+)/im.exec(head)?.[1] ?? null;
    return { worker, body: JSON.parse(body) };
  } catch (err) {
    conn.close();
    throw err;
  }
}

test("PERF2-1 the worker count: one per core by default on PostgreSQL, SVC_WORKERS when set, always 1 on PGlite", () => {
  const pg = readConfig({ DATABASE_URL: "postgres://db/svc" });
  assert.equal(workerCount(pg, "postgres"), Math.max(1, navigator.hardwareConcurrency));
  assert.equal(
    workerCount(readConfig({ DATABASE_URL: "postgres://db/svc", SVC_WORKERS: "1" }), "postgres"),
    1,
  );
  assert.equal(
    workerCount(readConfig({ DATABASE_URL: "postgres://db/svc", SVC_WORKERS: "3" }), "postgres"),
    3,
  );
  assert.equal(workerCount(readConfig({ SVC_WORKERS: "4" }), "pglite"), 1);
  assert.throws(() => readConfig({ SVC_WORKERS: "0" }), /SVC_WORKERS/);
  assert.throws(() => readConfig({ SVC_WORKERS: "two" }), /SVC_WORKERS/);
});

test("PERF2-1 a PGlite start says it keeps one worker, and that SVC_WORKERS is ignored there", () => {
  const lines = startupLines(readConfig({ SVC_WORKERS: "4" }), {
    listening: { hostname: "127.0.0.1", port: 8787 },
    engine: "pglite",
    adminToken: "svc_admin_x",
    demo: null,
    workers: 1,
  });
  assert.equal(lines[0], "listening on http://127.0.0.1:8787");
  assert.ok(
    lines.some((l) => /^1 worker: the embedded database \(PGlite\).*SVC_WORKERS=4 is ignored/.test(l)),
  );
  const pg = startupLines(readConfig({ DATABASE_URL: "postgres://db/svc" }), {
    listening: { hostname: "127.0.0.1", port: 8787 },
    engine: "postgres",
    adminToken: "t",
    demo: null,
    workers: 2,
  });
  assert.ok(
    pg.some((l) => /^2 workers share the port \(SVC_WORKERS, default one per core\)/.test(l)),
    pg.join("\n"),
  );
  const one = (config: Record<string, string>) =>
    startupLines(readConfig({ DATABASE_URL: "postgres://db/svc", ...config }), {
      listening: { hostname: "127.0.0.1", port: 8787 },
      engine: "postgres",
      adminToken: "t",
      demo: null,
      workers: 1,
    });
  assert.ok(one({ SVC_WORKERS: "1" }).includes("1 worker (SVC_WORKERS=1)"));
  assert.ok(
    one({}).includes("1 worker (one core; SVC_WORKERS=N runs N)"),
    "one core: not SVC_WORKERS's doing",
  );
});

test("PERF2-1 metrics of several workers sum: counters and histograms merged, the worker's own left as they were", () => {
  const a = new Metrics();
  const b = new Metrics();
  const labels = { method: "GET", route: "/api/me", status: "200" };
  a.requests.inc(labels, 2);
  b.requests.inc(labels, 3);
  b.requests.inc({ ...labels, status: "401" });
  a.duration.observe(labels, 0.002);
  b.duration.observe(labels, 0.3);
  const text = a.merged([b.state()]).render();
  assert.match(text, /svc_http_requests_total\{method="GET",route="\/api\/me",status="200"\} 5\n/);
  assert.match(text, /svc_http_requests_total\{method="GET",route="\/api\/me",status="401"\} 1\n/);
  assert.match(
    text,
    /svc_http_request_duration_seconds_count\{method="GET",route="\/api\/me",status="200"\} 2\n/,
  );
  assert.match(
    text,
    /svc_http_request_duration_seconds_bucket\{method="GET",route="\/api\/me",status="200",le="0.005"\} 1\n/,
  );
  assert.equal(a.requests.value(labels), 2, "merging leaves the worker's own counters alone");
});

test(
  "PERF2-1 on PostgreSQL with SVC_WORKERS=2 both workers serve the one port, and SIGINT stops them cleanly",
  async () => {
    const db = await emptyDatabase(PG, "svc_workers");
    const port = freePort();
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "--allow-net", "--allow-env", "--allow-read", "src/main.ts"],
      cwd: ROOT,
      env: {
        NO_COLOR: "1",
        PORT: String(port),
        DATABASE_URL: db.url,
        SVC_WORKERS: "2",
        SVC_ADMIN_TOKEN: "workers-test",
        LOG_FORMAT: "text",
      },
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const kill = setTimeout(() => child.kill("SIGKILL"), 60_000);
    const out: string[] = [];
    const err: string[] = [];
    const done = Promise.all([collect(child.stdout, out), collect(child.stderr, err)]);
    try {
      await waitForLine(out, /listening on http/);
      await waitForLine(out, /2 workers share the port/, 2_000);
      const seen = new Set<string>();
      let healthCalls = 0;
      for (let i = 0; i < 60 && seen.size < 2; i++) {
        healthCalls++;
        const r = await healthOnNewConnection(port);
        assert.deepEqual(r.body, { ok: true, version: "1.0.0" });
        if (r.worker) seen.add(r.worker);
      }
      assert.deepEqual([...seen].sort(), ["1/2", "2/2"], "both workers answered");
      // /metrics sums every worker's counters, whichever worker the scrape reaches.
      for (let i = 0; i < 4; i++) {
        const conn = await Deno.connect({ hostname: "127.0.0.1", port });
        await conn.write(new TextEncoder().encode(
          "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer workers-test\r\n" +
            "Connection: close\r\n\r\n",
        ));
        const text = await new Response(conn.readable).text();
        const line = /svc_http_requests_total\{method="GET",route="\/health",status="200"\} (\d+)/.exec(text);
        assert.ok(line, text.slice(0, 400));
        assert.equal(Number(line[1]), healthCalls, "every worker's /health calls, summed");
      }
      child.kill("SIGINT");
      const status = await child.status;
      await done;
      assert.equal(status.code, 0, [...out, ...err].join("\n"));
      assert.ok(out.some((l) => /INFO stopped .*clean=true/.test(l)), out.join("\n"));
    } finally {
      clearTimeout(kill);
      try {
        child.kill("SIGKILL");
      } catch { /* already exited */ }
      await db.drop();
    }
  },
  NEEDS_PG,
);
