import assert from "node:assert/strict";
import { call, env, test } from "../helpers/mod.ts";
import {
  claimsOf,
  grantee,
  liveInFamily,
  newCode,
  oauthPost,
  redeem,
  refresh,
  refreshRow,
  tokens,
} from "./token-fixtures.ts";

test("OAUTH-060 revoke answers 200 {} for unknown and malformed tokens, JSON or form-encoded", async () => {
  for (const token of ["svc_rt_unknown", "not-a-token", "a.b.c", "eyJhbGciOiJub25lIn0.e30.", "svc_sess_x"]) {
    for (const form of [false, true]) {
      const res = await oauthPost("/api/oauth/revoke", { token }, form);
      assert.equal(res.status, 200, `${token} ${form}: ${res.text}`);
      assert.deepEqual(res.body, {});
      assert.equal(res.headers.get("cache-control"), "no-store");
    }
  }
});

test("OAUTH-059 revoke without a token answers invalid_request", async () => {
  const res = await oauthPost("/api/oauth/revoke", { token_type_hint: "refresh_token" });
  assert.equal(res.status, 400);
  assert.equal(res.body.error, "invalid_request");
  assert.equal(typeof res.body.error_description, "string");
});

test("OAUTH-061 revoking a refresh token revokes its whole family: no token of it refreshes afterwards", async () => {
  const g = await grantee();
  const first = await tokens(g);
  const second = await refresh(g, first.refresh_token);
  assert.equal(second.status, 200);
  // Revoke the older (already used) token of the family, form-encoded with a hint.
  const res = await oauthPost("/api/oauth/revoke", {
    token: first.refresh_token,
    token_type_hint: "refresh_token",
  }, true);
  assert.equal(res.status, 200);
  assert.deepEqual(res.body, {});
  const family = (await refreshRow(first.refresh_token)).family_id;
  assert.equal(await liveInFamily(family), 0);
  const again = await refresh(g, second.body.refresh_token);
  assert.equal(again.status, 400);
  assert.equal(again.body.error, "invalid_grant");
});

test("OAUTH-061 a wrong token_type_hint does not stop the revocation", async () => {
  const g = await grantee();
  const first = await tokens(g);
  const res = await oauthPost("/api/oauth/revoke", {
    token: first.refresh_token,
    token_type_hint: "access_token",
  });
  assert.equal(res.status, 200);
  assert.notEqual((await refreshRow(first.refresh_token)).revoked_at, null);
});

test("OAUTH-062 after a refresh token is revoked, the access token already issued stays valid", async () => {
  const g = await grantee();
  const first = await tokens(g);
  assert.equal((await call("GET", "/me", { token: first.access_token })).status, 200);
  await oauthPost("/api/oauth/revoke", { token: first.refresh_token });
  const me = await call("GET", "/me", { token: first.access_token });
  assert.equal(me.status, 200, me.text);
});

test("OAUTH-063 a revoked access token is refused afterwards (401), its refresh token keeps working", async () => {
  const g = await grantee();
  const first = await tokens(g);
  assert.equal((await call("GET", "/me", { token: first.access_token })).status, 200);
  const res = await oauthPost("/api/oauth/revoke", {
    token: first.access_token,
    token_type_hint: "access_token",
  });
  assert.equal(res.status, 200);
  assert.deepEqual(res.body, {});
  const { db } = await env();
  const row = await db.selectFrom("oauth_revoked_access_tokens").selectAll()
    .where("jti", "=", claimsOf(first.access_token).jti).executeTakeFirst();
  assert.ok(row);
  assert.equal(row.expires_at.getTime(), claimsOf(first.access_token).exp * 1000);
  const me = await call("GET", "/me", { token: first.access_token });
  assert.equal(me.status, 401);
  assert.equal(me.body.error.code, "UNAUTHORIZED");
  const next = await refresh(g, first.refresh_token);
  assert.equal(next.status, 200);
  assert.equal((await call("GET", "/me", { token: next.body.access_token })).status, 200);
});

test("OAUTH-042 an access token from a replayed code is refused (401)", async () => {
  const g = await grantee();
  const { code } = await newCode(g);
  const first = await redeem(g, code);
  assert.equal(first.status, 200);
  assert.equal((await call("GET", "/me", { token: first.body.access_token })).status, 200);
  assert.equal((await redeem(g, code)).status, 400);
  const me = await call("GET", "/me", { token: first.body.access_token });
  assert.equal(me.status, 401);
  assert.equal(me.body.error.code, "UNAUTHORIZED");
});

test("OAUTH-060 a tampered access token is ignored by revoke (nothing recorded)", async () => {
  const g = await grantee();
  const first = await tokens(g);
  const [h, p] = first.access_token.split(".");
  const forged = `${h}.${p}.${"A".repeat(342)}`;
  const res = await oauthPost("/api/oauth/revoke", { token: forged });
  assert.equal(res.status, 200);
  const { db } = await env();
  const row = await db.selectFrom("oauth_revoked_access_tokens").select("jti")
    .where("jti", "=", claimsOf(first.access_token).jti).executeTakeFirst();
  assert.equal(row, undefined);
  assert.equal((await call("GET", "/me", { token: first.access_token })).status, 200);
});
