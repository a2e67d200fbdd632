/**
 * `{mcp_url}` (`PUBLIC_URL/mcp`): the tool server over streamable HTTP, stateless (MCP-002). Every POST
 * gets a fresh MCP server and transport, so any instance answers any request (no sticky sessions, no
 * session state). Checks, in this order, before the transport sees anything:
 *   1. `Host` and `Origin` (DNS-rebinding protection)           -> 403
 *   2. the bearer: verified locally (signature, iss, aud, exp), then not revoked, organization and
 *      project active, user still a member (the check REST makes)  -> 401 + WWW-Authenticate (MCP-007)
 *   3. GET and DELETE (no sessions, no standalone stream)        -> 405 + Allow: POST
 *   4. an unsupported `MCP-Protocol-Version`                     -> 400
 *   5. a body that is not JSON, or a JSON-RPC batch              -> 400 (JSON-RPC error)
 *   6. `tools/call` of a write tool with a `read` token          -> 403 insufficient_scope (MCP-020)
 */
import { Hono } from "hono";
import type { Context } from "hono";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { type LiveAccess, verifyLiveAccessToken } from "@/domain/oauth/actor.ts";
import { type AppEnv, serviceCtx } from "@/http/env.ts";
import { errorBody } from "@/http/errors.ts";
import { DomainError } from "@/domain/core/errors.ts";
import { projectMcpToolSet } from "@/domain/core/mcp-tool-set.ts";
import {
  allowedHosts,
  allowedOrigins,
  bearerChallenge,
  insufficientScopeBody,
  insufficientScopeChallenge,
  JSONRPC,
  jsonRpcError,
  protocolVersionSupported,
  rebindingRefusal,
  SUPPORTED_PROTOCOL_VERSIONS,
  unauthorizedBody,
  writeToolCalled,
} from "@/mcp/gate.ts";
import { buildMcpServer } from "@/mcp/server.ts";
import type { Forward, ToolDefinition } from "@/mcp/types.ts";

export interface McpRouteOptions {
  tools: readonly ToolDefinition[];
  /** Listed after `tools` for the agents of a project whose setting `mcpTools` is `coordination` (issue 24). */
  coordinationTools?: readonly ToolDefinition[];
  /** The REST forward for one caller's bearer (in-process, or over HTTP to SVC_REST_URL). */
  forwardFor(bearer: string, c: Context<AppEnv>): Forward;
}

/** The `/mcp` endpoint, to be mounted at `/mcp`. */
export function mcpApp(options: McpRouteOptions): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  let gate: { hosts: Set<string>; origins: Set<string> } | null = null;

  app.all("/", async (c) => {
    const config = c.get("deps").config;
    gate ??= { hosts: allowedHosts(config), origins: allowedOrigins(config) };
    const host = c.req.header("Host") ?? new URL(c.req.url).host;
    const refused = rebindingRefusal(host, c.req.header("Origin"), gate.hosts, gate.origins);
    if (refused) return c.json(errorBody("FORBIDDEN", refused), 403);

    const authorization = c.req.header("Authorization");
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "")?.[1];
    // The same check as REST (one definition): signature, iss, aud, exp, then revocation, organization
    // and project status and membership, in one read. Every method, `initialize` and `tools/list` too.
    const live: LiveAccess | null = bearer
      ? await verifyLiveAccessToken(serviceCtx(c.get("deps")), bearer).catch((err) => {
        if (err instanceof DomainError) return null;
        throw err;
      })
      : null;
    if (!bearer || !live) {
      const sent = authorization !== undefined;
      c.header("WWW-Authenticate", bearerChallenge(config.publicUrl, sent));
      return c.json(unauthorizedBody(config.publicUrl, sent), 401);
    }

    if (c.req.method !== "POST") {
      c.header("Allow", "POST");
      return c.json(
        jsonRpcError(JSONRPC.serverError, "Method not allowed: this stateless server answers POST only"),
        405,
      );
    }
    if (!protocolVersionSupported(c.req.header("MCP-Protocol-Version"))) {
      return c.json(
        jsonRpcError(
          JSONRPC.invalidRequest,
          `Bad Request: unsupported MCP-Protocol-Version "${c.req.header("MCP-Protocol-Version")}" ` +
            `(supported: ${SUPPORTED_PROTOCOL_VERSIONS.join(", ")})`,
        ),
        400,
      );
    }
    let message: unknown;
    try {
      message = JSON.parse(await c.req.text());
    } catch {
      return c.json(jsonRpcError(JSONRPC.parseError, "Parse error: the body is not JSON"), 400);
    }
    if (Array.isArray(message)) {
      return c.json(
        jsonRpcError(JSONRPC.invalidRequest, "Invalid Request: JSON-RPC batches are not supported"),
        400,
      );
    }
    const tools = options.coordinationTools &&
        await projectMcpToolSet(c.get("deps").db, live.claims.projectId) === "coordination"
      ? withCoordination(options.tools, options.coordinationTools)
      : options.tools;
    const write = writeToolCalled(message, tools);
    if (write && live.scope !== "write") {
      c.header("WWW-Authenticate", insufficientScopeChallenge(config.publicUrl));
      return c.json(insufficientScopeBody(write.id, write.tool), 403);
    }

    const server = buildMcpServer({
      tools,
      forward: options.forwardFor(bearer, c),
      version: config.version,
    });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await server.connect(transport);
    try {
      return await transport.handleRequest(c.req.raw, {
        parsedBody: message,
        authInfo: {
          token: bearer,
          clientId: live.claims.clientId ?? "",
          scopes: [live.scope],
          expiresAt: live.claims.exp,
        },
      });
    } finally {
      // JSON responses are complete here; closing frees the per-request server and transport.
      void server.close().catch(() => {});
    }
  });
  return app;
}

/**
 * The coordination tool set: a coordination tool named like a spec tool (`svc_handoff` with
 * `changedFiles`) takes its place in the list; the others follow the spec's tools.
 */
function withCoordination(
  tools: readonly ToolDefinition[],
  extra: readonly ToolDefinition[],
): readonly ToolDefinition[] {
  const byName = new Map(extra.map((t) => [t.name, t]));
  const replaced = tools.map((t) => byName.get(t.name) ?? t);
  const names = new Set(tools.map((t) => t.name));
  return [...replaced, ...extra.filter((t) => !names.has(t.name))];
}
