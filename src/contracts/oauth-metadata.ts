import { z } from "@hono/zod-openapi";
import { OAUTH_GRANT_TYPES, OAUTH_SCOPES } from "@/shared/vocabulary.ts";

/** OAuth endpoints answer in RFC shapes (OAUTH-001/002): flat JSON, errors `{ error, error_description }`. */
export const OAuthError = z.object({
  error: z.string().openapi({ example: "invalid_request" }),
  error_description: z.string().optional(),
}).openapi("OAuthError");

export const AuthServerMetadata = z.object({
  issuer: z.string().openapi({ description: "{auth_url} (PUBLIC_URL)" }),
  authorization_endpoint: z.string(),
  token_endpoint: z.string(),
  registration_endpoint: z.string(),
  revocation_endpoint: z.string(),
  jwks_uri: z.string(),
  scopes_supported: z.array(z.enum(OAUTH_SCOPES)),
  response_types_supported: z.array(z.literal("code")),
  response_modes_supported: z.array(z.literal("query")),
  grant_types_supported: z.array(z.enum(OAUTH_GRANT_TYPES)),
  token_endpoint_auth_methods_supported: z.array(z.literal("none")),
  revocation_endpoint_auth_methods_supported: z.array(z.literal("none")),
  code_challenge_methods_supported: z.array(z.literal("S256")),
  authorization_response_iss_parameter_supported: z.literal(true),
  service_documentation: z.string(),
}).openapi("OAuthAuthorizationServerMetadata");

export const ProtectedResourceMetadata = z.object({
  resource: z.string().openapi({ description: "{mcp_url} (PUBLIC_URL/mcp)" }),
  authorization_servers: z.array(z.string()),
  bearer_methods_supported: z.array(z.literal("header")),
  scopes_supported: z.array(z.enum(OAUTH_SCOPES)),
  resource_documentation: z.string(),
}).openapi("OAuthProtectedResourceMetadata");

export const JsonWebKeySet = z.object({
  keys: z.array(z.object({
    kty: z.literal("RSA"),
    n: z.string(),
    e: z.string(),
    kid: z.string(),
    use: z.literal("sig"),
    alg: z.literal("RS256"),
  })),
}).openapi("JsonWebKeySet");
