// One process per embedded data directory (issue 22): a second `deno task start` on the same DATA_DIR used
// to run a second copy of the database beside the first, and writes one of them acknowledged were lost.
import assert from "node:assert/strict";
import { test } from "../helpers/mod.ts";
import { openDatabase } from "@/db/dialect.ts";
import { DataDirInUseError, LOCK_FILE, lockDataDir } from "@/db/data-dir-lock.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
/** The process tests start the service on the embedded database: once per CI run (not per engine) is enough. */
const ON_POSTGRES = Boolean(Deno.env.get("TEST_DATABASE_URL"));

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

interface Service {
  pid: number;
  port: number;
  child: Deno.ChildProcess;
  /** Exit code and stderr, once the process has ended (killed after 60 s in any case). */
  ended: Promise<{ code: number; stderr: string; seconds: number }>;
}

/** `src/main.ts` on the embedded database in `dataDir`, on a free loopback port. */
function spawnService(dataDir: string): Service {
  const port = freePort();
  const started = performance.now();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "src/main.ts"],
    cwd: ROOT,
    env: {
      NO_COLOR: "1",
      SVC_NO_DEMO: "1",
      SVC_ADMIN_TOKEN: "lock-test",
      LOG_FORMAT: "off",
      DATABASE_URL: "",
      HOST: "127.0.0.1",
      PORT: String(port),
      DATA_DIR: dataDir,
    },
    stdout: "null",
    stderr: "piped",
  }).spawn();
  // Bounded: a child never outlives the test by more than this (a first start on a loaded CI machine, with
  // both test runs and the chaos experiments beside it, has taken over 45 s).
  const timer = setTimeout(() => kill(child, "SIGKILL"), 240_000);
  const ended = child.output().then((out) => {
    clearTimeout(timer);
    const seconds = (performance.now() - started) / 1000;
    return { code: out.code, stderr: new TextDecoder().decode(out.stderr).trim(), seconds };
  });
  return { pid: child.pid, port, child, ended };
}

function kill(child: Deno.ChildProcess, signal: Deno.Signal): void {
  try {
    child.kill(signal);
  } catch { /* already gone */ }
}

/** Resolves once the service answers `/health`; throws with its stderr if it ends first. */
async function waitUp(svc: Service): Promise<void> {
  let exited = false;
  svc.ended.then(() => exited = true);
  const until = performance.now() + 150_000;
  while (performance.now() < until) {
    if (exited) throw new Error(`the service ended instead of starting: ${(await svc.ended).stderr}`);
    const res = await fetch(`http://127.0.0.1:${svc.port}/health`).catch(() => null);
    if (res) {
      await res.body?.cancel();
      if (res.ok) return;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error("the service did not answer /health within 150 s");
}

function assertRefused(
  res: { code: number; stderr: string; seconds: number },
  dataDir: string,
  holder: number,
): void {
  assert.notEqual(res.code, 0, "the second process must fail");
  assert.ok(res.seconds < 15, `exits at once, took ${res.seconds.toFixed(1)} s`);
  const lines = res.stderr.split("\n").filter((l) => l.trim() !== "");
  assert.equal(lines.length, 1, `one line on stderr, got:\n${res.stderr}`);
  assert.match(lines[0]!, /^cannot start: /);
  assert.ok(
    lines[0]!.includes(`data directory ${dataDir} is in use by process ${holder} `),
    `names the directory and the holder's pid ${holder}: ${lines[0]}`,
  );
}

async function withDataDir(fn: (dir: string, services: Service[]) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "lock-test-" });
  const services: Service[] = [];
  try {
    await fn(dir, services);
  } finally {
    for (const svc of services) kill(svc.child, "SIGKILL");
    await Promise.all(services.map((svc) => svc.ended));
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

test(
  "a second process on the same DATA_DIR exits at once naming the holder; neither a SIGKILLed holder's lock nor a cleanly stopped one blocks the next start",
  async () => {
    await withDataDir(async (dir, services) => {
      const first = spawnService(dir);
      services.push(first);
      await waitUp(first);
      const second = spawnService(dir);
      services.push(second);
      assertRefused(await second.ended, dir, first.pid);
      const health = await fetch(`http://127.0.0.1:${first.port}/health`);
      assert.equal(health.status, 200, "the first one keeps serving");
      await health.body?.cancel();

      kill(first.child, "SIGKILL");
      await first.ended;
      assert.equal((await Deno.readTextFile(`${dir}/${LOCK_FILE}`)).trim(), String(first.pid), "left behind");
      const third = spawnService(dir);
      services.push(third);
      await waitUp(third);
      assert.equal((await Deno.readTextFile(`${dir}/${LOCK_FILE}`)).trim(), String(third.pid));
      const fourth = spawnService(dir);
      services.push(fourth);
      assertRefused(await fourth.ended, dir, third.pid);

      kill(third.child, "SIGTERM");
      assert.equal((await third.ended).code, 0, "a clean stop");
      const fifth = spawnService(dir);
      services.push(fifth);
      await waitUp(fifth);
      kill(fifth.child, "SIGTERM");
      assert.equal((await fifth.ended).code, 0);
    });
  },
  { ignore: ON_POSTGRES },
);

test("openDatabase refuses a held data directory before PGlite touches it, and close() frees it", async () => {
  const dir = await Deno.makeTempDir({ prefix: "lock-test-" });
  try {
    const held = await lockDataDir(dir);
    await assert.rejects(openDatabase(undefined, dir), (err: unknown) => {
      assert.ok(err instanceof DataDirInUseError);
      assert.equal(err.holderPid, Deno.pid, "the holder's pid, read from the lock file");
      assert.match(err.message, new RegExp(`^data directory ${dir} is in use by process ${Deno.pid} `));
      return true;
    });
    assert.deepEqual([...Deno.readDirSync(dir)].map((e) => e.name), [LOCK_FILE], "no database files created");
    held.release();
    const opened = await openDatabase(undefined, dir);
    await assert.rejects(lockDataDir(dir), DataDirInUseError, "held while open");
    await opened.close();
    (await lockDataDir(dir)).release();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
