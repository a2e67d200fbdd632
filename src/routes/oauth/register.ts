import { jsonResponse, MAX_BODY_BYTES } from "@/contracts/common.ts";
import type { OpenAPIHono } from "@hono/zod-openapi";
import { Hono } from "hono";
import {
  OAuthAuthorizeQuery,
  OAuthClient,
  OAuthRegisterError,
  OAuthRegisterRequest,
} from "@/contracts/oauth.ts";
import type { AppEnv } from "@/http/env.ts";
import { serviceCtx } from "@/http/env.ts";
import { clientAddress } from "@/http/client-address.ts";
import { MAX_REDIRECT_URIS, registerClient } from "@/domain/oauth/clients.ts";
import { OAuthError } from "@/domain/oauth/errors.ts";
import { withExamples } from "@/contracts/examples/index.ts";
import { defineOAuthRoute, mountOAuthRoute, parsedBody } from "@/http/oauth-route.ts";
import { loggableError } from "@/shared/log-safe.ts";

type OpenAPIRegistry = OpenAPIHono<AppEnv>["openAPIRegistry"];

/** `POST /api/oauth/register`: dynamic client registration (RFC 7591), flat JSON, OAuth errors. */
export function registerApp(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  mountOAuthRoute(app, oauthRegisterRoute, async (c) => {
    c.header("Cache-Control", "no-store");
    try {
      const type = c.req.header("content-type") ?? "";
      if (!/^application\/([a-z0-9.+-]*\+)?json\s*(;|$)/i.test(type)) {
        throw new OAuthError(
          "invalid_client_metadata",
          "The body must be JSON (Content-Type: application/json)",
        );
      }
      let body: unknown;
      try {
        body = JSON.parse(await c.req.text());
      } catch {
        throw new OAuthError("invalid_client_metadata", "The body must be JSON");
      }
      const client = await registerClient(
        serviceCtx(c.get("deps")),
        clientAddress(c),
        body,
        (meta) => parsedBody(oauthRegisterRoute, meta, registrationRefusal),
      );
      return c.json(client, 201);
    } catch (err) {
      if (err instanceof OAuthError) {
        if (err.retryAfterSeconds !== undefined) c.header("Retry-After", String(err.retryAfterSeconds));
        return c.json({ error: err.error, error_description: err.description }, err.status as 400);
      }
      console.error("oauth register failed:", loggableError(err));
      c.header("Retry-After", "5");
      return c.json(
        { error: "temporarily_unavailable", error_description: "Registration is temporarily unavailable" },
        503,
      );
    }
  });
  return app;
}

/**
 * The OAuth refusal of a body the registration schema rejects: a `redirect_uris` problem is
 * `invalid_redirect_uri`, any other `invalid_client_metadata`, reported for the first field in the order
 * the checks have always run (redirect URIs, auth method, grant types, response types, name).
 */
function registrationRefusal(issues: readonly { path: readonly PropertyKey[] }[]): OAuthError {
  const fields = new Set(issues.map((issue) => issue.path[0]));
  if (fields.has("redirect_uris")) {
    const at = issues.find((issue) => issue.path[0] === "redirect_uris")?.path[1];
    return new OAuthError(
      "invalid_redirect_uri",
      typeof at === "number"
        ? `redirect_uris[${at}] is not a string`
        : `redirect_uris must be an array of 1 to ${MAX_REDIRECT_URIS} URIs`,
    );
  }
  const message = REGISTRATION_FIELD_ERRORS.find(([field]) => fields.has(field))?.[1] ??
    "The body must be a JSON object";
  return new OAuthError("invalid_client_metadata", message);
}

const REGISTRATION_FIELD_ERRORS: [string, string][] = [
  ["token_endpoint_auth_method", 'Only public clients: token_endpoint_auth_method must be "none"'],
  ["grant_types", "grant_types may hold only authorization_code and refresh_token"],
  ["response_types", "response_types may hold only code"],
  ["client_name", "client_name must be a string"],
];

