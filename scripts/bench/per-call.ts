/**
 * Statements, transactions and the service's CPU per call of `GET /me` and the write workloads (issue
 * 12), in-process, one caller, on PostgreSQL (or, without TEST_DATABASE_URL, the embedded PGlite engine). The load bench's throughput swings 2x on a shared machine; what a call costs
 * the service does not, so this is the figure to compare before and after a change of the write path:
 *
 *   TEST_DATABASE_URL=postgres://... deno run -A scripts/bench/per-call.ts [--calls 300] [--cpu-prof]
 *   deno run -A scripts/bench/per-call.ts --calls 100          # PGlite, in memory
 *   [--only me,context]
 *
 * `--cpu-prof` also takes a V8 CPU profile of each row's measured round and prints where the time went
 * (scripts/bench/profile-split.ts); the profiler's own overhead inflates the CPU column in that mode.
 *
 * CPU is this process's user + system time (the service's handlers and its postgres.js client, not the
 * database server's), divided by the calls; API keys on an enterprise project, rate windows reset outside
 * the measure.
 */
import { parseArgs } from "node:util";
import process from "node:process";
import { createApp } from "@/app.ts";
import { countingDb } from "../../tests/helpers/counting-db.ts";
import { ADMIN_TOKEN, startTestEnv } from "../../tests/helpers/env.ts";
import { split, startProfile, topFunctions } from "./profile-split.ts";
import { callApp } from "./in-process.ts";

const args = parseArgs({
  args: Deno.args,
  options: {
    calls: { type: "string", default: "300" },
    "cpu-prof": { type: "boolean", default: false },
    only: { type: "string", default: "" },
  },
});
const CALLS = Number(args.values.calls);
const PROFILE = args.values["cpu-prof"];
const ONLY = args.values.only.split(",").map((o) => o.trim().toLowerCase()).filter(Boolean);
const KEYS = 20;

console.error(
  Deno.env.get("TEST_DATABASE_URL")
    ? "engine: PostgreSQL (TEST_DATABASE_URL)"
    : "engine: PGlite in memory (set TEST_DATABASE_URL for PostgreSQL; scripts/pg-temp.sh starts one)",
);
const e = await startTestEnv({ testClock: false });
const { db, counts } = countingDb(e.db);
const app = createApp({ db, engine: e.engine, clock: e.clock, config: e.config });

const api = (token: string, method: string, path: string, body?: unknown) =>
  callApp(app, token, method, path, body);

const org = await api(ADMIN_TOKEN, "POST", "/admin/orgs", { name: "Per call", plan: "enterprise" });
const project = await api(ADMIN_TOKEN, "POST", "/admin/projects", {
  orgId: org.id,
  name: "Per call",
  ticketPrefix: "PC",
});
const keys: { key: string; ticket: string }[] = [];
for (let i = 0; i < KEYS; i++) {
  const k = await api(ADMIN_TOKEN, "POST", `/admin/projects/${project.id}/api-keys`, {
    name: `k${i}`,
    agentName: `per-call-${i}`,
    role: "generator",
  });
  if (i === 0) {
    await api(k.key, "PATCH", "/api/brief", { scope: "Per call", goals: "Measure", stack: "Deno" });
  }
  const t = await api(k.key, "POST", "/api/ticket", {
    title: `Ticket ${i}`,
    expectedFiles: [`src/t${i}.ts`],
    doneDefinition: `Ticket ${i} works and is tested`,
    verificationCommand: "deno task test",
    riskClass: "local",
    assignToSelf: true,
  });
  keys.push({ key: k.key, ticket: t.id });
}

