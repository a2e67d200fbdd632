import { parseTrustedProxies } from "@/shared/client-address.ts";

/** Runtime configuration, read once from the environment by main.ts and passed down. */
export interface Config {
  port: number;
  host: string;
  publicUrl: string;
  /** `undefined`: embedded PGlite in dataDir; `memory://`: in-memory PGlite; else postgres URL. */
  databaseUrl: string | undefined;
  dataDir: string;
  adminToken: string | undefined;
  restUrl: string | undefined;
  testClock: boolean;
  noDemo: boolean;
  /** `SVC_DEMO=1`: on PostgreSQL too, a first start on an empty database creates the demo data. */
  demo: boolean;
  /**
   * Trusted proxy addresses and CIDRs (`SVC_TRUST_PROXY`; `1` = loopback). Only when the socket peer is one
   * of them is `X-Forwarded-For` read, and then its right-most hop that is not a trusted proxy.
   */
  trustedProxies: readonly string[];
  /**
   * Tool server DNS-rebinding protection: `Host` values (host or host:port) accepted at `/mcp` besides
   * PUBLIC_URL's own (`SVC_MCP_ALLOWED_HOSTS`, comma-separated), and `Origin` values accepted besides
   * PUBLIC_URL's origin (`SVC_MCP_ALLOWED_ORIGINS`, comma-separated origins).
   */
  mcpAllowedHosts: readonly string[];
  mcpAllowedOrigins: readonly string[];
  version: string;
  /** `CORS_ORIGINS`: browser origins allowed to call the REST API (comma-separated, `*` for any); none by default. */
  corsOrigins: readonly string[];
  /** `SVC_WEBHOOK_ALLOW_LOOPBACK=1`: webhooks may use `http` and loopback addresses (development, tests). */
  webhookAllowLoopback: boolean;
  /** `LOG_FORMAT`: `json`, `text` or `off`; unset means JSON unless stdout is a terminal. */
  logFormat?: "json" | "text" | "off" | undefined;
  /**
   * `SVC_WORKERS`: how many workers serve the port (isolates of this process sharing it); unset means one
   * per core on PostgreSQL. The embedded database (PGlite) always has one.
   */
  workers?: number | undefined;
  /**
   * `SVC_PGLITE_SHARED_BUFFERS`: the embedded database's cache (PostgreSQL's `shared_buffers`, e.g. `64MB`);
   * unset means 16 MB (src/db/dialect.ts `EMBEDDED_SHARED_BUFFERS`). Resident for the life of the process.
   */
  pgliteSharedBuffers?: string | undefined;
}

export const SERVICE_VERSION = "1.0.0";

export function readConfig(env: Record<string, string | undefined>): Config {
  const port = Number(env.PORT ?? "8787");
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`Cannot read PORT "${env.PORT}": not a port number`);
  }
  const logFormat = env.LOG_FORMAT || undefined;
  if (logFormat !== undefined && !["json", "text", "off"].includes(logFormat)) {
    throw new Error(`Cannot read LOG_FORMAT "${logFormat}": use json, text or off`);
  }
  const workers = env.SVC_WORKERS ? Number(env.SVC_WORKERS) : undefined;
  if (workers !== undefined && (!Number.isInteger(workers) || workers < 1 || workers > 256)) {
    throw new Error(`Cannot read SVC_WORKERS "${env.SVC_WORKERS}": use a whole number from 1 to 256`);
  }
  const pgliteSharedBuffers = env.SVC_PGLITE_SHARED_BUFFERS || undefined;
  if (pgliteSharedBuffers !== undefined && !/^[1-9]\d*(kB|MB|GB)$/.test(pgliteSharedBuffers)) {
    throw new Error(
      `Cannot read SVC_PGLITE_SHARED_BUFFERS "${pgliteSharedBuffers}": use a size such as 16MB (kB, MB or GB)`,
    );
  }
  return {
    port,
    host: env.HOST ?? "127.0.0.1",
    publicUrl: (env.PUBLIC_URL ?? `http://localhost:${port}`).replace(/\/+$/, ""),
    databaseUrl: env.DATABASE_URL || undefined,
    dataDir: env.DATA_DIR ?? "./.data",
    adminToken: env.SVC_ADMIN_TOKEN || undefined,
    restUrl: env.SVC_REST_URL || undefined,
    testClock: env.SVC_TEST_CLOCK === "1",
    noDemo: env.SVC_NO_DEMO === "1",
    demo: env.SVC_DEMO === "1",
    trustedProxies: parseTrustedProxies(env.SVC_TRUST_PROXY),
    mcpAllowedHosts: commaList(env.SVC_MCP_ALLOWED_HOSTS),
    mcpAllowedOrigins: commaList(env.SVC_MCP_ALLOWED_ORIGINS),
    version: SERVICE_VERSION,
    logFormat: logFormat as Config["logFormat"],
    webhookAllowLoopback: env.SVC_WEBHOOK_ALLOW_LOOPBACK === "1",
    workers,
    pgliteSharedBuffers,
    corsOrigins: (env.CORS_ORIGINS ?? "").split(",").map((o) => o.trim().replace(/\/+$/, "")).filter(Boolean),
  };
}

function commaList(value: string | undefined): string[] {
  return (value ?? "").split(",").map((item) => item.trim()).filter((item) => item !== "");
}
