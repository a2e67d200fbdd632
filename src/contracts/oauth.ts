import { z } from "@hono/zod-openapi";
import { OAUTH_GRANT_TYPES } from "@/shared/vocabulary.ts";

/** `POST /api/oauth/register` body (RFC 7591 client metadata; public clients only). */
export const OAuthRegisterRequest = z.object({
  redirect_uris: z.array(z.string()).openapi({
    description: "1 to 10: `https` URLs, loopback `http` URLs on `localhost`, `127.0.0.1` or `[::1]`, or " +
      "private-use schemes (`com.example.app:/cb`). Refused: fragments, embedded credentials, whitespace or " +
      "control characters, and the schemes `javascript`, `data`, `file`, `vbscript`, `blob`, `about`, " +
      "`filesystem`, `view-source`, `ws`, `wss`, `ftp`, `mailto`, `tel`, `sms` (any letter case).",
    example: ["http://127.0.0.1:33418/callback"],
  }),
  client_name: z.string().optional().openapi({
    description: "Shown on the consent page as unverified; truncated to 100 characters",
  }),
  token_endpoint_auth_method: z.literal("none").optional(),
  grant_types: z.array(z.enum(OAUTH_GRANT_TYPES)).optional(),
  response_types: z.array(z.literal("code")).optional(),
}).openapi("OAuthRegisterRequest");

export const OAuthClient = z.object({
  client_id: z.string().openapi({ example: "svc_client_xzALUgUIGEw8JoAAV2_gwiLa" }),
  client_id_issued_at: z.number().int().openapi({ description: "Unix seconds" }),
  client_name: z.string(),
  redirect_uris: z.array(z.string()),
  grant_types: z.tuple([z.literal("authorization_code"), z.literal("refresh_token")]),
  response_types: z.tuple([z.literal("code")]),
  token_endpoint_auth_method: z.literal("none"),
  scope: z.literal("read write"),
}).openapi("OAuthClient");

export const OAuthRegisterError = z.object({
  error: z.string().openapi({
    description: "`invalid_redirect_uri`, `invalid_client_metadata`, `slow_down` (429) or " +
      "`temporarily_unavailable` (503)",
  }),
  error_description: z.string(),
}).openapi("OAuthRegisterError");

/** `GET /oauth/authorize` query (the form posts carry the same fields as hidden inputs). */
export const OAuthAuthorizeQuery = z.object({
  response_type: z.string().openapi({ description: "`code`" }),
  client_id: z.string().optional().openapi({ description: "Required unless the redirect is loopback" }),
  redirect_uri: z.string(),
  code_challenge: z.string().openapi({ description: "S256 challenge, 43 to 128 base64url characters" }),
  code_challenge_method: z.string().optional().openapi({ description: "Only `S256` (the default)" }),
  scope: z.string().optional().openapi({ description: "Space-delimited; containing `write` asks for write" }),
  state: z.string().optional(),
  resource: z.string().optional().openapi({
    description: "RFC 8707 resource indicator, optional: `{mcp_url}` (with or without a trailing slash) or " +
      "`{auth_url}`; any other value is redirected back with `error=invalid_target`",
  }),
});
