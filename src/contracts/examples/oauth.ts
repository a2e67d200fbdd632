import type { ExampleTable } from "./types.ts";

/**
 * Request and response examples of OAuth.
 * Recorded from a real run of the service (ids, tokens and times as it issues them; lists cut to three
 * items), then kept by hand. tests/openapi.test.ts validates each against its schema.
 */
export const oauthExamples: ExampleTable = {
  "GET /.well-known/oauth-authorization-server": {
    responses: {
      200: {
        issuer: "http://localhost:8787",
        authorization_endpoint: "http://localhost:8787/oauth/authorize",
        token_endpoint: "http://localhost:8787/api/oauth/token",
        registration_endpoint: "http://localhost:8787/api/oauth/register",
        revocation_endpoint: "http://localhost:8787/api/oauth/revoke",
        jwks_uri: "http://localhost:8787/api/oauth/jwks",
        scopes_supported: [
          "read",
          "write",
        ],
        response_types_supported: [
          "code",
        ],
        response_modes_supported: [
          "query",
        ],
        grant_types_supported: [
          "authorization_code",
          "refresh_token",
        ],
        token_endpoint_auth_methods_supported: [
          "none",
        ],
        revocation_endpoint_auth_methods_supported: [
          "none",
        ],
        code_challenge_methods_supported: [
          "S256",
        ],
        authorization_response_iss_parameter_supported: true,
        service_documentation: "http://localhost:8787/docs",
      },
      500: {
        error: "server_error",
        error_description: "Unexpected failure",
      },
    },
  },
  "GET /.well-known/oauth-protected-resource": {
    responses: {
      200: {
        resource: "http://localhost:8787/mcp",
        authorization_servers: [
          "http://localhost:8787",
        ],
        bearer_methods_supported: [
          "header",
        ],
        scopes_supported: [
          "read",
          "write",
        ],
        resource_documentation: "http://localhost:8787/docs",
      },
      500: {
        error: "server_error",
        error_description: "Unexpected failure",
      },
    },
  },
  "GET /.well-known/oauth-protected-resource/mcp": {
    responses: {
      200: {
        resource: "http://localhost:8787/mcp",
        authorization_servers: [
          "http://localhost:8787",
        ],
        bearer_methods_supported: [
          "header",
        ],
        scopes_supported: [
          "read",
          "write",
        ],
        resource_documentation: "http://localhost:8787/docs",
      },
      500: {
        error: "server_error",
        error_description: "Unexpected failure",
      },
    },
  },
  "GET /api/oauth/jwks": {
    responses: {
      200: {
        keys: [
          {
            kty: "RSA",
            "n":
              "5LQJxZes-LLCkL-n8TVRrUFZ6jSBlB0WLa2r6NSMMAPasMMBwDJCv2WMZFsSi_yzK7-FqSelkF7FZMszf4lUF1YzkFIJSdyMYoDpWiVlBb7F0qz9Py76vNZ4Xh1EFqvD_aEcI6ONpYe7fMNZ9NpvgM_j8tWjJj50wE7m55ZW9CJZZ33fLhibmhVGCn1seiJ1q3gaz5g_FnTUm-WY4TckvOX5HwGnXrOQfIZb9sJ29aEod7smPkyduQkVpVLxguSDzVyhaTMzRxWiXI_1MuBq5I9f9zDVRYcIDHUVdJN3au0L8NHhVQq1aiSRpFG34ZbpeBR3EoTxqCgMmseC1g_Xww",
            e: "AQAB",
            kid: "MVQJo8KcTcB9c6u_iOy_BjdtMkgeuBX8BJGyk31nHR4",
            use: "sig",
            alg: "RS256",
          },
        ],
      },
      500: {
        error: "server_error",
        error_description: "Unexpected failure",
      },
    },
  },
  "POST /api/oauth/register": {
    request: {
      redirect_uris: [
        "http://127.0.0.1:33418/callback",
      ],
      client_name: "Claude Code",
    },
    responses: {
      201: {
        client_id: "svc_client_xzALUgUIGEw8JoAAV2_gwiLa",
        client_id_issued_at: 1795734124,
        client_name: "Claude Code",
        redirect_uris: [
          "http://127.0.0.1:33418/callback",
        ],
        grant_types: [
          "authorization_code",
          "refresh_token",
        ],
        response_types: [
          "code",
        ],
        token_endpoint_auth_method: "none",
        scope: "read write",
      },
      400: {
        error: "invalid_redirect_uri",
        error_description: 'redirect_uris[0]: scheme "javascript" is not allowed',
      },
    },
  },
  "POST /api/oauth/token": {
    responses: {
      400: {
        error: "invalid_grant",
        error_description: "The refresh token is invalid",
      },
      200: {
        "access_token":
          "eyJhbGciOiJSUzI1NiIsInR5cCI6ImF0K2p3dCIsImtpZCI6IjIwMjYtMTEtMjYifQ.eyJpc3MiOiJodHRwOi8vbG9jYWxob3N0Ojg3ODciLCJhdWQiOiJodHRwOi8vbG9jYWxob3N0Ojg3ODcvbWNwIiwic2NvcGUiOiJ3cml0ZSJ9.c2lnbmF0dXJlLW9mLXRoZS1hY2Nlc3MtdG9rZW4",
        token_type: "Bearer",
        expires_in: 3600,
        refresh_token: "svc_rt_Xq2vD0mZf1kQ8sL3wE7pR5tY9uI4oA6hJ0bN2cV8gK1",
        scope: "write",
      },
    },
    request: {
      grant_type: "authorization_code",
      code: "svc_ac_hT3kP9wQ2mZ7vR1xC5nB8dF0gJ4sL6yE2uA9oI3tW7q",
      redirect_uri: "http://127.0.0.1:33418/callback",
      code_verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk",
      client_id: "svc_client_xzALUgUIGEw8JoAAV2_gwiLa",
    },
  },
  "POST /api/oauth/revoke": {
    request: {
      token: "svc_rt_jCT-uN2zvJQsHdN2KHBfDODd8a6r2oeyLrHuSmP-RjB",
      token_type_hint: "refresh_token",
    },
    responses: {
      200: {},
      400: {
        error: "invalid_request",
        error_description: "Missing parameter token",
      },
    },
  },
  "GET /oauth/authorize": {
    responses: {
      200:
        '<!doctype html>\n<html lang="en">\n<head>\n  <meta charset="utf-8">\n  <meta name="viewport" content="width=device-width, initial-scale=1">\n  <meta name="referrer" content="no-referrer">\n  <title>Sign in</title>\n</head>\n<body>\n  <h1>Sign in</h1>\n  <p>Sign in to connect an application to your projects.</p>\n  <form method="post" action="/oauth/authorize">\n      <input type="hidden" name="response_type" value="code">\n      <input type="hidden" name="client_id" value="svc_client_xzALUgUIGEw8JoAAV2_gwiLa">\n      <input type="hidden" name="redirect_uri" value="http:&#47;&#47;127.0.0.1:33418&#47;callback">\n      <input type="hidden" name="code_challenge" value="E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM">\n      <input type="hidden" name="code_challenge_method" value="S256">\n      <input type="hidden" name="scope" value="read write">\n      <input type="hidden" name="state" value="af0ifjsldkj">\n      <input type="hidden" name="csrf_token" value="35410984418a60fb7fd9b4c2aeb2424f1df1410f14515ffc9a501b54e69a9ad3">\n      <input type="hidden" name="action" value="signin">\n      <label for="email">Email</label>\n      <input id="email" name="email" type="email" autocomplete="username" required value="">\n      <label for="password">Password</label>\n      <input id="password" name="password" type="password" autocomplete="current-password" required>\n      <button type="submit">Sign in</button>\n  </form>\n</body>\n</html>\n',
      400:
        '<!doctype html>\n<html lang="en">\n<head>\n  <meta charset="utf-8">\n  <meta name="viewport" content="width=device-width, initial-scale=1">\n  <meta name="referrer" content="no-referrer">\n  <title>Authorization error</title>\n</head>\n<body>\n  <h1>Authorization request refused</h1>\n  <p>This authorization request cannot be completed: the application is unknown or its redirect address is\n  not registered. You were not redirected. Close this page and connect again from your application.</p>\n</body>\n</html>\n',
    },
  },
  "POST /oauth/authorize": {
    request: {
      response_type: "code",
      client_id: "svc_client_xzALUgUIGEw8JoAAV2_gwiLa",
      redirect_uri: "http://127.0.0.1:33418/callback",
      code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
      code_challenge_method: "S256",
      scope: "read write",
      state: "af0ifjsldkj",
    },
    responses: {
      400:
        '<!doctype html>\n<html lang="en">\n<head>\n  <meta charset="utf-8">\n  <meta name="viewport" content="width=device-width, initial-scale=1">\n  <meta name="referrer" content="no-referrer">\n  <title>Authorization error</title>\n</head>\n<body>\n  <h1>Authorization request refused</h1>\n  <p>This authorization request cannot be completed: the application is unknown or its redirect address is\n  not registered. You were not redirected. Close this page and connect again from your application.</p>\n</body>\n</html>\n',
    },
  },
};
