import type { Config } from "@/config.ts";
import type { DemoData } from "@/bootstrap.ts";
import { ADMIN_TOKEN_FILE } from "@/bootstrap.ts";
import { EMBEDDED_SHARED_BUFFERS } from "@/db/dialect.ts";

export interface StartupState {
  /** Where the server listens (the socket's address). */
  listening: { hostname: string; port: number };
  engine: "pglite" | "postgres";
  /** The admin token in effect: configured, generated (embedded database) or none (operator API off). */
  adminToken: string | undefined;
  demo: DemoData | null;
  /** Workers serving the port (src/cluster.ts); 1 when omitted. */
  workers?: number;
}

/**
 * The start log: where it listens, and for each newcomer-facing feature either how to use it or, when it
 * is off, how to turn it on (operator contract: the admin API is off without `SVC_ADMIN_TOKEN` on
 * PostgreSQL; demo data is created only on request there, with `SVC_DEMO=1`).
 */
export function startupLines(config: Config, state: StartupState): string[] {
  const { hostname, port } = state.listening;
  const lines = [`listening on http://${hostname}:${port}`, workersLine(config, state)];
  if (state.adminToken && !config.adminToken) {
    lines.push(`admin token: ${state.adminToken} (kept in ${config.dataDir}/${ADMIN_TOKEN_FILE})`);
  }
  if (!state.adminToken) {
    lines.push(
      "operator API is off (/admin answers 404, `deno task cli` cannot work): restart with " +
        "SVC_ADMIN_TOKEN=<a long random secret> to turn it on",
    );
  }
  const demo = state.demo;
  if (demo) {
    lines.push(
      demo.password
        ? `demo project: Demo (DEMO), sign in as ${demo.email} / ${demo.password} (shown only now)`
        : `demo project: Demo (DEMO), sign in as ${demo.email} (password printed at first start)`,
      `demo pairing code: ${demo.pairingCode} (expires ${demo.codeExpiresAt})`,
      `pair: curl -s -X POST ${config.publicUrl}/api/pair/connect -H 'Content-Type: application/json' ` +
        `-d '{"code":"${demo.pairingCode}","agentName":"my-agent"}'`,
    );
  } else if (state.engine === "postgres" && !config.demo) {
    lines.push(
      "demo data is off on PostgreSQL: start once with SVC_DEMO=1 on an empty database to create the Demo " +
        "project, a sign-in and a pairing code",
    );
  } else if (state.engine === "postgres") {
    lines.push("demo data: not created (SVC_DEMO=1, but the database already has projects)");
  }
  if (state.engine === "pglite") lines.push(embeddedCacheLine(config));
  return lines;
}

/** How many workers serve, and on the embedded database why only one (issue 27.2). */
function workersLine(config: Config, state: StartupState): string {
  const workers = state.workers ?? 1;
  if (state.engine === "pglite") {
    const ignored = config.workers && config.workers > 1 ? ` (SVC_WORKERS=${config.workers} is ignored)` : "";
    return `1 worker: the embedded database (PGlite) belongs to one process${ignored}; on PostgreSQL ` +
      "(DATABASE_URL) the service runs one worker per core, or SVC_WORKERS";
  }
  if (workers === 1) {
    return config.workers ? "1 worker (SVC_WORKERS=1)" : "1 worker (one core; SVC_WORKERS=N runs N)";
  }
  return `${workers} workers share the port (SVC_WORKERS, default one per core); background work runs in worker 1`;
}

/** The embedded database's cache: resident for the life of the process, so the start says how to change it. */
function embeddedCacheLine(config: Config): string {
  const size = config.pgliteSharedBuffers ?? EMBEDDED_SHARED_BUFFERS;
  return `embedded database cache: ${size} (SVC_PGLITE_SHARED_BUFFERS; more caches more of a large ` +
    "database, and stays resident)";
}
