/**
 * The checks `/mcp` makes before the MCP transport sees a request, and the refusals they produce:
 * DNS-rebinding protection (`Host` and `Origin`), the bearer (MCP-007, RFC 9728 / RFC 6750
 * `WWW-Authenticate`), the `MCP-Protocol-Version` header, JSON-RPC batches, and the `write` scope of
 * write tools. Pure functions of the request's parts and the configuration; no HTTP framework here.
 */
import { SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/sdk/types.js";
import { audienceOf, issuerOf } from "@/domain/oauth/access-token.ts";
import { errorBody } from "@/http/errors.ts";
import { recovery } from "@/domain/core/errors.ts";
import type { ToolDefinition } from "./types.ts";

export interface GateConfig {
  publicUrl: string;
  mcpAllowedHosts: readonly string[];
  mcpAllowedOrigins: readonly string[];
}

const LOOPBACK_NAMES = ["localhost", "127.0.0.1", "[::1]"];

/** `Host` values accepted: PUBLIC_URL's host (with and without its default port), its loopback aliases, the list. */
export function allowedHosts(config: GateConfig): Set<string> {
  const url = new URL(config.publicUrl);
  const port = url.port || (url.protocol === "https:" ? "443" : "80");
  const names = LOOPBACK_NAMES.includes(url.hostname) ? LOOPBACK_NAMES : [url.hostname];
  const out = new Set<string>();
  for (const name of names) {
    out.add(`${name}:${port}`);
    if (!url.port) out.add(name);
  }
  for (const host of config.mcpAllowedHosts) out.add(host.toLowerCase());
  return out;
}

/** `Origin` values accepted: PUBLIC_URL's origin, its loopback aliases, and the configured origins. */
export function allowedOrigins(config: GateConfig): Set<string> {
  const url = new URL(config.publicUrl);
  const names = LOOPBACK_NAMES.includes(url.hostname) ? LOOPBACK_NAMES : [url.hostname];
  const out = new Set<string>();
  for (const name of names) out.add(`${url.protocol}//${name}${url.port ? `:${url.port}` : ""}`);
  for (const origin of config.mcpAllowedOrigins) {
    try {
      out.add(new URL(origin).origin);
    } catch {
      out.add(origin.toLowerCase());
    }
  }
  return out;
}

/** Why a request fails DNS-rebinding protection, or null when its Host and Origin are allowed. */
export function rebindingRefusal(
  host: string | undefined,
  origin: string | undefined,
  hosts: Set<string>,
  origins: Set<string>,
): string | null {
  if (!host || !hosts.has(host.toLowerCase())) return `Host header not allowed: ${host ?? "(none)"}`;
  if (origin !== undefined && !origins.has(normalizeOrigin(origin))) return `Origin not allowed: ${origin}`;
  return null;
}

function normalizeOrigin(origin: string): string {
  try {
    return new URL(origin).origin;
  } catch {
    return origin.toLowerCase();
  }
}

/** RFC 9728 §5.1: where the client finds the protected resource metadata of `{mcp_url}`. */
export function resourceMetadataUrl(publicUrl: string): string {
  return `${issuerOf(publicUrl)}/.well-known/oauth-protected-resource/mcp`;
}

/** The `WWW-Authenticate` challenge of a 401: with `error="invalid_token"` when a token was sent. */
export function bearerChallenge(publicUrl: string, tokenSent: boolean): string {
  const metadata = `resource_metadata="${resourceMetadataUrl(publicUrl)}"`;
  return tokenSent
    ? `Bearer error="invalid_token", error_description="The access token is invalid or expired", ${metadata}`
    : `Bearer ${metadata}`;
}

/** The 401 body: the service's error shape, telling how to get a token. */
export function unauthorizedBody(publicUrl: string, tokenSent: boolean) {
  const issuer = issuerOf(publicUrl);
  return errorBody(
    "UNAUTHORIZED",
    tokenSent ? "Invalid, expired or revoked access token" : "Missing bearer token",
    {
      recovery: recovery(
        "REPAIR_OR_REFRESH",
        "POST /api/oauth/token",
        `The tool server at ${audienceOf(publicUrl)} takes OAuth 2.1 access tokens: read the metadata at ` +
          `${
            resourceMetadataUrl(publicUrl)
          }, then authorize at ${issuer}/oauth/authorize (PKCE), or refresh ` +
          "with your refresh token",
        { grant_type: "refresh_token", refresh_token: "<your refresh token>", client_id: "<your client_id>" },
      ),
    },
  );
}

/** The 403 challenge for a write tool called with a `read` token (RFC 6750 §3.1). */
export function insufficientScopeChallenge(publicUrl: string): string {
  return `Bearer error="insufficient_scope", scope="write", ` +
    `error_description="This tool needs the write scope", resource_metadata="${
      resourceMetadataUrl(publicUrl)
    }"`;
}

/**
 * The 403 body for a write tool called with a `read` token: a JSON-RPC response whose result is the
 * tool failure REST would give (MCP-020: `FORBIDDEN`, `isError`, `status: 403`), so clients that read
 * the body and clients that read the HTTP status both understand it.
 */
export function insufficientScopeBody(id: JsonRpcId, tool: string) {
  const error = {
    code: "FORBIDDEN",
    message: `Cannot call ${tool}: the access token has scope "read" and this tool needs "write"`,
    details: {
      requiredScope: "write",
      recovery: recovery(
        "REPAIR",
        "GET /oauth/authorize",
        "Reconnect this MCP server and approve write access (scope=write); viewers can only get read access",
      ),
    },
    status: 403,
  };
  return {
    jsonrpc: "2.0" as const,
    id,
    result: { content: [{ type: "text", text: JSON.stringify(error) }], isError: true },
  };
}

export type JsonRpcId = string | number | null;

/** A JSON-RPC error response that refuses the request before any MCP processing. */
export function jsonRpcError(code: number, message: string, id: JsonRpcId = null) {
  return { jsonrpc: "2.0" as const, id, error: { code, message } };
}

/** JSON-RPC 2.0 codes used by the gate. */
export const JSONRPC = { parseError: -32700, invalidRequest: -32600, serverError: -32000 } as const;

/** True when the `MCP-Protocol-Version` header is absent or names a version this server speaks. */
export function protocolVersionSupported(value: string | undefined): boolean {
  return value === undefined || SUPPORTED_PROTOCOL_VERSIONS.includes(value);
}

export { SUPPORTED_PROTOCOL_VERSIONS };

/**
 * The write tool a JSON-RPC message calls, if any: `{ method: "tools/call", params: { name } }` where the
 * named tool's scope is `write`. Returns its request id too.
 */
export function writeToolCalled(
  message: unknown,
  tools: readonly Pick<ToolDefinition, "name" | "scope">[],
): { tool: string; id: JsonRpcId } | null {
  if (typeof message !== "object" || message === null) return null;
  const { method, params, id } = message as { method?: unknown; params?: unknown; id?: unknown };
  if (method !== "tools/call" || typeof params !== "object" || params === null) return null;
  const name = (params as { name?: unknown }).name;
  const def = tools.find((tool) => tool.name === name);
  if (!def || def.scope !== "write") return null;
  return { tool: def.name, id: typeof id === "string" || typeof id === "number" ? id : null };
}
