import { audienceOf, issuerOf } from "./access-token.ts";

import { OAUTH_SCOPES } from "@/shared/vocabulary.ts";

export { OAUTH_SCOPES };

/**
 * Authorization server metadata (RFC 8414), `GET /.well-known/oauth-authorization-server`. Addresses per
 * the operator contract (`{auth_url}` = PUBLIC_URL). OAUTH-009: the full field list is this one.
 */
export function authServerMetadata(publicUrl: string) {
  const issuer = issuerOf(publicUrl);
  return {
    issuer,
    authorization_endpoint: `${issuer}/oauth/authorize`,
    token_endpoint: `${issuer}/api/oauth/token`,
    registration_endpoint: `${issuer}/api/oauth/register`,
    revocation_endpoint: `${issuer}/api/oauth/revoke`,
    jwks_uri: `${issuer}/api/oauth/jwks`,
    scopes_supported: [...OAUTH_SCOPES],
    response_types_supported: ["code"],
    response_modes_supported: ["query"],
    grant_types_supported: ["authorization_code", "refresh_token"],
    token_endpoint_auth_methods_supported: ["none"],
    revocation_endpoint_auth_methods_supported: ["none"],
    code_challenge_methods_supported: ["S256"],
    authorization_response_iss_parameter_supported: true,
    service_documentation: `${issuer}/docs`,
  };
}

/**
 * Protected resource metadata (RFC 9728) of the tool server, at `/.well-known/oauth-protected-resource`
 * and `/.well-known/oauth-protected-resource/mcp` (same content).
 */
export function protectedResourceMetadata(publicUrl: string) {
  return {
    resource: audienceOf(publicUrl),
    authorization_servers: [issuerOf(publicUrl)],
    bearer_methods_supported: ["header"],
    scopes_supported: [...OAUTH_SCOPES],
    resource_documentation: `${issuerOf(publicUrl)}/docs`,
  };
}
