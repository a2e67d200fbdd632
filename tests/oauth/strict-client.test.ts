import assert from "node:assert/strict";
import * as oauth from "oauth4webapi";
import { call, env, test } from "../helpers/mod.ts";
import { Browser, formFields, newUser, projectOptions } from "./flow.ts";

/**
 * An outside strict client (oauth4webapi, used only in tests) against the service: discovery,
 * dynamic registration, PKCE authorization through the consent page, code exchange, refresh and
 * revocation. Every request goes to the in-process app.
 */
test("OAUTH-006 OAUTH-007 oauth4webapi completes discovery, registration, PKCE, exchange, refresh and revocation", async () => {
  const e = await env();
  const issuer = new URL(e.config.publicUrl);
  const options = {
    [oauth.allowInsecureRequests]: true,
    [oauth.customFetch]: (url: string, init: oauth.CustomFetchOptions<string, unknown>) => {
      const target = new URL(url);
      return e.fetch(target.pathname + target.search, {
        method: init.method,
        headers: init.headers,
        body: (init.body as BodyInit | undefined) ?? null,
        redirect: "manual",
      });
    },
  };

  const as = await oauth.processDiscoveryResponse(
    issuer,
    await oauth.discoveryRequest(issuer, { ...options, algorithm: "oauth2" }),
  );
  assert.deepEqual(as.code_challenge_methods_supported, ["S256"]);

  const redirectUri = "http://127.0.0.1:53682/callback";
  const registered = await oauth.processDynamicClientRegistrationResponse(
    await oauth.dynamicClientRegistrationRequest(as, {
      redirect_uris: [redirectUri],
      client_name: "oauth4webapi",
      token_endpoint_auth_method: "none",
    }, options),
  );
  const client: oauth.Client = { client_id: registered.client_id, token_endpoint_auth_method: "none" };
  const clientAuth = oauth.None();

  const verifier = oauth.generateRandomCodeVerifier();
  const challenge = await oauth.calculatePKCECodeChallenge(verifier);
  const state = oauth.generateRandomState();
  const authorize = new URL(as.authorization_endpoint!);
  authorize.searchParams.set("response_type", "code");
  authorize.searchParams.set("client_id", client.client_id);
  authorize.searchParams.set("redirect_uri", redirectUri);
  authorize.searchParams.set("code_challenge", challenge);
  authorize.searchParams.set("code_challenge_method", "S256");
  authorize.searchParams.set("scope", "write");
  authorize.searchParams.set("state", state);

  const user = await newUser("member");
  const browser = new Browser();
  const consent = await browser.signIn(authorize.pathname + authorize.search, user.email, user.password);
  assert.equal(consent.status, 200);
  const fields = formFields(consent.text);
  const approved = await browser.post({
    ...fields,
    project_id: projectOptions(consent.text).includes(user.projectId)
      ? user.projectId
      : projectOptions(consent.text)[0]!,
    action: "approve",
  });
  assert.ok(approved.location, `no redirect: ${approved.status}`);
  const params = oauth.validateAuthResponse(as, client, new URL(approved.location), state);

  const exchanged = await oauth.processAuthorizationCodeResponse(
    as,
    client,
    await oauth.authorizationCodeGrantRequest(as, client, clientAuth, params, redirectUri, verifier, options),
  );
  assert.equal(exchanged.token_type, "bearer"); // oauth4webapi lower-cases it
  assert.equal(exchanged.expires_in, 3600);
  assert.equal(exchanged.scope, "write");
  assert.ok(exchanged.refresh_token?.startsWith("svc_rt_"));
  assert.equal((await call("GET", "/me", { token: exchanged.access_token })).status, 200);

  const refreshed = await oauth.processRefreshTokenResponse(
    as,
    client,
    await oauth.refreshTokenGrantRequest(as, client, clientAuth, exchanged.refresh_token!, options),
  );
  assert.ok(refreshed.refresh_token);
  assert.notEqual(refreshed.refresh_token, exchanged.refresh_token);

  await oauth.processRevocationResponse(
    await oauth.revocationRequest(as, client, clientAuth, refreshed.refresh_token!, options),
  );
  await assert.rejects(async () =>
    oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, clientAuth, refreshed.refresh_token!, options),
    ), (err: unknown) => err instanceof oauth.ResponseBodyError && err.error === "invalid_grant");
});