const html = (description: string) => ({
  description,
  content: { "text/html": { schema: { type: "string" } } },
});
/** These live outside `{base_url}`: each operation names the origin as its server. */
const ORIGIN = [{ url: "/", description: "{auth_url} (PUBLIC_URL)" }];
const PUBLIC = { security: [], servers: ORIGIN, tags: ["OAuth"], "x-svc-cost": 0 as const };

const AUTHORIZE_RULES =
  `Validation, in order (OAUTH-024..036): the redirect first. With \`client_id\`, the client must exist and
\`redirect_uri\` must equal one of its registered URIs as a raw string (no normalization: upper-case host,
\`:443\`, trailing slash, added query, dot segments and encoded characters all differ); a loopback \`http\` redirect
(\`localhost\`, \`127.0.0.1\`, \`[::1]\`) matches a registered loopback URI on any port (RFC 8252). Without
\`client_id\` only a loopback redirect is accepted. An unknown client, a missing, malformed or unregistered redirect,
or a repeated parameter shows a fixed error page (400) and never redirects. Then, by redirect with
\`error\`, \`error_description\`, \`state\` and \`iss\`: \`response_type\` other than \`code\` (\`unsupported_response_type\`,
or \`invalid_request\` when missing); \`code_challenge\` missing or not 43 to 128 base64url characters, or
\`code_challenge_method\` other than \`S256\` (\`plain\` included) -> \`invalid_request\` (OAUTH-032, design); a
\`resource\` (RFC 8707) other than \`{mcp_url}\` (with or without a trailing slash) or \`{auth_url}\` ->
\`invalid_target\`. A loopback redirect without \`client_id\` must pass the registration rules too (no whitespace
or control character such as \`%0D%0A\`): otherwise the fixed error page, and nothing is stored.

Pages are server-rendered HTML without JavaScript, with \`Content-Security-Policy: default-src 'none';
style-src 'unsafe-inline'; img-src 'self'; frame-ancestors 'none'; base-uri 'none'\`, \`X-Frame-Options: DENY\`,
\`Cache-Control: no-store\`, \`Referrer-Policy: no-referrer\`.`;

/** `POST /api/oauth/register`'s contract: what the endpoint is served at and documented from. */
export const oauthRegisterRoute = defineOAuthRoute({
  ...PUBLIC,
  method: "post",
  path: "/api/oauth/register",
  summary: "Dynamic client registration (RFC 7591), public clients only",
  description:
    `No credentials. OAUTH-004/012..023. Answers flat JSON (not the envelope), \`Cache-Control: no-store\`.
Rate limited per client address: 20 registrations in 10 minutes, then \`429 slow_down\` with \`Retry-After\`.
Redirect URIs: \`https\`, loopback \`http\` (\`localhost\`, \`127.0.0.1\`, \`[::1]\`), or a private-use scheme named as
a reverse domain (\`com.example.app:/cb\`; RFC 8252 section 7.1, so \`myapp:/cb\` is refused; for compatibility a
dotless scheme whose authority is a dotted name, \`cursor://anysphere.cursor-retrieval/oauth/callback\`, is accepted).
Every error is \`{ error, error_description }\` (never the REST envelope, also for the checks every request
passes): \`invalid_redirect_uri\` (400: missing, not an array, 0 or more than 10 URIs, or a refused URI, one with
a NUL or another control character included), \`invalid_client_metadata\` (400: wrong content type, body not
JSON or not a JSON object, nested too deep, a confidential \`token_endpoint_auth_method\`, other grant or
response types, non-string \`client_name\`; 413: body too large), \`temporarily_unavailable\` (503).`,
  request: {
    body: { required: true, content: { "application/json": { schema: OAuthRegisterRequest } } },
  },
  responses: {
    201: jsonResponse(OAuthClient, "The registered client"),
    400: jsonResponse(OAuthRegisterError, "invalid_redirect_uri, invalid_client_metadata"),
    413: jsonResponse(
      OAuthRegisterError,
      `invalid_client_metadata: body over ${MAX_BODY_BYTES / 1024 / 1024} MiB`,
    ),
    429: jsonResponse(OAuthRegisterError, "slow_down (Retry-After)"),
    500: { description: "Unexpected failure" },
    503: jsonResponse(OAuthRegisterError, "temporarily_unavailable"),
  },
});

