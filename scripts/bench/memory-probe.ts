/**
 * Where the embedded engine's memory goes (issue 27.5): opens PGlite on a data directory as src/main.ts
 * does, and prints the process's resident set next to PGlite's WebAssembly memory and V8's heap after each
 * phase (open, migrations, app built, N requests in-process).
 *
 *   deno run -A scripts/bench/memory-probe.ts [DATA_DIR] [requests]
 *
 * A new directory runs initdb first (a first start); run it twice on one directory for a restart.
 * `SVC_PGLITE_SHARED_BUFFERS` sets the embedded cache as it does for the service.
 */
import { openDatabase } from "@/db/dialect.ts";
import { migrateToLatest } from "@/db/migrate.ts";
import { sql } from "kysely";

const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(0);

function status(): { rss: number; hwm: number } {
  const s = Deno.readTextFileSync("/proc/self/status");
  const kb = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(s)?.[1] ?? NaN) * 1024;
  return { rss: kb("VmRSS"), hwm: kb("VmHWM") };
}

let wasm: () => number = () => 0;
function report(phase: string): void {
  const m = Deno.memoryUsage();
  const p = status();
  console.log(
    `${phase.padEnd(28)} rss ${mb(p.rss).padStart(4)} MB  hwm ${mb(p.hwm).padStart(4)}  wasm memory ${
      mb(wasm()).padStart(4)
    }  v8 heap used/total ${mb(m.heapUsed)}/${mb(m.heapTotal)}  external ${mb(m.external)}`,
  );
}

const dir = Deno.args[0] ?? await Deno.makeTempDir({ prefix: "memory-probe-" });
report("start");
const opened = await openDatabase(undefined, dir, {
  sharedBuffers: Deno.env.get("SVC_PGLITE_SHARED_BUFFERS") || undefined,
});
const mod = (opened.pglite as unknown as { mod: { HEAPU8: Uint8Array } }).mod;
wasm = () => mod.HEAPU8.byteLength;
report("pglite open");
// With `--v8-flags=--expose-gc`: what a full collection gives back (a first start's initdb leftovers).
const gc = (globalThis as { gc?: () => void }).gc;
if (gc) {
  gc();
  report("after gc");
}
for (const name of ["shared_buffers", "work_mem", "temp_buffers", "wal_buffers", "maintenance_work_mem"]) {
  const r = await sql.raw(`show ${name}`).execute(opened.db);
  console.log(`  ${name} = ${JSON.stringify(Object.values(r.rows[0] as object)[0])}`);
}
await migrateToLatest(opened.db);
report("migrated");
const { createApp } = await import("@/app.ts");
const { systemClock } = await import("@/clock.ts");
const { readConfig } = await import("@/config.ts");
const app = createApp({
  db: opened.db,
  engine: "pglite",
  clock: systemClock(),
  config: { ...readConfig({ SVC_ADMIN_TOKEN: "probe" }), adminToken: "probe" },
});
report("app built");
await app.fetch(new Request("http://x/openapi.json"));
report("openapi served");
// PROBE_SNAPSHOT=<file>: a V8 heap snapshot of the built app (what the JS heap holds, by constructor).
const snapshot = Deno.env.get("PROBE_SNAPSHOT");
if (snapshot) {
  (await import("node:v8")).default.writeHeapSnapshot(snapshot);
  report("snapshot written");
}
const n = Number(Deno.args[1] ?? 0);
for (let i = 0; i < n; i++) await (await app.fetch(new Request("http://x/health"))).text();
report(`${n} x /health`);
// PROBE_PAUSE=<ms>: time to read /proc/<pid>/smaps of this process (which mapping holds what).
const pause = Number(Deno.env.get("PROBE_PAUSE") ?? 0);
if (pause > 0) {
  console.log("pid", Deno.pid);
  await new Promise((r) => setTimeout(r, pause));
}
await opened.close();
report("closed");
