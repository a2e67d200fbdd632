import type { OpenAPIHono } from "@hono/zod-openapi";
import { type Context, Hono } from "hono";
import { defineOAuthRoute, documentOAuthRoutes, mountOAuthRoute, validatedBody } from "@/http/oauth-route.ts";
import { MAX_BODY_BYTES } from "@/contracts/common.ts";
import {
  OAuthErrorBody,
  OAuthRevokeRequest,
  OAuthRevokeResponse,
  OAuthTokenRequest,
  OAuthTokenResponse,
} from "@/contracts/oauth-token.ts";
import { isDatabaseUnavailable } from "@/db/unavailable.ts";
import { OAuthError } from "@/domain/oauth/errors.ts";
import { exchangeToken, revokeToken, type TokenParams } from "@/domain/oauth/token.ts";
import { type AppEnv, serviceCtx } from "@/http/env.ts";
import { unstorableReason } from "@/http/text-guard.ts";

type OpenAPIRegistry = OpenAPIHono<AppEnv>["openAPIRegistry"];

const NO_STORE = { "Cache-Control": "no-store", Pragma: "no-cache" };

function refuse(description: string): OAuthError {
  return new OAuthError("invalid_request", description, 400);
}

/** The parameters of a JSON object or form-encoded body; anything else is `invalid_request`. */
async function readParams(c: Context<AppEnv>): Promise<TokenParams> {
  const type = (c.req.header("content-type") ?? "").toLowerCase();
  const text = await c.req.text();
  let params: TokenParams;
  if (/^application\/x-www-form-urlencoded\s*(;|$)/.test(type)) {
    params = {};
    for (const [name, value] of new URLSearchParams(text)) {
      if (name in params) throw refuse(`Parameter ${name} is repeated`);
      params[name] = value;
    }
  } else if (/^application\/([a-z0-9.+-]*\+)?json\s*(;|$)/.test(type)) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw refuse("The body is not valid JSON");
    }
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
      throw refuse("The body must be a JSON object");
    }
    params = parsed as TokenParams;
  } else {
    throw refuse("Content-Type must be application/x-www-form-urlencoded or application/json");
  }
  for (const [name, value] of Object.entries(params)) {
    const reason = unstorableReason(name) ?? (typeof value === "string" ? unstorableReason(value) : null);
    if (reason) throw refuse(`Parameter ${name}: ${reason}`);
  }
  return params;
}

/** Renders OAuth refusals flat (`{ error, error_description }`); an unreachable database is a 503. */
function oauthFailure(c: Context<AppEnv>, err: unknown): Response {
  if (err instanceof OAuthError) {
    return c.json({ error: err.error, error_description: err.description }, err.status as 400, NO_STORE);
  }
  if (isDatabaseUnavailable(err)) {
    return c.json(
      { error: "temporarily_unavailable", error_description: "The service is temporarily unavailable" },
      503,
      { ...NO_STORE, "Retry-After": "5" },
    );
  }
  throw err;
}

const errorContent = { "application/json": { schema: OAuthErrorBody } };
const bodyContent = <T>(schema: T) => ({
  "application/x-www-form-urlencoded": { schema },
  "application/json": { schema },
});

/** These live at `{auth_url}` (the origin), outside `{base_url}`: each operation names the origin as its server. */
const ORIGIN = [{ url: "/", description: "{auth_url} (PUBLIC_URL)" }];

