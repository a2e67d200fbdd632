import assert from "node:assert/strict";
import {
  calculateJwkThumbprint,
  decodeJwt,
  decodeProtectedHeader,
  exportJWK,
  exportSPKI,
  generateKeyPair,
  importJWK,
  type JWK,
  type JWTPayload,
  SignJWT,
} from "jose";
import { admin, ADMIN_TOKEN, advanceClock, call, env, pairAgent, test } from "../helpers/mod.ts";
import { type OAuthFixture, oauthFixture, serviceCtx } from "./helpers.ts";
import { currentSigningKey } from "@/domain/oauth/keys.ts";
import { hasScope } from "@/domain/core/actor.ts";
import { OAUTH_READ_SCOPES, OAUTH_WRITE_SCOPES } from "@/domain/core/scopes.ts";

const ISS = "http://localhost:8787";
const AUD = "http://localhost:8787/mcp";

/** A valid claim set for the fixture, as the service would sign it. */
async function claimsFor(f: OAuthFixture, extra: JWTPayload = {}): Promise<JWTPayload> {
  const now = Math.floor((await serviceCtx()).clock.now().getTime() / 1000);
  return {
    sub: f.userId,
    projectId: f.projectId,
    orgId: f.orgId,
    scope: "write",
    client_id: "client-test",
    iss: ISS,
    aud: AUD,
    iat: now,
    exp: now + 3600,
    jti: crypto.randomUUID(),
    ...extra,
  };
}

/** Signs `claims` with the service's own current private key (isolates one defect per token). */
async function signWithServiceKey(claims: JWTPayload, header: Record<string, unknown> = {}): Promise<string> {
  const { kid, key } = await currentSigningKey(await serviceCtx());
  return await new SignJWT(claims).setProtectedHeader({ alg: "RS256", typ: "at+jwt", kid, ...header }).sign(
    key,
  );
}

async function servicePublicJwk(): Promise<JWK> {
  const ctx = await serviceCtx();
  const { kid } = await currentSigningKey(ctx);
  const row = await ctx.db.selectFrom("oauth_signing_keys").select("public_jwk").where("kid", "=", kid)
    .executeTakeFirstOrThrow();
  return row.public_jwk as JWK;
}

const b64 = (value: unknown) =>
  btoa(JSON.stringify(value)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");

async function assertRefused(token: string, label: string) {
  const res = await call("GET", "/api/me", { token });
  assert.equal(res.status, 401, `${label}: ${res.status} ${res.text}`);
  assert.equal(res.body.error.code, "UNAUTHORIZED", label);
  assert.equal(res.body.error.details.recovery.action, "REPAIR_OR_REFRESH", label);
}

test("OAUTH-040 an access token minted for a user and project works on REST GET /api/me", async () => {
  const f = await oauthFixture();
  const token = await f.mint("write");
  const res = await call("GET", "/api/me", { token });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.data.project.id, f.projectId);
  assert.equal(res.body.data.org.id, f.orgId);
  assert.equal(res.body.data.role, "generator");
  assert.equal(res.body.data.sessionId, null);
  // Rate limits go through the same path as every other credential.
  assert.ok(res.headers.get("X-RateLimit-Limit"));
  assert.ok(res.headers.get("X-Burst-Remaining"));
});

test("OAUTH-064 OAUTH-065 access token format: RS256, typ at+jwt, kid; claims sub, projectId, orgId, scope, client_id, iss, aud, iat, exp (1 hour), jti", async () => {
  const f = await oauthFixture();
  const token = await f.mint("read", "client-abc");
  const header = decodeProtectedHeader(token);
  assert.equal(header.alg, "RS256");
  assert.equal(header.typ, "at+jwt");
  assert.equal(typeof header.kid, "string");
  const jwks = (await call("GET", "/api/oauth/jwks")).body;
  assert.ok(jwks.keys.some((k: { kid: string }) => k.kid === header.kid));
  const claims = decodeJwt(token);
  assert.equal(claims.sub, f.userId);
  assert.equal(claims.projectId, f.projectId);
  assert.equal(claims.orgId, f.orgId);
  assert.equal(claims.scope, "read");
  assert.equal(claims.client_id, "client-abc");
  assert.equal(claims.iss, ISS);
  assert.equal(claims.aud, AUD);
  assert.equal(claims.exp! - claims.iat!, 3600);
  assert.match(String(claims.jti), /^[0-9a-f-]{36}$/);
  const now = Math.floor((await serviceCtx()).clock.now().getTime() / 1000);
  assert.ok(Math.abs(claims.iat! - now) <= 2, "iat comes from the service clock");
});

