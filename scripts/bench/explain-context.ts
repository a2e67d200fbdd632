/**
 * Where GET /context spends its database time on the large project (issue 12): a throwaway PostgreSQL
 * with `auto_explain`, the service, a small and a large project (scripts/bench/seed.ts), a few calls of
 * GET /context (full and compact) on each, then every statement those calls ran with its plan and time
 * (EXPLAIN ANALYZE), slowest first.
 *
 *   deno run -A scripts/bench/explain-context.ts [--calls 5] [--plans 6]
 */
import { parseArgs } from "node:util";
import postgres from "postgres";
import { openDatabase } from "@/db/dialect.ts";
import { admin, cleanup, request, startPostgres, startService } from "../chaos/lib.ts";
import { analyze, LARGE, seedLarge } from "./seed.ts";

const args = parseArgs({
  args: Deno.args,
  options: {
    calls: { type: "string", default: "5" },
    plans: { type: "string", default: "6" },
    hold: { type: "string", default: "0" },
  },
});
const CALLS = Number(args.values.calls);
const PLANS = Number(args.values.plans);

interface Logged {
  ms: number;
  text: string;
}

/** The auto_explain entries of the server log after `offset`: duration, query text and plan. */
function explained(log: string): Logged[] {
  const out: Logged[] = [];
  for (const block of log.split(/\n(?=\S)/)) {
    const m = /duration: ([\d.]+) ms\s+plan:/.exec(block);
    if (m) out.push({ ms: Number(m[1]), text: block.slice(block.indexOf("plan:")) });
  }
  return out;
}

async function main() {
  const pg = await startPostgres();
  const sql = postgres(pg.url, { max: 1, onnotice: () => {} });
  try {
    await sql.unsafe(`LOAD 'auto_explain'`);
    await sql.unsafe(`ALTER SYSTEM SET session_preload_libraries = 'auto_explain'`);
    await sql.unsafe(`ALTER SYSTEM SET auto_explain.log_min_duration = -1`);
    await sql.unsafe(`SELECT pg_reload_conf()`);
    const svc = await startService({ DATABASE_URL: pg.url }, { quiet: true });
    const org = await admin(svc.base, "POST", "/orgs", { name: "Explain", plan: "enterprise" });
    const keys: Record<string, string> = {};
    for (const name of ["small", "large"]) {
      const project = await admin(svc.base, "POST", "/projects", {
        orgId: org.id,
        name,
        ticketPrefix: name === "small" ? "SM" : "LG",
      });
      const key = await admin(svc.base, "POST", `/projects/${project.id}/api-keys`, {
        name: `${name}-key`,
        agentName: `${name}-agent`,
        role: "generator",
      });
      keys[name] = key.key;
      if (name === "large") {
        const opened = await openDatabase(pg.url, "");
        try {
          await seedLarge(opened.db, project.id, key.agentId, LARGE);
          await analyze(opened.db);
        } finally {
          await opened.close();
        }
      }
    }
    const hold = Number(args.values.hold);
    if (hold > 0) {
      // Leaves the seeded database up for psql (`psql URL`), then ends.
      console.log(`holding ${pg.url} for ${hold} s; small key ${keys.small}, large key ${keys.large}`);
      await new Promise((r) => setTimeout(r, hold * 1000));
      return;
    }
    // Warm the caches of both projects before logging.
    for (const name of ["small", "large"]) {
      for (const q of ["", "?compact=true"]) {
        await request(svc.base, "GET", `/api/context${q}`, { token: keys[name]! });
      }
    }
    await sql.unsafe(`ALTER SYSTEM SET auto_explain.log_min_duration = 0`);
    await sql.unsafe(`ALTER SYSTEM SET auto_explain.log_analyze = on`);
    await sql.unsafe(`ALTER SYSTEM SET auto_explain.log_buffers = on`);
    await sql.unsafe(`SELECT pg_reload_conf()`);
    await new Promise((r) => setTimeout(r, 500));
    const logFile = `${pg.dir}/log`;
    for (const name of ["small", "large"]) {
      for (const q of ["", "?compact=true"]) {
        const offset = (await Deno.stat(logFile)).size;
        const times: number[] = [];
        for (let i = 0; i < CALLS; i++) {
          const r = await request(svc.base, "GET", `/api/context${q}`, { token: keys[name]! });
          if (r.status !== 200) throw new Error(`${r.status} ${r.text.slice(0, 300)}`);
          times.push(r.ms);
        }
        await new Promise((r) => setTimeout(r, 300));
        const bytes = await Deno.readFile(logFile);
        const entries = explained(new TextDecoder().decode(bytes.subarray(offset)));
        const total = entries.reduce((s, e) => s + e.ms, 0) / CALLS;
        times.sort((a, b) => a - b);
        console.log(
          `\n######## ${name} ${q || "full"}: ${entries.length / CALLS} statements per call, ` +
            `${total.toFixed(2)} ms database time per call, HTTP median ${
              times[times.length >> 1]!.toFixed(1)
            } ms`,
        );
        const byText = new Map<string, { ms: number; n: number; text: string }>();
        for (const e of entries) {
          const key = e.text.split("\n").slice(0, 3).join("\n");
          const seen = byText.get(key) ?? { ms: 0, n: 0, text: e.text };
          seen.ms += e.ms;
          seen.n++;
          byText.set(key, seen);
        }
        const sorted = [...byText.values()].sort((a, b) => b.ms - a.ms);
        for (const s of sorted.slice(0, PLANS)) {
          console.log(`\n--- ${(s.ms / s.n).toFixed(3)} ms avg (${s.n}x)\n${s.text}`);
        }
      }
    }
  } finally {
    await sql.end({ timeout: 2 });
    await cleanup();
  }
}

if (import.meta.main) {
  try {
    await main();
  } catch (err) {
    console.error(err instanceof Error ? err.stack ?? err.message : err);
    await cleanup();
    Deno.exit(1);
  }
}