export const oauthTokenRoute = defineOAuthRoute({
  method: "post",
  path: "/api/oauth/token",
  servers: ORIGIN,
  tags: ["OAuth"],
  summary: "Exchange an authorization code or a refresh token (OAuth 2.1)",
  description:
    `No bearer token. Body form-encoded or JSON, in the RFC 6749 shapes (flat JSON, not the envelope).

**authorization_code**: \`code\` (single use, 60 s), \`redirect_uri\` and \`client_id\` exactly as at authorize
(a non-loopback redirect must still be registered for the client), \`code_verifier\` (43 to 128 characters,
S256 check against the challenge). A code presented a second time answers \`invalid_grant\` and revokes every
token issued from its first use (the refresh-token family and the access token issued with it).

**refresh_token**: \`refresh_token\` (\`svc_rt_...\`) and \`client_id\`. Every refresh consumes the token and
returns a new one; the family lives 30 days from the code exchange and rotation never extends it. A used token
or a \`client_id\` mismatch answers \`invalid_grant\` and revokes the whole family. Each refresh re-checks that the
organization is active, the project exists and is active and the user is still a member (else \`invalid_grant\`),
and re-applies the viewer cap (viewers get \`read\`). An optional \`scope\` (RFC 6749 section 6) asks for
\`read\` or \`write\`: more than was granted at consent (\`write\` on a \`read\` grant) answers \`invalid_scope\`
and consumes nothing; less is issued as asked for this access token (the refresh token keeps the grant's scope).

An optional \`resource\` (RFC 8707, either grant) must be \`{mcp_url}\` (with or without a trailing slash) or
\`{auth_url}\`, else \`invalid_target\`.

Concurrent redemptions of one code or refreshes of one token: exactly one succeeds (the code or token is
consumed by a conditional update in the transaction that stores the new refresh token); the others are
replays and revoke the family, so there is never more than one live refresh token.

Responses carry \`Cache-Control: no-store\` and \`Pragma: no-cache\`. Errors \`{ error, error_description }\`:
\`invalid_request\` (400: missing or repeated parameter, malformed verifier, unsupported content type),
\`invalid_grant\` (400: invalid, expired or used code or refresh token, redirect_uri or client_id mismatch, PKCE
failure, authorization no longer valid), \`unsupported_grant_type\` (400), \`invalid_scope\` (400, extension:
refresh asking for more scope than granted), \`invalid_target\` (400, extension: another \`resource\`),
\`temporarily_unavailable\` (503).`,
  security: [],
  request: { body: { required: true, content: bodyContent(OAuthTokenRequest) } },
  responses: {
    200: { description: "Tokens", content: { "application/json": { schema: OAuthTokenResponse } } },
    400: {
      description: "invalid_request, invalid_grant, unsupported_grant_type, invalid_scope, invalid_target",
      content: errorContent,
    },
    413: {
      description: `invalid_request: body over ${MAX_BODY_BYTES / 1024 / 1024} MiB`,
      content: errorContent,
    },
    500: { description: "Unexpected failure" },
    503: { description: "temporarily_unavailable", content: errorContent },
  },
  "x-svc-cost": 0,
});

export const oauthRevokeRoute = defineOAuthRoute({
  method: "post",
  path: "/api/oauth/revoke",
  servers: ORIGIN,
  tags: ["OAuth"],
  summary: "Revoke an access token or a refresh-token family (RFC 7009)",
  description: `No bearer token. Body \`token\` (+ optional \`token_type_hint\`), form-encoded or JSON.
Answers \`200 {}\` for any token, recognised or not. A refresh token revokes its whole family (no token of it
can be refreshed afterwards; access tokens already issued stay valid until they expire). A valid access token
(design; the spec is silent) is recorded by its \`jti\` until it would expire, and is refused afterwards, by REST
and by \`/mcp\` alike. With \`client_id\` (RFC 7009 section 2.1), a token issued to another client (or to none)
is left alone: the answer is the same \`200 {}\` and nothing is revoked.
Errors: \`invalid_request\` (400: no \`token\`, unsupported content type), \`temporarily_unavailable\` (503).`,
  security: [],
  request: { body: { required: true, content: bodyContent(OAuthRevokeRequest) } },
  responses: {
    200: {
      description: "Revoked (or unknown)",
      content: { "application/json": { schema: OAuthRevokeResponse } },
    },
    400: { description: "invalid_request", content: errorContent },
    413: {
      description: `invalid_request: body over ${MAX_BODY_BYTES / 1024 / 1024} MiB`,
      content: errorContent,
    },
    500: { description: "Unexpected failure" },
    503: { description: "temporarily_unavailable", content: errorContent },
  },
  "x-svc-cost": 0,
});

/** `POST /api/oauth/token` and `POST /api/oauth/revoke`, at their routes' paths (mounted at the origin). */
export function oauthTokenRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  mountOAuthRoute(app, oauthTokenRoute, async (c) => {
    try {
      const params = validatedBody(oauthTokenRoute, await readParams(c), "invalid_request");
      const result = await exchangeToken(serviceCtx(c.get("deps")), params);
      return c.json(result, 200, NO_STORE);
    } catch (err) {
      return oauthFailure(c, err);
    }
  });
  mountOAuthRoute(app, oauthRevokeRoute, async (c) => {
    try {
      const params = validatedBody(oauthRevokeRoute, await readParams(c), "invalid_request");
      await revokeToken(serviceCtx(c.get("deps")), params);
      return c.json({}, 200, NO_STORE);
    } catch (err) {
      return oauthFailure(c, err);
    }
  });
  return app;
}

/** Documents both endpoints in the OpenAPI document, from their route objects. */
export function documentOAuthTokenRoutes(registry: OpenAPIRegistry): void {
  documentOAuthRoutes(registry, [oauthTokenRoute, oauthRevokeRoute]);
}