test("a token crafted with the service key and valid claims is accepted (baseline of the attack tests)", async () => {
  const f = await oauthFixture();
  const res = await call("GET", "/api/me", { token: await signWithServiceKey(await claimsFor(f)) });
  assert.equal(res.status, 200, res.text);
});

test("OAUTH-066 OAuth attack: wrong iss is refused 401", async () => {
  const f = await oauthFixture();
  await assertRefused(await signWithServiceKey(await claimsFor(f, { iss: "https://evil.example" })), "iss");
  await assertRefused(await signWithServiceKey(await claimsFor(f, { iss: `${ISS}/` })), "iss slash");
});

test("OAUTH-066 OAuth attack: wrong aud is refused 401 (an issuer-audience token, another resource)", async () => {
  const f = await oauthFixture();
  await assertRefused(await signWithServiceKey(await claimsFor(f, { aud: ISS })), "aud = iss");
  await assertRefused(
    await signWithServiceKey(await claimsFor(f, { aud: "https://other.example/mcp" })),
    "aud",
  );
  const noAud = await claimsFor(f);
  delete noAud.aud;
  await assertRefused(await signWithServiceKey(noAud), "no aud");
});

test("OAuth attack: alg none (unsigned token) is refused 401", async () => {
  const f = await oauthFixture();
  const { kid } = await currentSigningKey(await serviceCtx());
  const payload = b64(await claimsFor(f));
  await assertRefused(`${b64({ alg: "none", typ: "at+jwt", kid })}.${payload}.`, "alg none");
  await assertRefused(`${b64({ alg: "None", typ: "at+jwt", kid })}.${payload}.`, "alg None");
  await assertRefused(`${b64({ alg: "none", typ: "at+jwt" })}.${payload}.`, "alg none without kid");
});

test("OAuth attack: HS256 signed with the public key (algorithm confusion) is refused 401", async () => {
  const f = await oauthFixture();
  const jwk = await servicePublicJwk();
  const pem = await exportSPKI(await importJWK(jwk, "RS256", { extractable: true }) as CryptoKey);
  const claims = await claimsFor(f);
  for (const secret of [pem, JSON.stringify(jwk), String(jwk.n)]) {
    const token = await new SignJWT(claims).setProtectedHeader({
      alg: "HS256",
      typ: "at+jwt",
      ...(jwk.kid ? { kid: jwk.kid } : {}),
    })
      .sign(new TextEncoder().encode(secret));
    await assertRefused(token, "HS256 with public key");
  }
});

test("OAuth attack: a token signed by another key with an unknown kid is refused 401", async () => {
  const f = await oauthFixture();
  const attacker = await generateKeyPair("RS256", { extractable: true });
  const claims = await claimsFor(f);
  const kid = await calculateJwkThumbprint(await exportJWK(attacker.publicKey));
  await assertRefused(
    await new SignJWT(claims).setProtectedHeader({ alg: "RS256", typ: "at+jwt", kid }).sign(
      attacker.privateKey,
    ),
    "unknown kid",
  );
  // The service's kid on a token signed by the attacker's key: the signature fails.
  const { kid: realKid } = await currentSigningKey(await serviceCtx());
  await assertRefused(
    await new SignJWT(claims).setProtectedHeader({ alg: "RS256", typ: "at+jwt", kid: realKid })
      .sign(attacker.privateKey),
    "real kid, attacker signature",
  );
});

test("OAuth attack: hostile kid values (path traversal, SQL, URL, huge, wrong type, missing) are refused 401", async () => {
  const f = await oauthFixture();
  const claims = await claimsFor(f);
  for (
    const kid of [
      "../../../../etc/passwd",
      "' OR '1'='1",
      "x' UNION SELECT private_jwk FROM oauth_signing_keys --",
      "https://evil.example/key.json",
      "k".repeat(2000),
      "",
      42,
      ["a"],
      null,
    ]
  ) {
    await assertRefused(await signWithServiceKey(claims, { kid }), `kid ${JSON.stringify(kid).slice(0, 40)}`);
  }
  const { key } = await currentSigningKey(await serviceCtx());
  await assertRefused(
    await new SignJWT(claims).setProtectedHeader({ alg: "RS256", typ: "at+jwt" }).sign(key),
    "no kid",
  );
});

