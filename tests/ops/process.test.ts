import assert from "node:assert/strict";
import { test } from "../helpers/mod.ts";
import { collect, emptyDatabase, freePort, waitForLine } from "../helpers/process.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const PG = Deno.env.get("TEST_DATABASE_URL") ?? "";
/** These tests start the service on PostgreSQL: without TEST_DATABASE_URL they are reported as ignored. */
const NEEDS_PG = { ignore: PG === "", reason: "needs TEST_DATABASE_URL (PostgreSQL)" };

/**
 * A TCP relay in front of PostgreSQL that can `freeze`: it keeps every socket open and forwards nothing,
 * which is how a database that vanished behind a network looks (no reset, no answer).
 */
function freezableProxy(target: URL) {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  let frozen = false;
  const conns: Deno.Conn[] = [];
  const pipe = async (from: Deno.Conn, to: Deno.Conn) => {
    const buf = new Uint8Array(16 * 1024);
    try {
      while (true) {
        const n = await from.read(buf);
        if (n === null) break;
        if (frozen) continue;
        let off = 0;
        while (off < n) off += await to.write(buf.subarray(off, n));
      }
    } catch { /* closed */ }
    if (!frozen) {
      try {
        to.close();
      } catch { /* already closed */ }
    }
  };
  (async () => {
    try {
      for await (const client of listener) {
        if (frozen) {
          conns.push(client);
          continue;
        }
        const server = await Deno.connect({ hostname: target.hostname, port: Number(target.port || 5432) });
        conns.push(client, server);
        pipe(client, server);
        pipe(server, client);
      }
    } catch { /* listener closed */ }
  })();
  return {
    port: (listener.addr as Deno.NetAddr).port,
    freeze() {
      frozen = true;
    },
    close() {
      listener.close();
      for (const c of conns) {
        try {
          c.close();
        } catch { /* already closed */ }
      }
    },
  };
}

test(
  "Deno Deploy permissions: the service starts on PostgreSQL with only --allow-net --allow-env --allow-read, and SIGTERM with the database gone exits within 10 s and logs it",
  async () => {
    const db = await emptyDatabase(PG);
    const proxy = freezableProxy(new URL(PG));
    const url = new URL(db.url);
    url.host = `127.0.0.1:${proxy.port}`;
    const port = freePort();
    const child = new Deno.Command(Deno.execPath(), {
      // Exactly what Deno Deploy grants: no --allow-write, no --allow-run, no --allow-sys.
      args: ["run", "--allow-net", "--allow-env", "--allow-read", "src/main.ts"],
      cwd: ROOT,
      env: {
        NO_COLOR: "1",
        PORT: String(port),
        DATABASE_URL: url.toString(),
        SVC_ADMIN_TOKEN: "deploy-test",
        LOG_FORMAT: "json",
      },
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const kill = setTimeout(() => child.kill("SIGKILL"), 40_000);
    const out: string[] = [];
    const err: string[] = [];
    const done = Promise.all([collect(child.stdout, out), collect(child.stderr, err)]);
    try {
      await waitForLine(out, /listening on http/);
      const origin = `http://127.0.0.1:${port}`;
      const ready = await fetch(`${origin}/ready`);
      assert.equal(ready.status, 200, await ready.text());
      const org = await fetch(`${origin}/admin/orgs`, {
        method: "POST",
        headers: { Authorization: "Bearer deploy-test", "Content-Type": "application/json" },
        body: JSON.stringify({ name: "Deploy" }),
      });
      assert.equal(org.status, 201, await org.text());
      const line = JSON.parse(await waitForLine(out, /"route":"\/admin\/orgs"/));
      assert.equal(line.status, 201);
      assert.equal(err.filter((l) => /warning|deprecat/i.test(l)).length, 0, err.join("\n"));

      proxy.freeze(); // the database stops answering
      const started = performance.now();
      child.kill("SIGTERM");
      const status = await child.status;
      const seconds = (performance.now() - started) / 1000;
      await done;
      assert.ok(seconds < 10, `exited after ${seconds.toFixed(1)} s`);
      assert.ok(out.some((l) => /"msg":"shutting down".*"signal":"SIGTERM"/.test(l)), out.join("\n"));
      assert.ok(out.some((l) => /"msg":"stopped"/.test(l)), out.join("\n"));
      assert.notEqual(status.code, 0, "an unclean shutdown (database gone) exits non-zero");
    } finally {
      clearTimeout(kill);
      try {
        child.kill("SIGKILL");
      } catch { /* already exited */ }
      proxy.close();
      await db.drop();
    }
  },
  NEEDS_PG,
);

test(
  "SIGINT with the database up: in-flight work finishes, the pool closes, exit 0 with a clean 'stopped' line",
  async () => {
    const db = await emptyDatabase(PG);
    const port = freePort();
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "--allow-net", "--allow-env", "--allow-read", "src/main.ts"],
      cwd: ROOT,
      env: { NO_COLOR: "1", PORT: String(port), DATABASE_URL: db.url, LOG_FORMAT: "text" },
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const kill = setTimeout(() => child.kill("SIGKILL"), 40_000);
    const out: string[] = [];
    const err: string[] = [];
    const done = Promise.all([collect(child.stdout, out), collect(child.stderr, err)]);
    try {
      await waitForLine(out, /listening on http/);
      const health = await fetch(`http://127.0.0.1:${port}/health`);
      assert.deepEqual(await health.json(), { ok: true, version: "1.0.0" });
      await waitForLine(out, /INFO request .*route=\/health status=200/);
      const started = performance.now();
      child.kill("SIGINT");
      const status = await child.status;
      await done;
      assert.ok((performance.now() - started) / 1000 < 10);
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
