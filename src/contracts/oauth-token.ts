import { z } from "@hono/zod-openapi";
import { OAUTH_SCOPES } from "@/shared/vocabulary.ts";

/** `POST /api/oauth/token` parameters (JSON object or form-encoded; all values strings). */
export const OAuthTokenRequest = z.object({
  grant_type: z.string().openapi({
    description: "`authorization_code` or `refresh_token`; any other value is `unsupported_grant_type`",
  }),
  code: z.string().optional().openapi({
    description: "authorization_code: the code (`svc_ac_...`), single use",
  }),
  redirect_uri: z.string().optional().openapi({
    description: "authorization_code: exactly the value sent to authorize",
  }),
  code_verifier: z.string().optional().openapi({
    description:
      "authorization_code: PKCE verifier, 43 to 128 characters of A-Z a-z 0-9 - . _ ~ (S256 check)",
  }),
  client_id: z.string().optional().openapi({
    description: "The client of the authorization (omitted only when authorize had no client_id)",
  }),
  refresh_token: z.string().optional().openapi({
    description: "refresh_token: the refresh token (`svc_rt_...`)",
  }),
  scope: z.string().optional().openapi({
    description: "refresh_token: optional, the scope asked for; more than was granted is `invalid_scope` " +
      "(RFC 6749 section 6), the same or less is granted as asked",
  }),
  resource: z.string().optional().openapi({
    description:
      "Optional (RFC 8707): must name this service's tool server (`{mcp_url}`, with or without a " +
      "trailing slash, or `{auth_url}`); anything else is `invalid_target`",
  }),
}).openapi("OAuthTokenRequest");

export const OAuthTokenResponse = z.object({
  access_token: z.string().openapi({ description: "RS256 JWT (`typ: at+jwt`), 1 hour" }),
  token_type: z.literal("Bearer"),
  expires_in: z.number().int().openapi({ example: 3600 }),
  refresh_token: z.string().openapi({ description: "`svc_rt_...`, rotates on every use" }),
  scope: z.enum(OAUTH_SCOPES),
}).openapi("OAuthTokenResponse");

/** `POST /api/oauth/revoke` parameters (RFC 7009; JSON object or form-encoded). */
export const OAuthRevokeRequest = z.object({
  token: z.string().openapi({ description: "An access token or a refresh token" }),
  token_type_hint: z.string().optional().openapi({
    description: "`access_token` or `refresh_token`; optional and only a hint",
  }),
  client_id: z.string().optional().openapi({
    description: "The client presenting the token (RFC 7009 section 2.1). When sent and the token was not " +
      "issued to this client, nothing is revoked (the answer is still `200 {}`)",
  }),
}).openapi("OAuthRevokeRequest");

export const OAuthRevokeResponse = z.object({}).openapi("OAuthRevokeResponse");

export const OAuthErrorBody = z.object({
  error: z.string().openapi({
    description: "`invalid_request`, `invalid_grant`, `unsupported_grant_type`, `invalid_scope`, " +
      "`invalid_target` or `temporarily_unavailable`",
  }),
  error_description: z.string(),
}).openapi("OAuthTokenError");
