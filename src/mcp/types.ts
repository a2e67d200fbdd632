/**
 * The seam between the tool table (src/mcp/tools/) and the server around it (transport, gate,
 * forwarding: src/mcp/server.ts, src/mcp/forward.ts, src/routes/mcp.ts). Tools know nothing of HTTP
 * transport details: they describe one REST call (or two) and reshape what comes back.
 */
import type { z } from "@hono/zod-openapi";

/** One REST call made on the caller's behalf, relative to `{base_url}` (e.g. `/context`). */
export interface RestCall {
  method: "GET" | "POST" | "PATCH" | "PUT" | "DELETE";
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
}

/** What REST answered: its HTTP status and the parsed JSON body (the whole envelope). */
export interface RestReply {
  status: number;
  body: unknown;
}

/**
 * Makes a REST call with the caller's bearer and `X-Svc-Platform: oauth`. Resolves with any HTTP
 * status; rejects only with an `UpstreamFailure` (timeout 504, unreachable 502, non-JSON).
 */
export type Forward = (call: RestCall) => Promise<RestReply>;

/** A tool's outcome before it becomes an MCP result. */
export type ToolOutcome =
  | { ok: true; data: unknown }
  /** `error` is the upstream `error` object unchanged (`{ code, message, details? }`), plus its status. */
  | { ok: false; status: number; error: Record<string, unknown> };

/** `read` tools need no scope; `write` tools need an OAuth token with the `write` scope. */
export type ToolScope = "read" | "write";

export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/** One of the 15 tools. `input` is derived from the Zod contract of the route it wraps. */
export interface ToolDefinition<Input extends z.ZodObject = z.ZodObject> {
  name: string;
  title: string;
  description: string;
  input: Input;
  /** Output schema for `structuredContent`, when the result is an object (not for array results). */
  output?: z.ZodObject;
  annotations: ToolAnnotations;
  scope: ToolScope;
  run(args: z.infer<Input>, forward: Forward): Promise<ToolOutcome>;
}
