import assert from "node:assert/strict";
import { sql } from "kysely";
import { readConfig } from "@/config.ts";
import { EMBEDDED_SHARED_BUFFERS, embeddedStartParams, openDatabase } from "@/db/dialect.ts";
import { initdbInWorker } from "@/db/initdb.ts";
import { startupLines } from "@/startup-lines.ts";
import { SERVICE_V8_FLAGS } from "../../scripts/chaos/lib.ts";
import { test } from "../helpers/mod.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

/**
 * Issue 27.5: memory. The embedded engine runs with a small cache (PGlite's 128 MB of shared buffers were a
 * third of the process); the figures themselves come from `deno task bench`, never from a test.
 */

async function show(dir: string, sharedBuffers?: string): Promise<Record<string, string>> {
  const opened = await openDatabase(undefined, dir, { sharedBuffers });
  try {
    const out: Record<string, string> = {};
    for (const name of ["shared_buffers", "maintenance_work_mem"]) {
      const r = await sql<Record<string, string>>`${sql.raw(`show ${name}`)}`.execute(opened.db);
      out[name] = r.rows[0]![name]!;
    }
    return out;
  } finally {
    await opened.close();
  }
}

test("PERF2-5 the embedded database is created in a worker, starts with 16 MB of shared buffers, and SVC_PGLITE_SHARED_BUFFERS reaches it", async () => {
  const dir = await Deno.makeTempDir({ prefix: "svc-memory-" });
  try {
    assert.equal(EMBEDDED_SHARED_BUFFERS, "16MB");
    // A first start creates the database in a worker (its memory leaves with it); later starts find it.
    assert.equal(await initdbInWorker(`${dir}/pgdata`, embeddedStartParams()), true);
    await Deno.stat(`${dir}/pgdata/PG_VERSION`);
    assert.deepEqual(await show(dir), { shared_buffers: "16MB", maintenance_work_mem: "16MB" });
    assert.equal(await initdbInWorker(`${dir}/pgdata`, embeddedStartParams()), false);
    const configured = readConfig({ SVC_PGLITE_SHARED_BUFFERS: "24MB" }).pgliteSharedBuffers;
    assert.equal(configured, "24MB");
    assert.equal((await show(dir, configured)).shared_buffers, "24MB");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

test("PERF2-5 SVC_PGLITE_SHARED_BUFFERS must be a size; unset, the setting is the default", () => {
  assert.equal(readConfig({}).pgliteSharedBuffers, undefined);
  for (const bad of ["16", "lots", "0MB", "16 MB", "-1MB"]) {
    assert.throws(() => readConfig({ SVC_PGLITE_SHARED_BUFFERS: bad }), /SVC_PGLITE_SHARED_BUFFERS/, bad);
  }
});

test("PERF2-5 a PGlite start names the embedded database's cache and how to change it; PostgreSQL's does not", () => {
  const state = { listening: { hostname: "127.0.0.1", port: 8787 }, adminToken: "t", demo: null };
  const lines = startupLines(readConfig({ SVC_ADMIN_TOKEN: "t" }), { ...state, engine: "pglite" });
  assert.ok(
    lines.some((l) => /^embedded database cache: 16MB \(SVC_PGLITE_SHARED_BUFFERS/.test(l)),
    lines.join("\n"),
  );
  const set = startupLines(readConfig({ SVC_ADMIN_TOKEN: "t", SVC_PGLITE_SHARED_BUFFERS: "64MB" }), {
    ...state,
    engine: "pglite",
  });
  assert.ok(set.some((l) => l.startsWith("embedded database cache: 64MB")), set.join("\n"));
  const pg = startupLines(readConfig({ SVC_ADMIN_TOKEN: "t", DATABASE_URL: "postgres://db/svc" }), {
    ...state,
    engine: "postgres",
  });
  assert.equal(pg.some((l) => l.startsWith("embedded database cache")), false, pg.join("\n"));
});

test("PERF2-5 deno task start, the container and the bench start the service with the same V8 flags", async () => {
  const tasks = JSON.parse(await Deno.readTextFile(`${ROOT}deno.json`)).tasks as Record<string, string>;
  assert.match(SERVICE_V8_FLAGS, /^--max-semi-space-size=\d+,--max-old-space-size=\d+$/);
  assert.ok(tasks.start!.includes(` --v8-flags=${SERVICE_V8_FLAGS} `), tasks.start);
  const dockerfile = await Deno.readTextFile(`${ROOT}Dockerfile`);
  const cmd = dockerfile.split("\n").find((l) => l.startsWith("CMD ")) ?? "";
  assert.ok(cmd.includes(`"--v8-flags=${SERVICE_V8_FLAGS}"`), cmd);
});
