/**
 * The tool server's way to REST (MCP-004, MCP-005, MCP-012..015): every tool call becomes one or two REST
 * calls made with the caller's own bearer and `X-Svc-Platform: oauth`, so authentication, scopes, roles,
 * rate limits and LEDGER_STALE apply exactly as on REST. In-process by default (the service's own app
 * answers a `Request` without a socket); over HTTP when `SVC_REST_URL` names the REST origin.
 */
import type { Forward, RestCall, RestReply, ToolOutcome } from "./types.ts";

/** Anything that answers a `Request`: the app's own `fetch`, or the global `fetch` for HTTP. */
export type FetchLike = (request: Request) => Response | Promise<Response>;

/** REST calls that take longer than this fail with 504 UPSTREAM_TIMEOUT (spec: Limits). */
export const REST_TIMEOUT_MS = 25_000;

/** The platform OAuth agents are recorded with, sent on every forwarded call (MCP-005, MCP-006). */
export const MCP_PLATFORM = "oauth";

export type UpstreamCode = "UPSTREAM_TIMEOUT" | "UPSTREAM_UNREACHABLE" | "UPSTREAM_NON_JSON";

/**
 * A REST call that produced no usable answer. Statuses: 504 UPSTREAM_TIMEOUT (MCP-012), 502
 * UPSTREAM_UNREACHABLE (MCP-014) and, by design (MCP-015), 502 UPSTREAM_NON_JSON: the upstream answered,
 * but not with the JSON the tool server relays, which is a bad gateway reply like any other.
 */
export class UpstreamFailure extends Error {
  constructor(
    readonly status: 502 | 504,
    readonly code: UpstreamCode,
    message: string,
    readonly details: Record<string, unknown>,
  ) {
    super(message);
    this.name = "UpstreamFailure";
  }

  /** The error object of a tool failure, in the spec's error shape (`{ code, message, details }`). */
  toError(): Record<string, unknown> {
    return { code: this.code, message: this.message, details: this.details };
  }
}

/** The tool outcome of an upstream failure (the server maps it like any failed REST call). */
export function upstreamOutcome(failure: UpstreamFailure): ToolOutcome {
  return { ok: false, status: failure.status, error: failure.toError() };
}

export interface ForwardOptions {
  /** The caller's bearer token, forwarded unchanged. */
  bearer: string;
  /**
   * HTTP mode: the REST origin (`SVC_REST_URL`), e.g. `https://api.example.com`; calls go to
   * `{origin}/api{path}`. A value that already ends in `/api` or `/svc` is used as the base as it is.
   */
  restUrl?: string | undefined;
  /**
   * In-process mode (no `restUrl`): the service app's `fetch`. HTTP mode: the fetch to use (default the
   * global one; tests inject their own).
   */
  fetch?: FetchLike | undefined;
  /** In-process mode: the origin the requests are addressed to (the service's public URL). */
  origin?: string | undefined;
  /** Timeout per REST call, default 25 seconds (tests shorten it). */
  timeoutMs?: number | undefined;
  /** Extra headers for every call (e.g. the MCP request's `X-Request-Id`); never Authorization. */
  headers?: Record<string, string> | undefined;
}

/** The `/api` base the calls are addressed to. */
export function restBase(options: Pick<ForwardOptions, "restUrl" | "origin">): string {
  if (options.restUrl !== undefined) {
    const trimmed = options.restUrl.replace(/\/+$/, "");
    return /\/(api|svc)$/.test(trimmed) ? trimmed : `${trimmed}/api`;
  }
  return `${(options.origin ?? "http://localhost").replace(/\/+$/, "")}/api`;
}

/** The URL of one call: base, path, and the query without its undefined values. */
export function restUrlOf(base: string, call: RestCall): string {
  const url = new URL(`${base}${call.path}`);
  for (const [key, value] of Object.entries(call.query ?? {})) {
    if (value !== undefined) url.searchParams.set(key, String(value));
  }
  return url.toString();
}

/** The Forward for one caller: in-process through `options.fetch`, or over HTTP to `options.restUrl`. */
export function createForward(options: ForwardOptions): Forward {
  const base = restBase(options);
  const timeoutMs = options.timeoutMs ?? REST_TIMEOUT_MS;
  const send: FetchLike = options.fetch ?? ((request) => fetch(request));
  if (options.restUrl === undefined && options.fetch === undefined) {
    throw new Error("Cannot create the REST forward: give the app's fetch (in-process) or a REST URL");
  }
  return async (call) => {
    const headers = new Headers(options.headers ?? {});
    headers.set("Authorization", `Bearer ${options.bearer}`);
    headers.set("X-Svc-Platform", MCP_PLATFORM);
    headers.set("Accept", "application/json");
    let body: string | undefined;
    if (call.body !== undefined) {
      body = JSON.stringify(call.body);
      headers.set("Content-Type", "application/json");
    }
    const controller = new AbortController();
    const request = new Request(restUrlOf(base, call), {
      method: call.method,
      headers,
      body: body ?? null,
      signal: controller.signal,
    });
    return await withTimeout(exchange(send, request, call), timeoutMs, call, controller);
  };
}

/** Sends the request and reads the whole reply (the timeout covers both). */
async function exchange(send: FetchLike, request: Request, call: RestCall): Promise<RestReply> {
  let response: Response;
  try {
    response = await send(request);
  } catch (err) {
    throw unreachable(call, err);
  }
  let text: string;
  try {
    text = await response.text();
  } catch (err) {
    throw unreachable(call, err);
  }
  const contentType = response.headers.get("Content-Type") ?? "";
  const parsed = /\bjson\b/i.test(contentType) ? parseJson(text) : undefined;
  if (parsed === undefined) {
    throw new UpstreamFailure(
      502,
      "UPSTREAM_NON_JSON",
      `REST answered ${call.method} ${call.path} with HTTP ${response.status} but not with JSON ` +
        `(Content-Type "${contentType || "none"}"); the tool server cannot relay it`,
      { endpoint: `${call.method} ${call.path}`, upstreamStatus: response.status, contentType },
    );
  }
  return { status: response.status, body: parsed };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function unreachable(call: RestCall, err: unknown): UpstreamFailure {
  if (err instanceof UpstreamFailure) return err;
  const reason = err instanceof Error ? err.message : String(err);
  return new UpstreamFailure(
    502,
    "UPSTREAM_UNREACHABLE",
    `Cannot reach REST for ${call.method} ${call.path}: ${reason}`,
    { endpoint: `${call.method} ${call.path}` },
  );
}

/** Races the exchange against the timer; on time-out aborts the request and rejects with 504. */
async function withTimeout(
  work: Promise<RestReply>,
  timeoutMs: number,
  call: RestCall,
  controller: AbortController,
): Promise<RestReply> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(
        new UpstreamFailure(
          504,
          "UPSTREAM_TIMEOUT",
          `REST did not answer ${call.method} ${call.path} within ${timeoutMs / 1000} seconds. ` +
            (call.method === "GET"
              ? "Nothing was changed by this read; retry it."
              : "The write may or may not have been applied: read the current state (svc_status, " +
                "svc_ticket_get) before retrying it."),
          { endpoint: `${call.method} ${call.path}`, timeoutSeconds: timeoutMs / 1000 },
        ),
      );
      controller.abort();
    }, timeoutMs);
  });
  // The losing exchange may still reject (aborted): keep that from surfacing as unhandled.
  work.catch(() => {});
  try {
    return await Promise.race([work, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
