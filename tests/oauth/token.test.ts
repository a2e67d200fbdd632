import assert from "node:assert/strict";
import { hashToken } from "@/domain/core/crypto.ts";
import { admin, advanceClock, call, callOn, env, test } from "../helpers/mod.ts";
import { startTestEnv } from "../helpers/env.ts";
import { pruneTables } from "@/domain/maintenance/prune.ts";
import {
  CHALLENGE,
  claimsOf,
  grantee,
  liveFromCode,
  liveInFamily,
  newClient,
  newCode,
  oauthPost,
  redeem,
  REDIRECT,
  refresh,
  refreshRow,
  tokens,
  VERIFIER,
} from "./token-fixtures.ts";

const DAY_MS = 24 * 60 * 60 * 1000;

function assertOAuthError(res: { status: number; body: unknown }, status: number, error: string) {
  assert.equal(res.status, status, JSON.stringify(res.body));
  const body = res.body as { error: unknown; error_description: unknown };
  assert.equal(body.error, error);
  assert.equal(typeof body.error_description, "string");
  assert.deepEqual(Object.keys(body).sort(), ["error", "error_description"]);
}

test("OAUTH-006 OAUTH-048 a code exchanged with a JSON body answers the token response, no-store", async () => {
  const g = await grantee();
  const { code, id } = await newCode(g, { scope: "write" });
  const res = await redeem(g, code);
  assert.equal(res.status, 200, res.text);
  assert.deepEqual(Object.keys(res.body).sort(), [
    "access_token",
    "expires_in",
    "refresh_token",
    "scope",
    "token_type",
  ]);
  assert.equal(res.body.token_type, "Bearer");
  assert.equal(res.body.expires_in, 3600);
  assert.equal(res.body.scope, "write");
  assert.match(res.body.refresh_token, /^svc_rt_[A-Za-z0-9_-]{43}$/);
  assert.equal(res.headers.get("cache-control"), "no-store");
  assert.equal(res.headers.get("pragma"), "no-cache");
  const claims = claimsOf(res.body.access_token);
  assert.equal(claims.sub, g.userId);
  assert.equal(claims.projectId, g.projectId);
  assert.equal(claims.orgId, g.orgId);
  assert.equal(claims.scope, "write");
  assert.equal(claims.client_id, g.clientId);
  // The code is consumed; the refresh token is stored only as its hash, 30 days from now.
  const { db, clock } = await env();
  const codeRow = await db.selectFrom("oauth_codes").selectAll().where("id", "=", id)
    .executeTakeFirstOrThrow();
  assert.notEqual(codeRow.used_at, null);
  const row = await refreshRow(res.body.refresh_token);
  assert.ok(row);
  assert.equal(row.code_id, id);
  assert.notEqual(row.token_hash, res.body.refresh_token);
  const stored = await db.selectFrom("oauth_refresh_tokens").selectAll().where(
    "token_hash",
    "=",
    res.body.refresh_token,
  )
    .execute();
  assert.equal(stored.length, 0);
  const ttl = row.family_expires_at.getTime() - clock.now().getTime();
  assert.ok(Math.abs(ttl - 30 * DAY_MS) < 60_000, String(ttl));
});

test("OAUTH-006 a code exchanged with a form-encoded body answers the token response", async () => {
  const g = await grantee();
  const { code } = await newCode(g, { scope: "read" });
  const res = await redeem(g, code, {}, true);
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.scope, "read");
  assert.equal(res.headers.get("cache-control"), "no-store");
  // Refreshing form-encoded works as well.
  const again = await oauthPost("/api/oauth/token", {
    grant_type: "refresh_token",
    refresh_token: res.body.refresh_token,
    client_id: g.clientId,
  }, true);
  assert.equal(again.status, 200, again.text);
});

