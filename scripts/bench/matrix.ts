/**
 * `deno task bench:matrix`: the issue 27 table in one command. Runs `deno task bench` (scripts/bench/main.ts)
 * three times, one after the other: PostgreSQL with 1 worker, PostgreSQL with one worker per core, and the
 * embedded PGlite engine (always 1 worker), with the same options (anything after the task name is passed
 * on, e.g. `--only "me,context,ledger,claim,ticket" --agents 0 --keys 40 --connections 16 --duration 4`).
 * Each run writes its own table (bench/results/matrix-<config>.{json,md}); this script then prints and
 * writes bench/results/matrix.md: per workload, requests/s, the answering process's CPU per request and the
 * ratio to its floor, side by side for the three configurations, plus each run's load average and the
 * service's peak resident memory.
 */
import { ROOT } from "../chaos/lib.ts";
import type { Row } from "./report.ts";

interface Config {
  label: string;
  stem: string;
  args: string[];
}

interface Run {
  config: Config;
  meta: { loadAverage: string; workers: number; engine: string; totalSeconds: number };
  rows: Row[];
}

const cores = navigator.hardwareConcurrency;
const configs: Config[] = [
  {
    label: "PostgreSQL, 1 worker",
    stem: "matrix-postgres-1",
    args: ["--engine", "postgres", "--workers", "1"],
  },
  {
    label: `PostgreSQL, ${cores} workers (one per core)`,
    stem: `matrix-postgres-${cores}`,
    args: ["--engine", "postgres", "--workers", String(cores)],
  },
  { label: "PGlite, 1 worker", stem: "matrix-pglite-1", args: ["--engine", "pglite"] },
];

async function runOne(config: Config): Promise<Run | null> {
  const stem = `${ROOT}/bench/results/${config.stem}`;
  console.log(`== ${config.label}`);
  const status = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", `${ROOT}/scripts/bench/main.ts`, ...config.args, ...Deno.args, "--out", stem],
    cwd: ROOT,
    stdout: "inherit",
    stderr: "inherit",
  }).spawn().status;
  if (!status.success) console.log(`   (${config.label}: some rows failed, see above)`);
  try {
    const { meta, rows } = JSON.parse(await Deno.readTextFile(`${stem}.json`));
    return { config, meta, rows };
  } catch {
    return null;
  }
}

const fmt = (v: number | undefined, digits: number) =>
  v === undefined || Number.isNaN(v) ? "" : v.toFixed(digits);

/** One cell group of a row in a run: req/s, CPU ms per request, and the ratio to the row's floor. */
function cells(run: Run, name: string): string[] {
  const r = run.rows.find((row) => row.name === name);
  if (!r) return ["", "", ""];
  const ratio = r.ratio !== undefined ? `${r.ratio.toFixed(2)} of ${r.floor}` : "";
  return [String(r.rps), fmt(r.cpuMsPerRequest, 3), ratio];
}

function peakRss(run: Run): number {
  return Math.max(...run.rows.flatMap((r) => [r.rssBeforeMb ?? 0, r.rssAfterMb ?? 0]));
}

export function matrixTable(runs: Run[]): string {
  const names = [...new Set(runs.flatMap((run) => run.rows.map((r) => r.name)))];
  const head = ["workload", ...runs.flatMap((run) => [`${run.config.label}: req/s`, "CPU ms/req", "ratio"])];
  const out = [
    `### deno task bench:matrix, ${new Date().toISOString()}, ${cores} CPUs`,
    "",
    ...runs.map((run) =>
      `- ${run.config.label}: load average ${run.meta.loadAverage} at its end, ${run.meta.totalSeconds} s, ` +
      `peak RSS of the service ${peakRss(run).toFixed(0)} MB (${
        (peakRss(run) / Math.max(1, run.meta.workers)).toFixed(0)
      } MB per worker)`
    ),
    "",
    `| ${head.join(" | ")} |`,
    `| ${head.map((_, i) => (i === 0 ? "---" : "---:")).join(" | ")} |`,
  ];
  for (const name of names) out.push(`| ${[name, ...runs.flatMap((run) => cells(run, name))].join(" | ")} |`);
  return out.join("\n") + "\n";
}

if (import.meta.main) {
  const runs: Run[] = [];
  for (const config of configs) {
    const run = await runOne(config);
    if (run) runs.push(run);
  }
  const table = matrixTable(runs);
  console.log(`\n${table}`);
  await Deno.writeTextFile(`${ROOT}/bench/results/matrix.md`, table);
  console.log(`wrote bench/results/matrix.md (${runs.length} of ${configs.length} runs)`);
  Deno.exit(runs.length === configs.length ? 0 : 1);
}
