// Helpers of the tool-server tests: raw JSON-RPC POSTs to /mcp over the in-process app.
// deno-lint-ignore-file no-explicit-any
import { type ApiResponse, env, type TestEnv } from "../helpers/mod.ts";

export const PROTOCOL_VERSION = "2025-06-18";

export interface McpPost {
  token?: string | undefined;
  headers?: Record<string, string>;
  /** Raw body text; default the JSON of `message`. */
  raw?: string;
  method?: string;
  on?: TestEnv;
}

/** One request to `/mcp` (default POST with the headers a streamable-HTTP client sends). */
export async function mcp(message: unknown, options: McpPost = {}): Promise<ApiResponse> {
  const e = options.on ?? await env();
  const method = options.method ?? "POST";
  const headers: Record<string, string> = {
    Accept: "application/json, text/event-stream",
    ...(method === "POST" ? { "Content-Type": "application/json" } : {}),
    ...(options.token ? { Authorization: `Bearer ${options.token}` } : {}),
    ...(options.headers ?? {}),
  };
  const body = method === "POST" ? (options.raw ?? JSON.stringify(message)) : undefined;
  const res = await e.fetch("/mcp", { method, headers, body: body ?? null });
  const text = await res.text();
  let parsed: any = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = null;
  }
  return { status: res.status, headers: res.headers, body: parsed, text };
}

let ids = 0;

export function rpc(method: string, params?: unknown): Record<string, unknown> {
  return { jsonrpc: "2.0", id: ++ids, method, ...(params === undefined ? {} : { params }) };
}

export function initialize(): Record<string, unknown> {
  return rpc("initialize", {
    protocolVersion: PROTOCOL_VERSION,
    capabilities: {},
    clientInfo: { name: "svc-tests", version: "1.0.0" },
  });
}

/** A tools/call; the result's one JSON block parsed as `block`. */
export async function callTool(token: string, name: string, args: unknown = {}, options: McpPost = {}) {
  const res = await mcp(rpc("tools/call", { name, arguments: args }), {
    token,
    headers: { "MCP-Protocol-Version": PROTOCOL_VERSION },
    ...options,
  });
  const result = res.body?.result;
  const text = result?.content?.[0]?.text;
  return { res, result, block: typeof text === "string" ? JSON.parse(text) : undefined };
}