test("OAUTH-001 OAUTH-002 other content types, malformed JSON and repeated form parameters are invalid_request", async () => {
  const textPlain = await call("POST", "/api/oauth/token", {
    raw: "grant_type=authorization_code",
    headers: { "Content-Type": "text/plain" },
  });
  assertOAuthError(textPlain, 400, "invalid_request");
  const array = await call("POST", "/api/oauth/token", { body: [] });
  assertOAuthError(array, 400, "invalid_request");
  const broken = await call("POST", "/api/oauth/token", {
    raw: "{not json",
    headers: { "Content-Type": "application/json" },
  });
  assertOAuthError(broken, 400, "invalid_request");
  const repeated = await call("POST", "/api/oauth/token", {
    raw: "grant_type=refresh_token&refresh_token=a&refresh_token=b",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
  });
  assertOAuthError(repeated, 400, "invalid_request");
  const nonString = await call("POST", "/api/oauth/token", { body: { grant_type: 1 } });
  assertOAuthError(nonString, 400, "invalid_request");
  const nul = await call("POST", "/api/oauth/token", {
    raw: "grant_type=refresh_token&refresh_token=svc_rt_%00",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
  });
  assertOAuthError(nul, 400, "invalid_request");
  const jsonNul = await call("POST", "/api/oauth/token", {
    raw: '{"grant_type":"refresh_token","refresh_token":"svc_rt_\\u0000"}',
    headers: { "Content-Type": "application/json" },
  });
  assertOAuthError(jsonNul, 400, "invalid_request");
});

test("OAUTH-041 a missing grant_type or code answers invalid_request and leaves the code usable", async () => {
  const g = await grantee();
  const { code } = await newCode(g);
  assertOAuthError(
    await oauthPost("/api/oauth/token", { code, redirect_uri: REDIRECT, code_verifier: VERIFIER }),
    400,
    "invalid_request",
  );
  assertOAuthError(await redeem(g, "", {}), 400, "invalid_request");
  assertOAuthError(
    await oauthPost("/api/oauth/token", { grant_type: "authorization_code", code, code_verifier: VERIFIER }),
    400,
    "invalid_request",
  );
  assert.equal((await redeem(g, code)).status, 200);
});

test("OAUTH-058 every other grant type answers unsupported_grant_type", async () => {
  for (
    const grantType of [
      "password",
      "client_credentials",
      "implicit",
      "urn:ietf:params:oauth:grant-type:device_code",
    ]
  ) {
    const res = await oauthPost("/api/oauth/token", { grant_type: grantType, username: "a", password: "b" });
    assertOAuthError(res, 400, "unsupported_grant_type");
  }
});

test("OAUTH-045 a verifier that fails the S256 check answers invalid_grant (no code for a wrong or plain verifier)", async () => {
  const g = await grantee();
  const { code } = await newCode(g);
  const wrong = await redeem(g, code, { code_verifier: "x".repeat(43) });
  assertOAuthError(wrong, 400, "invalid_grant");
  // A "plain" downgrade: the verifier equal to the challenge is no S256 match.
  const plain = await redeem(g, code, { code_verifier: CHALLENGE });
  assertOAuthError(plain, 400, "invalid_grant");
  const { db } = await env();
  const rows = await db.selectFrom("oauth_refresh_tokens").select("id").where("user_id", "=", g.userId)
    .execute();
  assert.equal(rows.length, 0);
});

test("OAUTH-044 a code_verifier outside 43 to 128 characters answers invalid_request", async () => {
  const g = await grantee();
  const { code } = await newCode(g);
  assertOAuthError(await redeem(g, code, { code_verifier: "a".repeat(42) }), 400, "invalid_request");
  assertOAuthError(await redeem(g, code, { code_verifier: "a".repeat(129) }), 400, "invalid_request");
  assertOAuthError(await redeem(g, code, { code_verifier: `${"a".repeat(42)}+` }), 400, "invalid_request");
  assert.equal((await redeem(g, code)).status, 200);
});