/** One call of a row: `i` is the call's number in its round, `turn` the key's own call number. */
type Step = (k: { key: string; ticket: string }, i: string, turn: number) => Promise<unknown>;
const cursors = new Map<string, string>();
/** GET /context?since=<cursor> with the cursor of this key's previous answer (an unchanged project). */
const delta = (compact: boolean): Step => async (k) => {
  const q = compact ? "compact=true&" : "";
  const data = await api(k.key, "GET", `/api/context?${q}since=${cursors.get(k.key + q) ?? ""}`);
  cursors.set(k.key + q, data.contextCursor);
  return data;
};
const allRows: [string, Step[]][] = [
  ["GET /me", [(k) => api(k.key, "GET", "/api/me")]],
  ["GET /context full", [(k) => api(k.key, "GET", "/api/context")]],
  ["GET /context compact", [(k) => api(k.key, "GET", "/api/context?compact=true")]],
  ["GET /context delta full, unchanged", [delta(false)]],
  ["GET /context delta compact, unchanged", [delta(true)]],
  ["POST /ledger", [
    (k, i) => api(k.key, "POST", "/api/ledger", { type: "PROGRESS", content: `entry ${i}` }),
  ]],
  ["POST /ledger with ticketId", [
    (k, i) =>
      api(k.key, "POST", "/api/ledger", { type: "PROGRESS", content: `entry ${i}`, ticketId: k.ticket }),
  ]],
  ["POST /claim", [(k, i) => api(k.key, "POST", "/api/claim", { files: [`src/f${i}.ts`] })]],
  ["POST /release", [(k, i) => api(k.key, "POST", "/api/release", { files: [`src/f${i}.ts`] })]],
  ["PATCH /ticket move", [
    (k, _i, turn) =>
      api(k.key, "PATCH", "/api/ticket", {
        ticketId: k.ticket,
        status: turn % 2 === 0 ? "claimed" : "backlog",
      }),
  ]],
];

const rows = allRows.filter(([name]) =>
  ONLY.length === 0 || ONLY.some((o) => name.toLowerCase().includes(o))
);
const splits: Array<[string, Array<[string, number]>, number, Array<[string, number]>]> = [];
console.log("| call | statements | transactions | CPU ms per call | wall ms per call |");
console.log("| --- | ---: | ---: | ---: | ---: |");
for (const [name, steps] of rows) {
  // A warm-up round of two calls per key (a move goes there and back), then the measured round.
  for (const [round, calls] of [[0, 2 * KEYS], [1, CALLS]] as const) {
    counts.reset();
    const stopProfile = PROFILE && round === 1 ? await startProfile() : null;
    let cpuMicros = 0;
    let wallMs = 0;
    for (let i = 0; i < calls; i++) {
      // The rate windows (one-minute bursts, per-action budgets) are reset outside the measure.
      if (i % 10 === 0) await e.db.deleteFrom("rate_counters").execute();
      for (const step of steps) {
        const cpu = process.cpuUsage();
        const started = performance.now();
        await step(keys[i % KEYS]!, `${round}-${i}`, Math.floor(i / KEYS));
        wallMs += performance.now() - started;
        const used = process.cpuUsage(cpu);
        cpuMicros += used.user + used.system;
      }
    }
    if (stopProfile) {
      const profile = await stopProfile();
      splits.push([name, split(profile), calls * steps.length, topFunctions(profile)]);
    }
    if (round === 0) continue;
    const n = calls * steps.length;
    console.log(
      `| ${name} | ${(counts.statements / n).toFixed(1)} | ${(counts.transactions / n).toFixed(1)} | ` +
        `${(cpuMicros / 1000 / n).toFixed(2)} | ${(wallMs / n).toFixed(2)} |`,
    );
  }
}
for (const [name, parts, n, top] of splits) {
  const busy = parts.filter(([part]) => part !== "idle / waiting").reduce((sum, [, ms]) => sum + ms, 0);
  console.log(`\n${name}: ${(busy / n).toFixed(3)} ms CPU per call in the profile`);
  for (const [part, ms] of parts.filter(([part]) => part !== "idle / waiting").slice(0, 14)) {
    console.log(`  ${part.padEnd(52)} ${(ms / n).toFixed(3)} ms  ${(100 * ms / busy).toFixed(0)}%`);
  }
  console.log("  top functions (self time per call):");
  for (const [fn, ms] of top) console.log(`    ${(ms / n).toFixed(3)} ms  ${fn.slice(0, 110)}`);
}
await e.close();
Deno.exit(0);
