import assert from "node:assert/strict";
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from "jose";
import { ADMIN_TOKEN, advanceClock, call, env, test } from "../helpers/mod.ts";
import { oauthFixture, serviceCtx } from "./helpers.ts";
import { runCli } from "../../scripts/cli.ts";

const ORIGIN = "http://localhost:8787";

async function rotate() {
  const res = await call("POST", "/admin/keys/rotate", { token: ADMIN_TOKEN, body: {} });
  assert.equal(res.status, 201, res.text);
  return res.body.data as { kid: string; createdAt: string };
}

async function jwksKids(): Promise<string[]> {
  const res = await call("GET", "/api/oauth/jwks");
  assert.equal(res.status, 200);
  return res.body.keys.map((k: { kid: string }) => k.kid);
}

async function currentKeys(): Promise<number> {
  const ctx = await serviceCtx();
  const rows = await ctx.db.selectFrom("oauth_signing_keys").select("kid").where("retired_at", "is", null)
    .execute();
  return rows.length;
}

test("OAUTH-010 the JWKS publishes the signing key (created on first need) without private parts", async () => {
  const res = await call("GET", "/api/oauth/jwks");
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type") ?? "", /application\/json/);
  assert.equal(res.body.data, undefined, "flat JSON, not the envelope (OAUTH-001)");
  assert.ok(res.body.keys.length >= 1);
  for (const key of res.body.keys) {
    assert.equal(key.kty, "RSA");
    assert.equal(key.use, "sig");
    assert.equal(key.alg, "RS256");
    assert.equal(typeof key.kid, "string");
    for (const secret of ["d", "p", "q", "dp", "dq", "qi"]) assert.equal(key[secret], undefined, secret);
  }
  // The private key lives in the database as a JWK.
  const ctx = await serviceCtx();
  const row = await ctx.db.selectFrom("oauth_signing_keys").selectAll().where("retired_at", "is", null)
    .executeTakeFirstOrThrow();
  assert.equal((row.private_jwk as Record<string, unknown>).kty, "RSA");
  assert.equal(typeof (row.private_jwk as Record<string, unknown>).d, "string");
  assert.ok(res.body.keys.some((k: { kid: string }) => k.kid === row.kid));
});

test("OAUTH-010 an outside verifier checks an access token with the published JWKS alone", async () => {
  const f = await oauthFixture();
  const token = await f.mint("write");
  const jwks = createLocalJWKSet((await call("GET", "/api/oauth/jwks")).body);
  const { payload, protectedHeader } = await jwtVerify(token, jwks, {
    issuer: ORIGIN,
    audience: `${ORIGIN}/mcp`,
    typ: "at+jwt",
    algorithms: ["RS256"],
    currentDate: (await serviceCtx()).clock.now(),
  });
  assert.equal(payload.sub, f.userId);
  assert.equal(protectedHeader.kid, decodeProtectedHeader(token).kid);
});

test("OAUTH-008 OAUTH-009 authorization server metadata (RFC 8414): issuer, endpoints, S256 only", async () => {
  const res = await call("GET", "/.well-known/oauth-authorization-server");
  assert.equal(res.status, 200);
  const m = res.body;
  assert.equal(m.issuer, ORIGIN);
  assert.equal(m.authorization_endpoint, `${ORIGIN}/oauth/authorize`);
  assert.equal(m.token_endpoint, `${ORIGIN}/api/oauth/token`);
  assert.equal(m.registration_endpoint, `${ORIGIN}/api/oauth/register`);
  assert.equal(m.revocation_endpoint, `${ORIGIN}/api/oauth/revoke`);
  assert.equal(m.jwks_uri, `${ORIGIN}/api/oauth/jwks`);
  assert.deepEqual(m.code_challenge_methods_supported, ["S256"]);
  assert.deepEqual(m.response_types_supported, ["code"]);
  assert.deepEqual(m.grant_types_supported, ["authorization_code", "refresh_token"]);
  assert.deepEqual(m.token_endpoint_auth_methods_supported, ["none"]);
  assert.deepEqual(m.scopes_supported, ["read", "write"]);
  assert.equal(m.authorization_response_iss_parameter_supported, true);
  assert.equal(m.data, undefined, "flat JSON (OAUTH-001)");
});

test("OAUTH-011 protected resource metadata (RFC 9728) at both addresses: resource is the MCP URL", async () => {
  const a = await call("GET", "/.well-known/oauth-protected-resource");
  const b = await call("GET", "/.well-known/oauth-protected-resource/mcp");
  assert.equal(a.status, 200);
  assert.equal(b.status, 200);
  assert.deepEqual(a.body, b.body);
  assert.equal(a.body.resource, `${ORIGIN}/mcp`);
  assert.deepEqual(a.body.authorization_servers, [ORIGIN]);
  assert.deepEqual(a.body.bearer_methods_supported, ["header"]);
  assert.deepEqual(a.body.scopes_supported, ["read", "write"]);
});