test("OAUTH-042 a code presented twice is refused and revokes the tokens of its first use", async () => {
  const g = await grantee();
  const { code, id } = await newCode(g);
  const first = await redeem(g, code);
  assert.equal(first.status, 200);
  const second = await redeem(g, code);
  assertOAuthError(second, 400, "invalid_grant");
  assert.equal(await liveFromCode(id), 0);
  const row = await refreshRow(first.body.refresh_token);
  assert.notEqual(row.revoked_at, null);
  assertOAuthError(await refresh(g, first.body.refresh_token), 400, "invalid_grant");
  // The access token issued at the first use is recorded as revoked.
  const { db } = await env();
  const jti = claimsOf(first.body.access_token).jti;
  const revoked = await db.selectFrom("oauth_revoked_access_tokens").select("jti").where("jti", "=", jti)
    .executeTakeFirst();
  assert.ok(revoked, "the first use's access token is revoked");
});

test("OAUTH-043 an unknown or expired code answers invalid_grant", async () => {
  const g = await grantee();
  assertOAuthError(await redeem(g, "svc_ac_unknown"), 400, "invalid_grant");
  const { code } = await newCode(g);
  await advanceClock(61_000);
  assertOAuthError(await redeem(g, code), 400, "invalid_grant");
});

test("OAUTH-046 a redirect_uri different from the authorize value answers invalid_grant", async () => {
  const g = await grantee();
  const { code } = await newCode(g);
  for (
    const other of [
      `${REDIRECT}/`,
      REDIRECT.replace("app.example.com", "APP.example.com"),
      REDIRECT.replace("app.example.com", "app.example.com:443"),
      `${REDIRECT}?x=1`,
      "https://evil.example.com/callback",
    ]
  ) {
    assertOAuthError(await redeem(g, code, { redirect_uri: other }), 400, "invalid_grant");
  }
  assert.equal((await redeem(g, code)).status, 200);
});

test("OAUTH-047 a client_id different from the authorize value (or missing) answers invalid_grant", async () => {
  const g = await grantee();
  const other = await newClient([REDIRECT]);
  const { code } = await newCode(g);
  assertOAuthError(await redeem(g, code, { client_id: other }), 400, "invalid_grant");
  const res = await oauthPost("/api/oauth/token", {
    grant_type: "authorization_code",
    code,
    redirect_uri: REDIRECT,
    code_verifier: VERIFIER,
  });
  assertOAuthError(res, 400, "invalid_grant");
  // A code issued without client_id (loopback redirect) refuses a client_id it never had.
  const loopback = "http://127.0.0.1:4711/cb";
  const bare = await newCode(g, { clientId: null, redirectUri: loopback });
  assertOAuthError(await redeem(g, bare.code, { redirect_uri: loopback }), 400, "invalid_grant");
  const ok = await oauthPost("/api/oauth/token", {
    grant_type: "authorization_code",
    code: bare.code,
    redirect_uri: loopback,
    code_verifier: VERIFIER,
  });
  assert.equal(ok.status, 200, ok.text);
});

test("OAUTH-028 a non-loopback redirect no longer registered for the client is refused at token exchange", async () => {
  const g = await grantee();
  const unregistered = "https://app.example.com/other";
  const { code } = await newCode(g, { redirectUri: unregistered });
  assertOAuthError(await redeem(g, code, { redirect_uri: unregistered }), 400, "invalid_grant");
});

test("OAUTH-050 OAUTH-051 OAUTH-052 OAUTH-057 every refresh rotates, and rotation never extends the 30 days", async () => {
  const g = await grantee();
  const first = await tokens(g);
  const start = (await refreshRow(first.refresh_token)).family_expires_at.getTime();
  await advanceClock(10 * DAY_MS);
  const second = await refresh(g, first.refresh_token);
  assert.equal(second.status, 200, second.text);
  assert.equal(second.headers.get("cache-control"), "no-store");
  assert.equal(second.body.token_type, "Bearer");
  assert.equal(second.body.expires_in, 3600);
  assert.equal(second.body.scope, "write");
  assert.match(second.body.refresh_token, /^svc_rt_/);
  assert.notEqual(second.body.refresh_token, first.refresh_token);
  assert.notEqual(second.body.access_token, first.access_token);
  const old = await refreshRow(first.refresh_token);
  assert.notEqual(old.used_at, null);
  const next = await refreshRow(second.body.refresh_token);
  assert.equal(next.family_id, old.family_id);
  assert.equal(next.family_expires_at.getTime(), start);
  assert.equal(await liveInFamily(old.family_id), 1);
  await advanceClock(19 * DAY_MS);
  const third = await refresh(g, second.body.refresh_token);
  assert.equal(third.status, 200, third.text);
  await advanceClock(1 * DAY_MS + 1000);
  assertOAuthError(await refresh(g, third.body.refresh_token), 400, "invalid_grant");
});

