import assert from "node:assert/strict";
import { validatedBody } from "@/http/oauth-route.ts";
import { OAuthError } from "@/domain/oauth/errors.ts";
import { oauthRevokeRoute, oauthTokenRoute } from "@/routes/oauth/token.ts";
import { oauthRegisterRoute } from "@/routes/oauth/register.ts";
import { authServerMetadataRoute, jwksRoute, protectedResourceRoutes } from "@/routes/oauth/metadata.ts";
import { call, test } from "../helpers/mod.ts";

function refusal(fn: () => unknown): OAuthError {
  try {
    fn();
  } catch (err) {
    if (err instanceof OAuthError) return err;
    throw err;
  }
  throw new Error("expected an OAuthError");
}

test("OAuth token and revoke parameters are validated by their route's schema, refusals in OAuth's shape", () => {
  assert.deepEqual(
    validatedBody(
      oauthTokenRoute,
      { grant_type: "refresh_token", refresh_token: "r", extra: "x" },
      "invalid_request",
    ),
    { grant_type: "refresh_token", refresh_token: "r" },
  );
  const missing = refusal(() => validatedBody(oauthTokenRoute, { code: "c" }, "invalid_request"));
  assert.deepEqual([missing.error, missing.description, missing.status], [
    "invalid_request",
    "Missing parameter grant_type",
    400,
  ]);
  const typed = refusal(() => validatedBody(oauthRevokeRoute, { token: 5 }, "invalid_request"));
  assert.deepEqual([typed.error, typed.description], ["invalid_request", "Parameter token must be a string"]);
  // A JSON null is an absent parameter, as the domain reads it.
  assert.deepEqual(validatedBody(oauthRevokeRoute, { token: "t", client_id: null }, "invalid_request"), {
    token: "t",
  });
});

test("OAuth token and revoke are served at their route objects' paths, and documented from them", async () => {
  for (const route of [oauthTokenRoute, oauthRevokeRoute]) {
    const res = await call(route.method.toUpperCase(), route.path, { body: {} });
    assert.equal(res.status, 400);
    assert.equal(res.headers.get("cache-control"), "no-store");
    assert.deepEqual(Object.keys(res.body).sort(), ["error", "error_description"]);
    assert.equal(res.body.error, "invalid_request");
    assert.match(String(res.body.error_description), /^Missing parameter (grant_type|token)$/);
  }
  const doc = (await call("GET", "/openapi.json")).body as {
    paths: Record<string, { post?: { requestBody?: { content?: Record<string, unknown> } } }>;
  };
  for (const route of [oauthTokenRoute, oauthRevokeRoute]) {
    const content = doc.paths[route.path]?.post?.requestBody?.content ?? {};
    assert.deepEqual(Object.keys(content).sort(), ["application/json", "application/x-www-form-urlencoded"]);
  }
});

test("OAuth metadata and JWKS are served at their route objects' paths", async () => {
  for (const route of [authServerMetadataRoute, jwksRoute, ...protectedResourceRoutes]) {
    const res = await call(route.method.toUpperCase(), route.path);
    assert.equal(res.status, 200, route.path);
    assert.match(String(res.headers.get("cache-control")), /^public, max-age=\d+$/);
  }
});

test("OAuth registration is served at its route object's path, refusals in OAuth's shape", async () => {
  const res = await call(oauthRegisterRoute.method.toUpperCase(), oauthRegisterRoute.path, { body: {} });
  assert.equal(res.status, 400);
  assert.equal(res.headers.get("cache-control"), "no-store");
  assert.deepEqual(Object.keys(res.body).sort(), ["error", "error_description"]);
  assert.equal(res.body.error, "invalid_redirect_uri");
});