test("OAuth attack: embedded jwk, jku, x5u and x5c headers are refused 401 and never fetched", async () => {
  const f = await oauthFixture();
  let hits = 0;
  const ac = new AbortController();
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", signal: ac.signal, onListen: () => {} }, () => {
    hits++;
    return new Response("{}", { headers: { "Content-Type": "application/json" } });
  });
  const url = `http://127.0.0.1:${server.addr.port}/jwks.json`;
  try {
    const claims = await claimsFor(f);
    const attacker = await generateKeyPair("RS256", { extractable: true });
    const attackerJwk = await exportJWK(attacker.publicKey);
    const attackerKid = await calculateJwkThumbprint(attackerJwk);
    // Signed by the attacker, with the attacker's key embedded or pointed to.
    for (const extra of [{ jwk: attackerJwk }, { jku: url }, { x5u: url }]) {
      const token = await new SignJWT(claims)
        .setProtectedHeader({ alg: "RS256", typ: "at+jwt", kid: attackerKid, ...extra }).sign(
          attacker.privateKey,
        );
      await assertRefused(token, `attacker ${Object.keys(extra)[0]}`);
    }
    // Signed by the service key but carrying the headers: refused for the headers alone.
    const own = await servicePublicJwk();
    for (const extra of [{ jwk: own }, { jku: url }, { x5u: url }, { x5c: ["MIIB"] }]) {
      await assertRefused(await signWithServiceKey(claims, extra), `service-signed ${Object.keys(extra)[0]}`);
    }
    assert.equal(hits, 0, "the verifier never fetched a key");
  } finally {
    ac.abort();
    await server.finished;
  }
});

test("OAuth attack: an expired token is refused 401 (service clock)", async () => {
  const f = await oauthFixture();
  const token = await f.mint("write");
  assert.equal((await call("GET", "/api/me", { token })).status, 200);
  await advanceClock(3600_000 + 5_000);
  await assertRefused(token, "expired");
  const past = await claimsFor(f);
  await assertRefused(
    await signWithServiceKey({ ...past, iat: past.iat! - 4000, exp: past.exp! - 4000 }),
    "crafted expired",
  );
});

test("OAuth attack: nbf in the future, iat in the future and a lifetime over 1 hour are refused 401", async () => {
  const f = await oauthFixture();
  const c = await claimsFor(f);
  await assertRefused(await signWithServiceKey({ ...c, nbf: c.iat! + 600 }), "nbf");
  await assertRefused(await signWithServiceKey({ ...c, iat: c.iat! + 600, exp: c.exp! + 600 }), "iat future");
  await assertRefused(await signWithServiceKey({ ...c, exp: c.iat! + 86_400 }), "exp in a day");
  const ok = await call("GET", "/api/me", { token: await signWithServiceKey({ ...c, nbf: c.iat! - 5 }) });
  assert.equal(ok.status, 200, "a past nbf is fine");
});

test("OAuth attack: an oversized token (over 8 KB) is refused 401 even when validly signed", async () => {
  const f = await oauthFixture();
  const token = await signWithServiceKey(await claimsFor(f, { pad: "x".repeat(8000) }));
  assert.ok(token.length > 8192);
  await assertRefused(token, "oversized");
  const huge = `${"a".repeat(40_000)}.${"b".repeat(40_000)}.${"c".repeat(40_000)}`;
  await assertRefused(huge, "huge garbage");
});

test("OAuth attack: wrong segment count, garbage segments and tampered payloads are refused 401", async () => {
  const f = await oauthFixture();
  const token = await f.mint("read");
  const [h, p, s] = token.split(".") as [string, string, string];
  for (
    const bad of [
      `${h}.${p}`,
      `${h}.${p}.${s}.${s}`,
      `${h}.${p}.${s}.${s}.${s}`,
      `${h}..${s}`,
      `!!!.${p}.${s}`,
      `${b64("not an object")}.${p}.${s}`,
      `${h}.${b64({ ...decodeJwt(token), scope: "write" })}.${s}`,
      `${h}.${p}.${s.slice(0, -4)}AAAA`,
      `${h.slice(0, -2)}.${p}.${s}`,
    ]
  ) {
    await assertRefused(bad, bad.slice(0, 30));
  }
});