test("OAUTH-053 presenting a used refresh token is refused and revokes the whole family", async () => {
  const g = await grantee();
  const first = await tokens(g);
  const second = await refresh(g, first.refresh_token);
  assert.equal(second.status, 200);
  assertOAuthError(await refresh(g, first.refresh_token), 400, "invalid_grant");
  const family = (await refreshRow(first.refresh_token)).family_id;
  assert.equal(await liveInFamily(family), 0);
  assertOAuthError(await refresh(g, second.body.refresh_token), 400, "invalid_grant");
});

test("OAUTH-054 a refresh with another client_id is refused and revokes the whole family", async () => {
  const g = await grantee();
  const other = await newClient([REDIRECT]);
  const first = await tokens(g);
  assertOAuthError(await refresh(g, first.refresh_token, { client_id: other }), 400, "invalid_grant");
  assert.equal(await liveInFamily((await refreshRow(first.refresh_token)).family_id), 0);
  assertOAuthError(await refresh(g, first.refresh_token), 400, "invalid_grant");
});

test("OAUTH-053 an unknown or malformed refresh token answers invalid_grant", async () => {
  const g = await grantee();
  assertOAuthError(await refresh(g, "svc_rt_unknown"), 400, "invalid_grant");
  assertOAuthError(await refresh(g, "not-a-refresh-token"), 400, "invalid_grant");
  assertOAuthError(
    await oauthPost("/api/oauth/token", { grant_type: "refresh_token", client_id: g.clientId }),
    400,
    "invalid_request",
  );
});

test("OAUTH-055 a refresh after the organization is suspended answers invalid_grant (and works once it is active)", async () => {
  const g = await grantee();
  const first = await tokens(g);
  await admin("PATCH", `/orgs/${g.orgId}`, { status: "suspended" });
  assertOAuthError(await refresh(g, first.refresh_token), 400, "invalid_grant");
  assert.equal((await refreshRow(first.refresh_token)).used_at, null, "a refused refresh does not consume");
  await admin("PATCH", `/orgs/${g.orgId}`, { status: "active" });
  assert.equal((await refresh(g, first.refresh_token)).status, 200);
});

test("OAUTH-055 a refresh after the project is archived answers invalid_grant", async () => {
  const g = await grantee();
  const first = await tokens(g);
  await admin("PATCH", `/projects/${g.projectId}`, { status: "archived" });
  assertOAuthError(await refresh(g, first.refresh_token), 400, "invalid_grant");
});

test("OAUTH-055 a refresh after the membership is removed answers invalid_grant", async () => {
  const g = await grantee();
  const first = await tokens(g);
  // The operator API has no removal route: the membership row is deleted directly.
  const { db } = await env();
  await db.deleteFrom("memberships").where("project_id", "=", g.projectId).where("user_id", "=", g.userId)
    .execute();
  assertOAuthError(await refresh(g, first.refresh_token), 400, "invalid_grant");
});

test("OAUTH-056 OAUTH-069 a refresh after a demotion to viewer is capped to read", async () => {
  const g = await grantee("member");
  const first = await tokens(g, "write");
  assert.equal(first.scope, "write");
  await admin("POST", `/projects/${g.projectId}/members`, { userId: g.userId, role: "viewer" });
  const res = await refresh(g, first.refresh_token);
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.scope, "read");
  assert.equal(claimsOf(res.body.access_token).scope, "read");
  // A viewer redeeming a write code also gets read.
  const { code } = await newCode(g, { scope: "write" });
  const redeemed = await redeem(g, code);
  assert.equal(redeemed.body.scope, "read");
});

