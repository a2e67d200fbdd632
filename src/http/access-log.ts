import type { Context, MiddlewareHandler } from "hono";
import { matchedRoutes } from "hono/route";
import type { AppEnv } from "./env.ts";
import type { Metrics } from "./metrics.ts";
import { redactSecrets } from "@/shared/log-safe.ts";

export type LogFormat = "json" | "text" | "off";
export type LogLevel = "info" | "warn" | "error";

/** One structured log line: JSON (one object per line) or readable text. */
export type LogWriter = (level: LogLevel, msg: string, fields?: Record<string, unknown>) => void;

/** The format when LOG_FORMAT is not set: JSON unless stdout is a terminal. */
export function defaultLogFormat(): LogFormat {
  try {
    return Deno.stdout.isTerminal() ? "text" : "json";
  } catch {
    return "json";
  }
}

/** String field values with secrets redacted (fields carry request and error data; messages are fixed text). */
function safeFields(fields: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields)) out[k] = typeof v === "string" ? redactSecrets(v) : v;
  return out;
}

/**
 * Lines to stdout, written in batches (issue 27.1: a `console.log` per request was a formatting pass and a
 * write system call each): lines of one turn of the event loop go out in one write, in order. Flushed
 * at exit too (`unload` follows `Deno.exit`).
 */
export function batchedStdout(): (line: string) => void {
  const encoder = new TextEncoder();
  let pending: string[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  const flush = () => {
    timer = undefined;
    if (pending.length === 0) return;
    const bytes = encoder.encode(pending.join("\n") + "\n");
    pending = [];
    try {
      for (let at = 0; at < bytes.length;) at += Deno.stdout.writeSync(bytes.subarray(at));
    } catch {
      // stdout closed: nothing to log to.
    }
  };
  globalThis.addEventListener("unload", flush);
  return (line) => {
    pending.push(line);
    timer ??= setTimeout(flush, 0);
  };
}

/** A writer in `format` that hands each line to `sink` (stdout, batched, by default). */
export function logWriter(
  format: LogFormat,
  sink: (line: string) => void = batchedStdout(),
): LogWriter {
  if (format === "off") return () => {};
  if (format === "json") {
    return (level, msg, fields = {}) =>
      sink(JSON.stringify({ time: new Date().toISOString(), level, msg, ...safeFields(fields) }));
  }
  return (level, msg, fields = {}) => {
    const rest = Object.entries(safeFields(fields)).filter(([, v]) => v !== undefined && v !== null)
      .map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`).join(" ");
    sink(`${new Date().toISOString()} ${level.toUpperCase()} ${msg}${rest ? ` ${rest}` : ""}`);
  };
}

/**
 * The route template that served the request (`/api/ticket/:ticketId/acknowledge`), never the raw path,
 * which may carry identifiers; `(unmatched)` when no route matched.
 */
export function routeTemplate(c: Context): string {
  const routes = matchedRoutes(c);
  for (let i = routes.length - 1; i >= 0; i--) {
    const path = routes[i]!.path;
    if (!path.endsWith("*")) return path;
  }
  return "(unmatched)";
}

/** The error code of a JSON error response (`{ error: { code } }`), read from a clone. */
async function errorCodeOf(res: Response): Promise<string | undefined> {
  if (res.status < 400 || !(res.headers.get("content-type") ?? "").includes("json")) return undefined;
  try {
    const body = await res.clone().json() as { error?: unknown };
    const err = body?.error;
    if (err && typeof err === "object") {
      const code = (err as { code?: unknown }).code;
      return typeof code === "string" ? code : undefined;
    }
    return typeof err === "string" ? err : undefined; // OAuth shapes: { error: "invalid_grant" }
  } catch {
    return undefined;
  }
}

/**
 * One access-log line per request (request id, method, route template, status, duration, agent and
 * project ids, error code) and the request metrics. Logs no header, query, body or raw path, so no
 * token, code or password can reach the log.
 */
export function accessLog(metrics: Metrics, log: LogWriter | undefined): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const started = performance.now();
    await next();
    const ms = performance.now() - started;
    const route = routeTemplate(c);
    const status = c.res.status;
    const method = c.req.method;
    const labels = { method, route, status: String(status) };
    metrics.requests.inc(labels);
    metrics.duration.observe(labels, ms / 1000);
    const code = await errorCodeOf(c.res);
    if (status === 429 && code) metrics.refusals.inc({ code, route });
    if (!log) return;
    const actor = c.get("actor") as AppEnv["Variables"]["actor"] | undefined;
    log(status >= 500 ? "error" : status >= 400 ? "warn" : "info", "request", {
      requestId: c.get("requestId"),
      method,
      route,
      status,
      durationMs: Math.round(ms * 10) / 10,
      agentId: actor?.agentId ?? null,
      projectId: actor?.projectId ?? null,
      ...(code ? { error: code } : {}),
    });
  };
}
