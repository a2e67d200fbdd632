import assert from "node:assert/strict";
import { test } from "../helpers/mod.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

/** Starts `src/main.ts` with `env` and waits for it to end (killed after 20 s). */
async function start(env: Record<string, string>) {
  const started = performance.now();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "src/main.ts"],
    cwd: ROOT,
    env: { NO_COLOR: "1", SVC_NO_DEMO: "1", SVC_ADMIN_TOKEN: "startup-test", ...env },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
  const out = await child.output();
  clearTimeout(timer);
  const stderr = new TextDecoder().decode(out.stderr).trim();
  return { code: out.code, seconds: (performance.now() - started) / 1000, stderr };
}

function assertOneLineFailure(res: { code: number; seconds: number; stderr: string }, reason: RegExp) {
  assert.notEqual(res.code, 0, "the process must fail");
  assert.ok(res.seconds < 15, `took ${res.seconds.toFixed(1)} s`);
  const lines = res.stderr.split("\n").filter((l) => l.trim() !== "");
  assert.equal(lines.length, 1, `one line on stderr, got:\n${res.stderr}`);
  assert.match(lines[0]!, /^cannot start: /);
  assert.match(lines[0]!, reason);
}

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

test("startup with an unreachable database fails within seconds with a one-line reason", async () => {
  // Port 1 on loopback: nothing listens there, the connection is refused.
  const res = await start({ PORT: String(freePort()), DATABASE_URL: "postgres://postgres@127.0.0.1:1/svc" });
  assertOneLineFailure(res, /database 127\.0\.0\.1:1\/svc is not usable: .*ECONNREFUSED/);
});

test("startup with an unwritable data directory fails within seconds with a one-line reason", async () => {
  // A path below a regular file can be created by no one (not even root).
  const file = await Deno.makeTempFile();
  try {
    const res = await start({ PORT: String(freePort()), DATA_DIR: `${file}/data`, DATABASE_URL: "" });
    assertOneLineFailure(res, /data directory .* is not writable/);
  } finally {
    await Deno.remove(file);
  }
});

test("startup on a port in use fails within seconds with a one-line reason", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  const dir = await Deno.makeTempDir();
  try {
    const res = await start({ PORT: String(port), HOST: "127.0.0.1", DATA_DIR: dir, DATABASE_URL: "" });
    assertOneLineFailure(res, new RegExp(`port ${port} on 127\\.0\\.0\\.1 is already in use`));
    // Refused before the embedded database was created.
    assert.deepEqual([...Deno.readDirSync(dir)], []);
  } finally {
    listener.close();
    await Deno.remove(dir, { recursive: true });
  }
});