test("OAUTH-042 twenty parallel redemptions of one code: exactly one success, never two live refresh tokens", async () => {
  const g = await grantee();
  const { code, id } = await newCode(g);
  const results = await Promise.all(Array.from({ length: 20 }, () => redeem(g, code)));
  const statuses = results.map((r) => r.status);
  assert.equal(statuses.filter((s) => s === 200).length, 1, statuses.join(","));
  for (const r of results.filter((r) => r.status !== 200)) assertOAuthError(r, 400, "invalid_grant");
  assert.ok(await liveFromCode(id) <= 1);
  const { db } = await env();
  const rows = await db.selectFrom("oauth_refresh_tokens").select("id").where("code_id", "=", id).execute();
  assert.equal(rows.length, 1, "exactly one refresh token was ever stored for the code");
});

test("OAUTH-052 twenty parallel refreshes of one token: exactly one success, never two live refresh tokens", async () => {
  const g = await grantee();
  const first = await tokens(g);
  const family = (await refreshRow(first.refresh_token)).family_id;
  const results = await Promise.all(Array.from({ length: 20 }, () => refresh(g, first.refresh_token)));
  const statuses = results.map((r) => r.status);
  assert.equal(statuses.filter((s) => s === 200).length, 1, statuses.join(","));
  for (const r of results.filter((r) => r.status !== 200)) assertOAuthError(r, 400, "invalid_grant");
  assert.ok(await liveInFamily(family) <= 1);
  const { db } = await env();
  const rows = await db.selectFrom("oauth_refresh_tokens").select("id").where("family_id", "=", family)
    .execute();
  assert.equal(rows.length, 2, "the original and exactly one successor");
});

test("OAUTH-057 refresh tokens are stored only as SHA-256 hashes", async () => {
  const g = await grantee();
  const first = await tokens(g);
  const row = await refreshRow(first.refresh_token);
  assert.equal(row.token_hash, hashToken(first.refresh_token));
});

test("OAUTH-058 an unreachable database answers 503 temporarily_unavailable in the OAuth shape", async () => {
  const down = await startTestEnv();
  await down.close();
  const res = await callOn(down, "POST", "/api/oauth/token", {
    body: { grant_type: "refresh_token", refresh_token: "svc_rt_whatever", client_id: "c" },
  });
  assertOAuthError(res, 503, "temporarily_unavailable");
  assert.equal(res.headers.get("cache-control"), "no-store");
  const revoke = await callOn(down, "POST", "/api/oauth/revoke", { body: { token: "svc_rt_whatever" } });
  assertOAuthError(revoke, 503, "temporarily_unavailable");
});

test("OAUTH-057 pruning drops refresh tokens past their family's 30 days and revoked jtis past expiry", async () => {
  const g = await grantee();
  const first = await tokens(g);
  const second = await refresh(g, first.refresh_token);
  assert.equal(second.status, 200);
  await oauthPost("/api/oauth/revoke", { token: second.body.access_token });
  const e = await env();
  const family = (await refreshRow(first.refresh_token)).family_id;
  const jti = claimsOf(second.body.access_token).jti;
  const revokedJti = () =>
    e.db.selectFrom("oauth_revoked_access_tokens").select("jti").where("jti", "=", jti).executeTakeFirst();
  const familyRows = () =>
    e.db.selectFrom("oauth_refresh_tokens").select("id").where("family_id", "=", family).execute();
  await pruneTables({ db: e.db, clock: e.clock });
  assert.equal((await familyRows()).length, 2, "a live family is kept, used token included");
  assert.ok(await revokedJti(), "a revoked jti is kept while its token could still be live");
  await advanceClock(2 * DAY_MS);
  await pruneTables({ db: e.db, clock: e.clock });
  assert.equal(await revokedJti(), undefined);
  assert.equal((await familyRows()).length, 2);
  await advanceClock(30 * DAY_MS);
  await pruneTables({ db: e.db, clock: e.clock });
  assert.equal((await familyRows()).length, 0);
});
