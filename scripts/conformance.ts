/**
 * `deno task conformance`: the official MCP conformance suite (`@modelcontextprotocol/conformance`, pinned
 * below) against the tool server at `/mcp`.
 *
 * Starts the whole service (the same `createApp` as `src/main.ts`) on a free loopback port over an
 * in-memory embedded database (PGlite), creates an organization, a project and a member through the
 * operator API, and has the service's own issuer sign a `write` access token for them. The runner sends
 * no `Authorization` header, so the listener adds that bearer to `/mcp` requests that carry none, the way
 * a proxy in front of the service would; `Host` and `Origin` reach the service as the runner sent them, so
 * DNS-rebinding protection is tested for real. Then runs each scenario that applies to a service with its
 * own tools, prints one line per scenario and `N passed, N failed`, and exits 1 when any failed.
 *
 *   deno task conformance                          # the default scenarios
 *   deno task conformance ping tools-list          # only these
 *   CONFORMANCE_VERBOSE=1 deno task conformance    # the runner's own output too
 *
 * The runner runs under Deno: under Node 20 (`npx`) it stops at start-up (it calls `fs.globSync`, Node 22+).
 * See ../shared/notes/mcp-tools.md for which scenarios apply and why.
 */
import { createApp } from "@/app.ts";
import { systemClock } from "@/clock.ts";
import { readConfig } from "@/config.ts";
import { openDatabase } from "@/db/dialect.ts";
import { migrateToLatest } from "@/db/migrate.ts";
import { issueAccessToken } from "@/domain/oauth/access-token.ts";

export const CONFORMANCE_PACKAGE = "npm:@modelcontextprotocol/conformance@0.1.16";

/**
 * The server scenarios that fit a service whose tools are its own (no `test_*` tools, prompts,
 * resources, logging or completions). `server-sse-multiple-streams` is left out: it applies to servers
 * that issue `Mcp-Session-Id` and ends with a warning and no check on a stateless one.
 */
export const SCENARIOS = ["server-initialize", "ping", "tools-list", "dns-rebinding-protection"];

/** Longest a single scenario may take before it counts as failed. */
const SCENARIO_TIMEOUT_MS = 90_000;
const ADMIN_TOKEN = `conformance-${crypto.randomUUID()}`;

export interface Running {
  url: string;
  /** The bearer added to `/mcp` requests that carry none. */
  token: string;
  close(): Promise<void>;
}

/** The service on 127.0.0.1 (random port), PUBLIC_URL its own origin, with a bearer added at /mcp. */
export async function startService(): Promise<Running> {
  let handler: ((req: Request) => Response | Promise<Response>) | null = null;
  const server = await new Promise<{ port: number; shutdown(): Promise<void> }>((resolve) => {
    const s = Deno.serve({
      hostname: "127.0.0.1",
      port: 0,
      onListen: ({ port }) => resolve({ port, shutdown: () => s.shutdown() }),
    }, (req) => handler ? handler(req) : new Response("starting", { status: 503 }));
  });
  const origin = `http://127.0.0.1:${server.port}`;
  const config = {
    ...readConfig({ PORT: String(server.port), PUBLIC_URL: origin, SVC_NO_DEMO: "1" }),
    databaseUrl: "memory://",
    adminToken: ADMIN_TOKEN,
  };
  const clock = systemClock();
  const { db, engine, close } = await openDatabase(config.databaseUrl, config.dataDir);
  await migrateToLatest(db);
  const app = createApp({ db, engine, clock, config });
  const token = await agentToken(app.fetch, { db, clock, publicUrl: origin });

  handler = (req) => {
    const url = new URL(req.url);
    if (url.pathname !== "/mcp" || req.headers.has("Authorization")) return app.fetch(req);
    const headers = new Headers(req.headers);
    headers.set("Authorization", `Bearer ${token}`);
    return app.fetch(new Request(req, { headers }));
  };
  return {
    url: `${origin}/mcp`,
    token,
    close: async () => {
      await server.shutdown();
      await close();
    },
  };
}

/** A member of a fresh project, and an access token the service signs for them (scope `write`). */
async function agentToken(
  fetch: (req: Request) => Response | Promise<Response>,
  ctx: Parameters<typeof issueAccessToken>[0],
): Promise<string> {
  const admin = async (path: string, body: unknown) => {
    const res = await fetch(
      new Request(`${ctx.publicUrl}/admin${path}`, {
        method: "POST",
        headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, "Content-Type": "application/json" },
        body: JSON.stringify(body),
      }),
    );
    const json = await res.json();
    if (res.status !== 201) throw new Error(`POST /admin${path}: ${res.status} ${JSON.stringify(json)}`);
    return json.data as { id: string };
  };
  const org = await admin("/orgs", { name: "Conformance", plan: "team" });
  const project = await admin("/projects", { orgId: org.id, name: "Conformance", ticketPrefix: "CONF" });
  const user = await admin("/users", {
    email: "conformance@example.com",
    password: crypto.randomUUID(),
    name: "Conformance runner",
  });
  await admin(`/projects/${project.id}/members`, { userId: user.id, role: "member" });
  const { accessToken } = await issueAccessToken(ctx, {
    userId: user.id,
    projectId: project.id,
    orgId: org.id,
    scope: "write",
    clientId: null,
  });
  return accessToken;
}

interface Outcome {
  scenario: string;
  ok: boolean;
  summary: string;
  output: string;
}

/** One scenario through the official runner; its exit code and its own summary line decide. */
async function runScenario(url: string, scenario: string): Promise<Outcome> {
  const command = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", CONFORMANCE_PACKAGE, "server", "--url", url, "--scenario", scenario],
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
    signal: AbortSignal.timeout(SCENARIO_TIMEOUT_MS),
  });
  let output: string;
  let code: number;
  try {
    const result = await command.output();
    const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
    output = decode(result.stdout) + decode(result.stderr);
    code = result.code;
  } catch (err) {
    return {
      scenario,
      ok: false,
      summary: `runner did not finish: ${err instanceof Error ? err.message : err}`,
      output: "",
    };
  }
  // deno-lint-ignore no-control-regex
  const plain = output.replace(/\x1b\[[0-9;]*m/g, "");
  const counts = /Passed:\s*(\d+)\/(\d+)[^\n]*?(\d+)\s+failed/i.exec(plain);
  const failedChecks = counts ? Number(counts[3]) : NaN;
  const ok = code === 0 && failedChecks === 0;
  const summary = counts ? counts[0] : `exit ${code}, no summary line`;
  return { scenario, ok, summary, output: plain };
}

async function main(): Promise<number> {
  const scenarios = Deno.args.length > 0 ? Deno.args : SCENARIOS;
  const verbose = Deno.env.get("CONFORMANCE_VERBOSE") === "1";
  const service = await startService();
  console.log(`MCP conformance (${CONFORMANCE_PACKAGE.slice(4)}) against ${service.url}`);
  let passed = 0;
  let failed = 0;
  try {
    for (const scenario of scenarios) {
      const outcome = await runScenario(service.url, scenario);
      if (outcome.ok) passed++;
      else failed++;
      console.log(`${outcome.ok ? "ok    " : "FAILED"} ${scenario}: ${outcome.summary}`);
      if (verbose || !outcome.ok) console.log(outcome.output.trimEnd().replace(/^/gm, "    "));
    }
  } finally {
    await service.close();
  }
  console.log(`${passed} passed, ${failed} failed`);
  return failed === 0 ? 0 : 1;
}

if (import.meta.main) Deno.exit(await main());