test("OAuth attack: a JWT of another type (typ JWT, an ID token) or with wrong claim types is refused 401", async () => {
  const f = await oauthFixture();
  const c = await claimsFor(f);
  await assertRefused(await signWithServiceKey(c, { typ: "JWT" }), "typ JWT");
  await assertRefused(await signWithServiceKey({ ...c, scope: "admin" }), "scope admin");
  await assertRefused(await signWithServiceKey({ ...c, projectId: 7 }), "projectId number");
  await assertRefused(await signWithServiceKey({ ...c, sub: "not-a-uuid" }), "sub");
});

test("OAUTH-055 a token is refused 401 once the organization is suspended, the project archived or the membership gone", async () => {
  const a = await oauthFixture();
  const ta = await a.mint("write");
  assert.equal((await call("GET", "/api/me", { token: ta })).status, 200);
  await admin("PATCH", `/orgs/${a.orgId}`, { status: "suspended" });
  await assertRefused(ta, "suspended org");

  const b = await oauthFixture();
  const tb = await b.mint("write");
  await admin("PATCH", `/projects/${b.projectId}`, { status: "archived" });
  await assertRefused(tb, "archived project");

  const c = await oauthFixture();
  const tc = await c.mint("write");
  assert.equal((await call("GET", "/api/me", { token: tc })).status, 200);
  const ctx = await serviceCtx();
  await ctx.db.deleteFrom("memberships").where("project_id", "=", c.projectId).where("user_id", "=", c.userId)
    .execute();
  await assertRefused(tc, "membership removed");

  // A token naming a project of another organization than its orgId claim.
  const d = await oauthFixture();
  await assertRefused(await signWithServiceKey(await claimsFor(d, { orgId: a.orgId })), "orgId mismatch");
});

test("ROLE-026 ROLE-015 an OAuth write token carries the ten write-token scopes, read:ticket included", async () => {
  const f = await oauthFixture();
  const res = await call("GET", "/api/me", { token: await f.mint("write") });
  assert.equal(res.status, 200);
  assert.deepEqual([...res.body.data.scopes].sort(), [
    "read:board",
    "read:brief",
    "read:ledger",
    "read:ticket",
    "write:claim",
    "write:handoff",
    "write:ledger",
    "write:sprint",
    "write:threads",
    "write:ticket",
  ]);
  const ledger = await call("GET", "/api/ledger", { token: await f.mint("write") });
  assert.equal(ledger.status, 200, ledger.text);
  // A session token never carries read:ticket (ROLE-015).
  const paired = await pairAgent(f.projectId);
  const me = await call("GET", "/api/me", { token: paired.token });
  assert.ok(!me.body.data.scopes.includes("read:ticket"));
});

test("ROLE-027 an OAuth read token carries read:board, read:ticket, read:brief and is refused 403 on write routes", async () => {
  const f = await oauthFixture();
  const token = await f.mint("read");
  const me = await call("GET", "/api/me", { token });
  assert.equal(me.status, 200);
  assert.deepEqual([...me.body.data.scopes].sort(), ["read:board", "read:brief", "read:ticket"]);
  const claim = await call("POST", "/api/claim", { token, body: { files: ["src/a.ts"] } });
  assert.equal(claim.status, 403, claim.text);
  assert.equal(claim.body.error.code, "FORBIDDEN");
  assert.equal(claim.body.error.details.requiredScope, "write:claim");
  assert.equal(claim.body.error.details.recovery.action, "REPAIR_OR_REFRESH");
  const ledger = await call("GET", "/api/ledger", { token });
  assert.equal(ledger.status, 403, "OAuth read tokens lack read:ledger");
  assert.equal(ledger.body.error.details.requiredScope, "read:ledger");
  const ticket = await call("POST", "/api/ticket", { token, body: { title: "nope" } });
  assert.equal(ticket.status, 403);
  const board = await call("GET", "/api/board", { token });
  assert.notEqual(board.status, 403);
  assert.notEqual(board.status, 401);
});

