/**
 * The MCP server around the tool table: one fresh `McpServer` per HTTP request (stateless streamable
 * HTTP), registering every tool with its derived input schema, output schema and annotations, and
 * turning each tool's outcome into the spec's result: one JSON text block (MCP-008), the REST `data`
 * or the tool's reshaped output on success (MCP-009) with `structuredContent` when the tool has an
 * output schema; on failure `isError: true` and the upstream error unchanged plus `status` (MCP-010),
 * with `reauth` on 401 (MCP-011). Upstream transport failures (timeout 504, unreachable 502,
 * non-JSON) come from the Forward as `UpstreamFailure` and are shaped the same way (MCP-012..015).
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import {
  type CallToolRequest,
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  McpError,
} from "@modelcontextprotocol/sdk/types.js";
import { fieldErrors } from "@/http/errors.ts";
import { loggableError } from "@/shared/log-safe.ts";
import { UpstreamFailure } from "./forward.ts";
import type { Forward, ToolDefinition, ToolOutcome } from "./types.ts";

/** Name the server gives itself in `initialize` (`serverInfo.name`). */
export const SERVER_NAME = "svc";

/** MCP-016: what every client reads first, in the `initialize` result. */
export const SERVER_INSTRUCTIONS = [
  "Agent coordination service: tickets, file claims, a shared ledger and hand-offs for the agents of one project.",
  "Call svc_status first, before any other tool: it returns your compact context (project, brief, your",
  "tickets and claims, what to do next) and, on a brand-new project with no brief and no tickets, a",
  "projectSetup object with the steps to set the project up.",
  "Typical loop: svc_board or svc_tickets to pick work, svc_ticket_begin (ticketId and files) to start it,",
  "svc_ledger_add with the sessionId from begin as you progress (PROGRESS, TESTED, BLOCKED, ALERT), and",
  "svc_handoff when done. Every result is one JSON text block; a failure has isError true, the service's",
  "error (code, message, details.recovery) and its HTTP status; follow details.recovery when present.",
].join(" ");

/** MCP-011: added to every failure whose upstream status is 401. */
export const REAUTH_HINT =
  "Your access to the service is no longer valid (expired, revoked, or you left the " +
  "project). Refresh the access token with your refresh token, or reconnect this MCP server to sign in " +
  "and approve again.";

export interface McpServerOptions {
  tools: readonly ToolDefinition[];
  forward: Forward;
  version: string;
}

/** A fresh server for one request, every tool registered, calls going through `forward`. */
export function buildMcpServer(options: McpServerOptions): McpServer {
  const server = new McpServer(
    { name: SERVER_NAME, title: "Agent coordination service", version: options.version },
    { capabilities: { tools: { listChanged: false } }, instructions: SERVER_INSTRUCTIONS },
  );
  const byName = new Map<string, ToolDefinition>();
  for (const def of options.tools) {
    byName.set(def.name, def);
    server.registerTool(def.name, {
      title: def.title,
      description: def.description,
      inputSchema: def.input,
      ...(def.output ? { outputSchema: def.output } : {}),
      annotations: { title: def.title, ...def.annotations },
    }, (args: unknown) => runTool(def, args, options.forward));
  }
  // The SDK's own tools/call handler answers invalid arguments with a plain-text message; ours answers
  // them like REST does (400 VALIDATION_ERROR with details.fields) inside the one JSON block (MCP-008).
  server.server.setRequestHandler(CallToolRequestSchema, async (request: CallToolRequest) => {
    const def = byName.get(request.params.name);
    if (!def) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    return await runTool(def, request.params.arguments ?? {}, options.forward);
  });
  return server;
}

/** Validates the arguments with the tool's schema, runs it, and shapes the outcome. Never throws. */
export async function runTool(def: ToolDefinition, args: unknown, forward: Forward): Promise<CallToolResult> {
  const parsed = await def.input.safeParseAsync(args);
  if (!parsed.success) {
    const fields = fieldErrors(parsed.error);
    const first = fields[0];
    return failure(400, {
      code: "VALIDATION_ERROR",
      message: first ? `Invalid ${first.path}: ${first.message}` : "Invalid arguments",
      details: { target: "arguments", fields },
    });
  }
  let outcome: ToolOutcome;
  try {
    outcome = await def.run(parsed.data, forward);
  } catch (err) {
    if (err instanceof UpstreamFailure) return failure(err.status, err.toError());
    console.error(`tool ${def.name} failed unexpectedly:`, loggableError(err));
    return failure(500, { code: "INTERNAL", message: "Unexpected failure in the tool server" });
  }
  return toolResult(def, outcome);
}

/** MCP-008..011: a tool's outcome as the MCP result. */
export function toolResult(def: Pick<ToolDefinition, "output">, outcome: ToolOutcome): CallToolResult {
  if (!outcome.ok) return failure(outcome.status, outcome.error);
  const result: CallToolResult = { content: [{ type: "text", text: JSON.stringify(outcome.data ?? null) }] };
  if (def.output && isRecord(outcome.data)) result.structuredContent = outcome.data;
  return result;
}

/** The failure block: the upstream error unchanged, its `status`, and `reauth` on 401. */
export function failure(status: number, error: Record<string, unknown>): CallToolResult {
  const block = { ...error, status, ...(status === 401 ? { reauth: REAUTH_HINT } : {}) };
  return { content: [{ type: "text", text: JSON.stringify(block) }], isError: true };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
