import { jsonResponse } from "@/contracts/common.ts";
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Hono } from "hono";
import {
  AuthServerMetadata,
  JsonWebKeySet,
  OAuthError,
  ProtectedResourceMetadata,
} from "@/contracts/oauth-metadata.ts";
import { publicJwks } from "@/domain/oauth/keys.ts";
import { authServerMetadata, protectedResourceMetadata } from "@/domain/oauth/metadata.ts";
import { type AppEnv, serviceCtx } from "@/http/env.ts";
import { defineOAuthRoute, documentOAuthRoutes, mountOAuthRoute } from "@/http/oauth-route.ts";

const oauthErrors = {
  400: jsonResponse(OAuthError, "Malformed request ({ error, error_description })"),
  500: jsonResponse(OAuthError, "Server error ({ error: server_error, error_description })"),
};
/** These live outside `{base_url}`: each operation names the origin as its server. */
const ORIGIN = [{ url: "/", description: "{auth_url} / {mcp_origin} (PUBLIC_URL)" }];
const PUBLIC = { security: [], servers: ORIGIN, tags: ["OAuth"], "x-svc-cost": 0 as const };

export const authServerMetadataRoute = defineOAuthRoute({
  ...PUBLIC,
  method: "get",
  path: "/.well-known/oauth-authorization-server",
  summary: "Authorization server metadata (RFC 8414)",
  description:
    "No credentials, not rate limited (cost 0). OAUTH-008/009: issuer = {auth_url}; PKCE S256 only; " +
    "public clients only (token_endpoint_auth_method none); RFC 9207 iss on the authorization response.",
  responses: { 200: jsonResponse(AuthServerMetadata, "The metadata"), ...oauthErrors },
});

export const jwksRoute = defineOAuthRoute({
  ...PUBLIC,
  method: "get",
  path: "/api/oauth/jwks",
  summary: "Signing keys (JWK Set)",
  description: "No credentials, not rate limited (cost 0). OAUTH-010: the public half of every signing key " +
    "whose access tokens may still be live: the current key and keys retired less than one access-token " +
    "lifetime (1 hour, plus 60 seconds of grace) ago. Rotate with POST /admin/keys/rotate.",
  responses: { 200: jsonResponse(JsonWebKeySet, "The keys"), ...oauthErrors },
});

/** Both addresses of the protected resource metadata answer the same document. */
export const protectedResourceRoutes = [
  "/.well-known/oauth-protected-resource",
  "/.well-known/oauth-protected-resource/mcp",
].map((path) =>
  defineOAuthRoute({
    ...PUBLIC,
    method: "get",
    path,
    summary: "Protected resource metadata of the tool server (RFC 9728)",
    description:
      "No credentials, not rate limited (cost 0). OAUTH-011: resource = {mcp_url}; both addresses " +
      "answer the same document.",
    responses: { 200: jsonResponse(ProtectedResourceMetadata, "The metadata"), ...oauthErrors },
  })
);

/** Publishes the metadata and JWKS operations in the OpenAPI document, from their route objects. */
export function documentOAuthMetadata(registry: OpenAPIHono<AppEnv>["openAPIRegistry"]): void {
  documentOAuthRoutes(registry, [authServerMetadataRoute, jwksRoute, ...protectedResourceRoutes]);
}

/** Serves the discovery documents and the JWKS at the operator contract's addresses. */
export function registerOAuthMetadata(app: Hono<AppEnv>): void {
  const cache = { "Cache-Control": "public, max-age=300" };
  mountOAuthRoute(app, authServerMetadataRoute, (c) => {
    return Promise.resolve(c.json(authServerMetadata(c.get("deps").config.publicUrl), 200, cache));
  });
  for (const route of protectedResourceRoutes) {
    mountOAuthRoute(
      app,
      route,
      (c) => Promise.resolve(c.json(protectedResourceMetadata(c.get("deps").config.publicUrl), 200, cache)),
    );
  }
  mountOAuthRoute(app, jwksRoute, async (c) => {
    // Short cache: a rotation must reach verifiers that fetch the set (ours verify from the database).
    return c.json(await publicJwks(serviceCtx(c.get("deps"))), 200, {
      "Cache-Control": "public, max-age=60",
    });
  });
}