test("OAUTH-035 a viewer's write token acts with the read scopes only", async () => {
  const f = await oauthFixture({ memberRole: "viewer" });
  const token = await f.mint("write");
  const me = await call("GET", "/api/me", { token });
  assert.equal(me.status, 200);
  assert.deepEqual([...me.body.data.scopes].sort(), ["read:board", "read:brief", "read:ticket"]);
  const claim = await call("POST", "/api/claim", { token, body: { files: ["src/a.ts"] } });
  assert.equal(claim.status, 403);
});

test("an OAuth actor is never unrestricted: an empty scope list passes no scope check", () => {
  assert.equal(hasScope({ kind: "oauth", scopes: [] }, "write:brief"), false);
  assert.equal(hasScope({ kind: "oauth", scopes: [...OAUTH_WRITE_SCOPES] }, "write:brief"), false);
  assert.equal(hasScope({ kind: "oauth", scopes: [...OAUTH_READ_SCOPES] }, "read:ticket"), true);
  assert.equal(hasScope({ kind: "api_key", scopes: [] }, "write:brief"), true);
});

test("OAUTH-003 OAUTH-067 OAUTH-068 the first OAuth call creates one generator agent with platform oauth; later calls and tokens reuse it", async () => {
  const f = await oauthFixture();
  const first = await f.mint("write");
  // Concurrent first calls with several tokens of the same user and project: one agent.
  const results = await Promise.all(
    Array.from(
      { length: 8 },
      async (_, i) => await call("GET", "/api/me", { token: i % 2 ? first : await f.mint("read") }),
    ),
  );
  for (const r of results) assert.equal(r.status, 200, r.text);
  const ids = new Set(results.map((r) => r.body.data.agent.id));
  assert.equal(ids.size, 1);
  const listed = await call("GET", `/admin/projects/${f.projectId}/agents`, { token: ADMIN_TOKEN });
  assert.equal(listed.status, 200, listed.text);
  const mine = (listed.body.data as { name: string; platform: string; role: string }[]).filter((a) =>
    a.platform === "oauth"
  );
  assert.equal(mine.length, 1);
  assert.equal(mine[0]!.role, "generator");
  assert.equal(mine[0]!.name, f.userName);
  const later = await call("GET", "/api/me", { token: await f.mint("write", "another-client") });
  assert.equal(later.body.data.agent.id, [...ids][0]);
  assert.equal(later.body.data.agent.platform, "oauth");
});

test("OAUTH-003 the OAuth agent gets a distinct name when a paired agent already has the user's name", async () => {
  const f = await oauthFixture({ userName: `Taken ${crypto.randomUUID().slice(0, 6)}` });
  const paired = await pairAgent(f.projectId, { name: f.userName });
  const res = await call("GET", "/api/me", { token: await f.mint("write") });
  assert.equal(res.status, 200, res.text);
  assert.notEqual(res.body.data.agent.id, paired.agentId);
  assert.equal(res.body.data.agent.name, `${f.userName} (oauth)`);
});

test("SUB-005 X-Svc-SubAgent is ignored with an OAuth token", async () => {
  const f = await oauthFixture();
  const token = await f.mint("write");
  const res = await call("GET", "/api/me", { token, headers: { "X-Svc-SubAgent": "ghost-worker" } });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.data.agent.subAgentName, undefined);
  const bad = await call("GET", "/api/me", { token, headers: { "X-Svc-SubAgent": "not valid!" } });
  assert.equal(bad.status, 200);
  // Contrast: a session token with an unregistered sub-agent is refused.
  const paired = await pairAgent(f.projectId);
  const session = await call("GET", "/api/me", {
    token: paired.token,
    headers: { "X-Svc-SubAgent": "ghost" },
  });
  assert.equal(session.status, 401);
});

test("a user who is not a member of the token's project is refused 401", async () => {
  const f = await oauthFixture();
  const e = await env();
  const stranger = await admin("POST", "/users", {
    email: `s${crypto.randomUUID().slice(0, 10)}@example.com`,
    password: "correct horse battery staple",
    name: "Stranger",
  });
  await assertRefused(await signWithServiceKey(await claimsFor(f, { sub: stranger.id })), "stranger");
  assert.ok(e);
});