test("the metadata follows PUBLIC_URL (iss and aud derive from it)", async () => {
  const { startTestEnv } = await import("../helpers/env.ts");
  const other = await startTestEnv({ publicUrl: "https://coord.example.com" });
  try {
    const m = await (await other.fetch("/.well-known/oauth-authorization-server")).json();
    assert.equal(m.issuer, "https://coord.example.com");
    assert.equal(m.jwks_uri, "https://coord.example.com/api/oauth/jwks");
    const r = await (await other.fetch("/.well-known/oauth-protected-resource")).json();
    assert.equal(r.resource, "https://coord.example.com/mcp");
  } finally {
    await other.close();
  }
});

test("the OAuth discovery and key endpoints are in the OpenAPI document", async () => {
  const doc = (await call("GET", "/openapi.json")).body;
  for (
    const path of [
      "/.well-known/oauth-authorization-server",
      "/.well-known/oauth-protected-resource",
      "/.well-known/oauth-protected-resource/mcp",
      "/api/oauth/jwks",
    ]
  ) {
    assert.ok(doc.paths[path]?.get, path);
    assert.deepEqual(doc.paths[path].get.security, [], path);
  }
});

test("key rotation: POST /admin/keys/rotate answers 201 { kid, createdAt }; the new key signs, the old one verifies until its tokens expire, then leaves the JWKS", async () => {
  const f = await oauthFixture();
  const oldToken = await f.mint("write");
  const oldKid = decodeProtectedHeader(oldToken).kid as string;
  const rotated = await rotate();
  assert.notEqual(rotated.kid, oldKid);
  assert.equal(rotated.createdAt, new Date(rotated.createdAt).toISOString());
  assert.equal(await currentKeys(), 1);

  const newToken = await f.mint("write");
  assert.equal(decodeProtectedHeader(newToken).kid, rotated.kid, "the new key signs from now on");
  assert.deepEqual((await jwksKids()).slice(0, 1), [rotated.kid]);
  assert.ok((await jwksKids()).includes(oldKid), "the old key stays published while its tokens live");
  assert.equal((await call("GET", "/api/me", { token: oldToken })).status, 200, "old-key token still works");

  await advanceClock(59 * 60_000);
  assert.equal((await call("GET", "/api/me", { token: oldToken })).status, 200, "still inside its hour");
  await advanceClock(2 * 60_000 + 5000);
  const expired = await call("GET", "/api/me", { token: oldToken });
  assert.equal(expired.status, 401);
  assert.equal(expired.body.error.code, "UNAUTHORIZED");
  assert.ok(!(await jwksKids()).includes(oldKid), "the old key dropped out of the JWKS");
  assert.ok((await jwksKids()).includes(rotated.kid));
  // A token still carrying the old kid can never verify again, even one claiming a fresh lifetime.
  const ctx = await serviceCtx();
  const row = await ctx.db.selectFrom("oauth_signing_keys").select("retired_at").where("kid", "=", oldKid)
    .executeTakeFirstOrThrow();
  assert.ok(row.retired_at);
  const fresh = await f.mint("write");
  assert.equal((await call("GET", "/api/me", { token: fresh })).status, 200);
});

test("key rotation refuses a missing or wrong admin token (401) and changes nothing", async () => {
  const before = await jwksKids();
  const res = await call("POST", "/admin/keys/rotate", { token: "wrong", body: {} });
  assert.equal(res.status, 401);
  assert.equal(res.body.error.code, "UNAUTHORIZED");
  assert.equal((await call("POST", "/admin/keys/rotate", { body: {} })).status, 401);
  assert.deepEqual(await jwksKids(), before);
});

test("concurrent first-need creation and concurrent rotations leave exactly one signing key", async () => {
  const ctx = await serviceCtx();
  await ctx.db.deleteFrom("oauth_signing_keys").execute();
  const g = await oauthFixture();
  const first = await Promise.all(Array.from({ length: 6 }, () => g.mint("write")));
  assert.equal(
    new Set(first.map((t) => decodeProtectedHeader(t).kid)).size,
    1,
    "one key created on first need",
  );
  assert.equal(await currentKeys(), 1);
  const results = await Promise.all(Array.from({ length: 6 }, () => rotate()));
  assert.equal(new Set(results.map((r) => r.kid)).size, 6);
  assert.equal(await currentKeys(), 1);
  const f = await oauthFixture();
  const tokens = await Promise.all(Array.from({ length: 5 }, () => f.mint("read")));
  assert.equal(new Set(tokens.map((t) => decodeProtectedHeader(t).kid)).size, 1);
  // Every key rotated out just now still verifies: all six are live in the JWKS.
  const kids = await jwksKids();
  for (const r of results) assert.ok(kids.includes(r.kid));
});

test("deno task cli keys rotate calls POST /admin/keys/rotate", async () => {
  const e = await env();
  const lines: string[] = [];
  const code = await runCli(
    ["--json", "keys", "rotate"],
    { url: "http://localhost:8787", token: ADMIN_TOKEN },
    (line) => lines.push(line),
    ((input: string | URL | Request, init?: RequestInit) =>
      e.fetch(new URL(String(input)).pathname, init)) as typeof fetch,
  );
  assert.equal(code, 0, lines.join("\n"));
  const out = JSON.parse(lines.join("\n"));
  assert.equal(typeof out.kid, "string");
  assert.equal((await jwksKids())[0], out.kid);
  const help: string[] = [];
  await runCli(["--help"], { url: "", token: "" }, (l) => help.push(l));
  assert.match(help.join("\n"), /keys rotate/);
});