/** OpenAPI entries of registration and the consent page (they are plain Hono routes mounted at the origin). */
export function documentOAuthClientRoutes(registry: OpenAPIRegistry): void {
  registry.registerPath(oauthRegisterRoute as Parameters<OpenAPIRegistry["registerPath"]>[0]);
  registry.registerPath(
    withExamples({
      ...PUBLIC,
      method: "get",
      path: "/oauth/authorize",
      summary: "Sign-in and consent page (OAuth 2.1 authorization endpoint, PKCE S256)",
      description: `${AUTHORIZE_RULES}

Not signed in: a form with \`Email\`, \`Password\` and \`Sign in\`. Signed in (browser session cookie
\`svc_oauth_session\`, HttpOnly, SameSite=Lax, Secure when PUBLIC_URL is https, 12 hours): the client's name marked
unverified with its redirect host verbatim, the access asked for, a \`Project\` chooser (the user's active projects,
each with the access it would grant: \`write\` when asked and the membership is admin or member, else \`read\`;
viewers always \`read\`), when \`write\` was asked for a choice \`Read and write\` / \`Read only\` (form field \`access\`),
a \`New project name\` field, and \`Approve\` / \`Deny\`.`,
      request: { query: OAuthAuthorizeQuery },
      responses: {
        200: html("The sign-in or consent page"),
        303: { description: "Redirect to redirect_uri with error, error_description, state and iss" },
        400: html("Fixed error page (unknown client, unregistered or malformed redirect): never redirects"),
        500: { description: "Unexpected failure" },
      },
    }) as Parameters<OpenAPIRegistry["registerPath"]>[0],
  );
  registry.registerPath(
    withExamples({
      ...PUBLIC,
      method: "post",
      path: "/oauth/authorize",
      summary: "Form posts of the sign-in and consent page",
      description:
        `Form-encoded: the authorize parameters (re-validated as for GET), \`csrf_token\` and \`action\`.
Every form carries a per-form CSRF token derived from the browser cookie (the pre-session cookie
\`svc_oauth_pre\` for sign-in, the session cookie for consent) and the form's purpose; missing or wrong -> 403
page, nothing done.

\`action=signin\` with \`email\`, \`password\` (scrypt): success sets the session cookie and answers 303 back to
\`GET /oauth/authorize\`; failure answers 401 with one message for an unknown email and a wrong password. After
10 failed sign-ins from one address in 5 minutes every attempt answers 429 until the window ends.

\`action=approve\` with \`project_id\` (one of the user's projects) or \`new_project_name\` (1 to 100
characters; design: created in the organization of the user's oldest project where the user is admin, else in
a new \`free\` organization named after the user; the user becomes its admin; ticket prefix from the name's first
letters) and optional \`access\` (\`read\` grants read only; \`write\` or absent grants what was asked for, capped
for viewers; never \`write\` when only \`read\` was asked for): stores a code (\`svc_ac_...\`, stored as its SHA-256, 60 seconds, single use, OAUTH-039) and answers 303
to \`redirect_uri\` with \`code\`, \`state\` and \`iss\` (RFC 9207). \`action=deny\`: 303 with
\`error=access_denied\`, \`state\` and \`iss\`.`,
      request: {
        body: {
          required: true,
          content: { "application/x-www-form-urlencoded": { schema: OAuthAuthorizeQuery } },
        },
      },
      responses: {
        303: { description: "Redirect: back to the page after sign-in, or to redirect_uri (code or error)" },
        400: html("Fixed error page, or the consent page with an error (no project chosen)"),
        401: html("Sign-in failed (or the browser session expired)"),
        403: html("CSRF token missing or wrong"),
        429: html("Too many failed sign-ins from this address"),
        500: { description: "Unexpected failure" },
      },
    }) as Parameters<OpenAPIRegistry["registerPath"]>[0],
  );
}
