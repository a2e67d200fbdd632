import assert from "node:assert/strict";
import { readConfig } from "@/config.ts";
import { startupLines } from "@/startup-lines.ts";
import { test } from "../helpers/mod.ts";
import { emptyDatabase, freePort } from "../helpers/process.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const LISTENING = { hostname: "127.0.0.1", port: 8787 };
const DEMO = {
  orgId: "o",
  projectId: "p",
  email: "demo@example.com",
  password: "pw",
  pairingCode: "ABCD1234",
  codeExpiresAt: "2026-01-01T00:05:00.000Z",
};

test("start-up lines on PostgreSQL without SVC_ADMIN_TOKEN say the operator API and demo data are off, and how to turn them on", () => {
  const config = readConfig({ DATABASE_URL: "postgres://db/svc" });
  const lines = startupLines(config, {
    listening: LISTENING,
    engine: "postgres",
    adminToken: undefined,
    demo: null,
  });
  assert.equal(lines[0], "listening on http://127.0.0.1:8787");
  assert.ok(lines.some((l) => /operator API is off.*SVC_ADMIN_TOKEN=/.test(l)), lines.join("\n"));
  assert.ok(lines.some((l) => /demo data is off on PostgreSQL.*SVC_DEMO=1/.test(l)), lines.join("\n"));
  assert.ok(lines.length > 1, "more than only 'listening'");
});

test("start-up lines with a token and SVC_DEMO=1 on PostgreSQL show the demo sign-in and code, nothing off", () => {
  const config = readConfig({ DATABASE_URL: "postgres://db/svc", SVC_ADMIN_TOKEN: "t", SVC_DEMO: "1" });
  const lines = startupLines(config, {
    listening: LISTENING,
    engine: "postgres",
    adminToken: "t",
    demo: DEMO,
  });
  assert.ok(lines.some((l) => l.startsWith("demo pairing code: ABCD1234")), lines.join("\n"));
  assert.equal(lines.some((l) => / is off/.test(l)), false, lines.join("\n"));
  assert.equal(lines.some((l) => l.startsWith("admin token:")), false, "a configured token is never printed");
  const full = startupLines(config, {
    listening: LISTENING,
    engine: "postgres",
    adminToken: "t",
    demo: null,
  });
  assert.ok(full.some((l) => /not created.*already has projects/.test(l)), full.join("\n"));
});

test("start-up lines on the embedded database print the generated admin token and the demo", () => {
  const config = readConfig({});
  const lines = startupLines(config, {
    listening: LISTENING,
    engine: "pglite",
    adminToken: "svc_admin_x",
    demo: DEMO,
  });
  assert.ok(lines.some((l) => l.startsWith("admin token: svc_admin_x")));
  assert.ok(lines.some((l) => l.startsWith("demo project: Demo (DEMO), sign in as demo@example.com / pw")));
  assert.equal(lines.some((l) => / is off/.test(l)), false);
});

/** Starts `src/main.ts`, waits for `until` in its log (30 s at most), runs `whileUp`, stops it: its log. */
async function run(env: Record<string, string>, until: RegExp, whileUp: (origin: string) => Promise<void>) {
  const port = freePort();
  const origin = `http://127.0.0.1:${port}`;
  const passthrough = Object.fromEntries(
    ["PATH", "HOME", "DENO_DIR", "XDG_CACHE_HOME"].flatMap((k) =>
      Deno.env.get(k) ? [[k, Deno.env.get(k)!]] : []
    ),
  );
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "src/main.ts"],
    cwd: ROOT,
    clearEnv: true,
    env: { ...passthrough, NO_COLOR: "1", LOG_FORMAT: "text", PORT: String(port), ...env },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const chunks: string[] = [];
  const collect = async (s: ReadableStream<Uint8Array>) => {
    for await (const c of s.pipeThrough(new TextDecoderStream())) chunks.push(c);
  };
  const done = Promise.all([collect(child.stdout), collect(child.stderr)]);
  const killer = setTimeout(() => child.kill("SIGKILL"), 60_000);
  try {
    const deadline = Date.now() + 30_000;
    while (!until.test(chunks.join(""))) {
      if (Date.now() > deadline) throw new Error(`the service did not log ${until}:\n${chunks.join("")}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    await new Promise((r) => setTimeout(r, 200)); // the rest of the start-up lines
    await whileUp(origin);
  } finally {
    child.kill("SIGTERM");
    await child.status;
    clearTimeout(killer);
    await done;
  }
  return chunks.join("");
}

/** The first starts on PostgreSQL run only with TEST_DATABASE_URL; otherwise they are reported as ignored. */
const baseUrl = Deno.env.get("TEST_DATABASE_URL") ?? "";
const NEEDS_PG = { ignore: baseUrl === "", reason: "needs TEST_DATABASE_URL (PostgreSQL)" };

test(
  "a first start on PostgreSQL says what is off and how to turn it on; the CLI says the same",
  async () => {
    const db = await emptyDatabase(baseUrl, "svc_first");
    try {
      let cli = "";
      let admin: { status: number; body: { error: { message: string } } } | undefined;
      const log = await run({ DATABASE_URL: db.url }, /demo data is off/, async (origin) => {
        const res = await fetch(`${origin}/admin/orgs`, { headers: { Authorization: "Bearer x" } });
        admin = { status: res.status, body: await res.json() };
        const out = await new Deno.Command(Deno.execPath(), {
          args: ["run", "--allow-net", "--allow-env", "--allow-read", "scripts/cli.ts", "org", "list"],
          cwd: ROOT,
          env: { NO_COLOR: "1", SVC_URL: origin, SVC_ADMIN_TOKEN: "x" },
          stdout: "piped",
          stderr: "piped",
        }).output();
        assert.equal(out.code, 1);
        cli = new TextDecoder().decode(out.stdout);
      });
      assert.match(log, /listening on http:\/\/127\.0\.0\.1:\d+/);
      assert.match(log, /operator API is off .*restart with SVC_ADMIN_TOKEN=/);
      assert.match(log, /demo data is off on PostgreSQL: start once with SVC_DEMO=1/);
      assert.equal(admin?.status, 404);
      assert.match(admin!.body.error.message, /operator API is off.*SVC_ADMIN_TOKEN/);
      assert.match(cli, /operator API of the server at http:\/\/127\.0\.0\.1:\d+ is off/);
      assert.match(cli, /turn it on: restart the server with SVC_ADMIN_TOKEN=/);
    } finally {
      await db.drop();
    }
  },
  NEEDS_PG,
);

test(
  "a first start on PostgreSQL with SVC_DEMO=1 and a token creates the demo and prints its sign-in and code",
  async () => {
    const db = await emptyDatabase(baseUrl, "svc_first");
    try {
      const log = await run(
        { DATABASE_URL: db.url, SVC_DEMO: "1", SVC_ADMIN_TOKEN: "first-start-token" },
        /demo pairing code: \S+/,
        async (origin) => {
          const res = await fetch(`${origin}/admin/projects`, {
            headers: { Authorization: "Bearer first-start-token" },
          });
          assert.equal(res.status, 200);
          assert.deepEqual((await res.json()).data.map((p: { name: string }) => p.name), ["Demo"]);
        },
      );
      assert.match(log, /demo project: Demo \(DEMO\), sign in as demo@example\.com \/ \S+/);
      assert.doesNotMatch(log, / is off/);
      assert.doesNotMatch(log, /first-start-token/, "a configured admin token is never printed");
    } finally {
      await db.drop();
    }
  },
  NEEDS_PG,
);
