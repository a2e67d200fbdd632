/**
 * `deno task chaos`: runs every `scripts/chaos/*.experiment.ts` (sorted by name), each as its own
 * subprocess (`deno run -A <file>`) with a hard time limit, streams its output, and ends with
 * `N passed, N failed` (one per experiment; exit code 0 = passed). Exits non-zero if any failed.
 *
 *   deno task chaos                      # every experiment
 *   deno task chaos db-restart sigkill   # only those whose name contains one of the words
 *   CHAOS_LIMIT_SECONDS=240 deno task chaos
 */
const DIR = new URL("./", import.meta.url).pathname;
const ROOT = new URL("../../", import.meta.url).pathname;
const LIMIT_SECONDS = Number(Deno.env.get("CHAOS_LIMIT_SECONDS") ?? 180);

const files: string[] = [];
for await (const entry of Deno.readDir(DIR)) {
  if (entry.isFile && entry.name.endsWith(".experiment.ts")) files.push(entry.name);
}
files.sort();
const filters = Deno.args;
const selected = filters.length > 0 ? files.filter((f) => filters.some((w) => f.includes(w))) : files;

let passed = 0;
let failed = 0;
const outcomes: string[] = [];
for (const file of selected) {
  const name = file.replace(/\.experiment\.ts$/, "");
  console.log(`\n=== chaos: ${name}`);
  const started = performance.now();
  // Own process group (setsid), so a timeout kills the experiment and every child it started.
  const child = new Deno.Command("setsid", {
    args: [Deno.execPath(), "run", "-A", `${DIR}${file}`],
    cwd: ROOT,
    stdout: "inherit",
    stderr: "inherit",
  }).spawn();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    console.error(`chaos: ${name} passed its limit of ${LIMIT_SECONDS} s; killing it`);
    killGroup(child.pid, "SIGTERM");
    setTimeout(() => killGroup(child.pid, "SIGKILL"), 5_000);
  }, LIMIT_SECONDS * 1000);
  const status = await child.status;
  clearTimeout(timer);
  killGroup(child.pid, "SIGKILL"); // anything the experiment left behind
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  const ok = status.success && !timedOut;
  if (ok) passed++;
  else failed++;
  outcomes.push(
    `${ok ? "ok    " : "FAILED"} ${name} (${seconds} s${timedOut ? ", timed out" : ""}, exit ${status.code})`,
  );
}

console.log(`\nchaos experiments:`);
for (const line of outcomes) console.log(`  ${line}`);
console.log(`${passed} passed, ${failed} failed`);
Deno.exit(failed > 0 ? 1 : 0);

function killGroup(pid: number, signal: Deno.Signal): void {
  try {
    Deno.kill(-pid, signal);
  } catch { /* the group is gone */ }
}
