// The /mcp gate at the HTTP level (issue 10, item 1): DNS-rebinding protection, the bearer and its
// RFC 9728 challenge, GET/DELETE on a stateless server, the protocol version header, batches, and the
// write scope of write tools.
import assert from "node:assert/strict";
import { advanceClock, call, pairAgent, test } from "../helpers/mod.ts";
import { startTestEnv } from "../helpers/env.ts";
import { generateKeyPair, type JWTPayload, SignJWT } from "jose";
import { currentSigningKey } from "@/domain/oauth/keys.ts";
import { oauthFixture, serviceCtx } from "../oauth/helpers.ts";
import { callTool, initialize, mcp, PROTOCOL_VERSION, rpc } from "./http.ts";

const METADATA = "http://localhost:8787/.well-known/oauth-protected-resource/mcp";

test("MCP-007 POST /mcp without a bearer is 401 with WWW-Authenticate Bearer resource_metadata", async () => {
  const res = await mcp(initialize());
  assert.equal(res.status, 401);
  assert.equal(res.headers.get("WWW-Authenticate"), `Bearer resource_metadata="${METADATA}"`);
  assert.equal(res.body.error.code, "UNAUTHORIZED");
  // The advertised metadata exists and names this resource and its authorization server.
  const metadata = await call("GET", new URL(METADATA).pathname);
  assert.equal(metadata.status, 200);
  assert.equal(metadata.body.resource, "http://localhost:8787/mcp");
  assert.deepEqual(metadata.body.authorization_servers, ["http://localhost:8787"]);
});

test("MCP-007 an invalid, foreign or expired bearer is 401 invalid_token with resource_metadata", async () => {
  const fixture = await oauthFixture();
  const agent = await pairAgent(fixture.projectId);
  const expiring = await fixture.mint("write");
  for (const token of ["not-a-token", "a.b.c", agent.token]) {
    const res = await mcp(initialize(), { token });
    assert.equal(res.status, 401, token);
    const challenge = res.headers.get("WWW-Authenticate") ?? "";
    assert.match(challenge, /^Bearer /);
    assert.match(challenge, /error="invalid_token"/);
    assert.ok(challenge.includes(`resource_metadata="${METADATA}"`), challenge);
  }
  // Verified locally against the service clock: an hour later the token no longer opens /mcp.
  assert.equal((await mcp(initialize(), { token: expiring })).status, 200);
  await advanceClock(3601_000);
  const expired = await mcp(initialize(), { token: expiring });
  assert.equal(expired.status, 401);
  assert.match(expired.headers.get("WWW-Authenticate") ?? "", /error="invalid_token"/);
});

test("MCP-007 OAUTH-066 a bad signature, iss, aud or exp is 401 at /mcp before the tool runs", async () => {
  const fixture = await oauthFixture();
  const ctx = await serviceCtx();
  const { kid, key } = await currentSigningKey(ctx);
  const now = Math.floor(ctx.clock.now().getTime() / 1000);
  const claims = (extra: JWTPayload = {}): JWTPayload => ({
    sub: fixture.userId,
    projectId: fixture.projectId,
    orgId: fixture.orgId,
    scope: "write",
    client_id: "client-test",
    iss: "http://localhost:8787",
    aud: "http://localhost:8787/mcp",
    iat: now,
    exp: now + 3600,
    jti: crypto.randomUUID(),
    ...extra,
  });
  const sign = (payload: JWTPayload, signingKey: typeof key = key) =>
    new SignJWT(payload).setProtectedHeader({ alg: "RS256", typ: "at+jwt", kid }).sign(signingKey);
  const foreign = (await generateKeyPair("RS256")).privateKey;
  const genuine = await sign(claims());
  const [header, , signature] = genuine.split(".");
  const tampered = `${header}.${
    btoa(JSON.stringify(claims({ scope: "write", sub: crypto.randomUUID() })))
      .replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "")
  }.${signature}`;
  const forged: [string, string][] = [
    ["signed with another key", await sign(claims(), foreign)],
    ["payload changed after signing", tampered],
    ["wrong iss", await sign(claims({ iss: "https://evil.example" }))],
    ["wrong aud (the issuer)", await sign(claims({ aud: "http://localhost:8787" }))],
    ["wrong aud (another resource)", await sign(claims({ aud: "https://other.example/mcp" }))],
    ["expired", await sign(claims({ iat: now - 7200, exp: now - 3600 }))],
  ];
  const brief = { scope: "Written by a forged token", goals: "none" };
  for (const [label, token] of forged) {
    const { res, result } = await callTool(token, "svc_brief_update", brief);
    assert.equal(res.status, 401, `${label}: ${res.status} ${res.text}`);
    assert.equal(result, undefined, `${label}: no JSON-RPC result, the tool did not run`);
    assert.equal(res.body.error.code, "UNAUTHORIZED", label);
    const challenge = res.headers.get("WWW-Authenticate") ?? "";
    assert.match(challenge, /^Bearer error="invalid_token"/, label);
    assert.ok(challenge.includes(`resource_metadata="${METADATA}"`), label);
  }
  // Nothing ran: the brief is still blank. The same claims signed properly do open /mcp.
  const read = await callTool(genuine, "svc_brief_get");
  assert.equal(read.res.status, 200);
  assert.equal(read.block.brief, undefined, "no forged write reached the project");
  assert.equal(read.block.briefVersion, 0);
});

test("MCP-002 DNS-rebinding protection: an Origin that is not allowed is 403, before authentication", async () => {
  const fixture = await oauthFixture();
  const token = await fixture.mint("write");
  for (
    const origin of ["http://evil.example.com", "http://localhost:9999", "https://localhost:8787", "null"]
  ) {
    const res = await mcp(initialize(), { token, headers: { Origin: origin } });
    assert.equal(res.status, 403, origin);
    assert.equal(res.body.error.code, "FORBIDDEN");
    // No token at all: still 403, so the check runs first.
    assert.equal((await mcp(initialize(), { headers: { Origin: origin } })).status, 403);
  }
  for (const origin of ["http://localhost:8787", "http://127.0.0.1:8787"]) {
    assert.equal((await mcp(initialize(), { token, headers: { Origin: origin } })).status, 200, origin);
  }
});

test("MCP-002 DNS-rebinding protection: a Host that is not the service's own (name and port) is 403", async () => {
  const fixture = await oauthFixture();
  const token = await fixture.mint("write");
  for (const host of ["evil.example.com", "evil.example.com:8787", "localhost:9999", "localhost"]) {
    const res = await mcp(initialize(), { token, headers: { Host: host } });
    assert.equal(res.status, 403, host);
    assert.match(res.body.error.message, /Host/);
  }
  for (const host of ["localhost:8787", "127.0.0.1:8787", "LOCALHOST:8787"]) {
    assert.equal((await mcp(initialize(), { token, headers: { Host: host } })).status, 200, host);
  }
});

test("MCP-002 DNS-rebinding protection: allowed hosts and origins are configurable (SVC_MCP_ALLOWED_HOSTS/ORIGINS)", async () => {
  const e = await startTestEnv({
    mcpAllowedOrigins: ["https://app.example.com"],
    mcpAllowedHosts: ["svc.internal:8080"],
  });
  try {
    const res = await mcp(initialize(), {
      on: e,
      headers: { Origin: "https://app.example.com", Host: "svc.internal:8080" },
    });
    assert.equal(res.status, 401, "past the rebinding check, stopped at authentication");
    assert.equal(
      (await mcp(initialize(), { on: e, headers: { Origin: "https://other.example.com" } })).status,
      403,
    );
    assert.equal((await mcp(initialize(), { on: e, headers: { Host: "svc.internal:9090" } })).status, 403);
  } finally {
    await e.close();
  }
});

test("MCP-002 GET and DELETE on the stateless /mcp answer 405 with Allow: POST", async () => {
  const fixture = await oauthFixture();
  const token = await fixture.mint("read");
  for (const method of ["GET", "DELETE"]) {
    const res = await mcp(null, { method, token });
    assert.equal(res.status, 405, method);
    assert.equal(res.headers.get("Allow"), "POST");
    // Authentication still comes first.
    assert.equal((await mcp(null, { method })).status, 401);
  }
});

test("MCP-002 an unsupported MCP-Protocol-Version header is 400", async () => {
  const fixture = await oauthFixture();
  const token = await fixture.mint("read");
  const res = await mcp(rpc("tools/list"), { token, headers: { "MCP-Protocol-Version": "1999-01-01" } });
  assert.equal(res.status, 400);
  assert.equal(res.body.jsonrpc, "2.0");
  assert.match(res.body.error.message, /MCP-Protocol-Version/);
  const ok = await mcp(rpc("tools/list"), { token, headers: { "MCP-Protocol-Version": PROTOCOL_VERSION } });
  assert.equal(ok.status, 200);
});

test("MCP-002 a JSON-RPC batch is refused with 400 and a JSON-RPC error", async () => {
  const fixture = await oauthFixture();
  const token = await fixture.mint("write");
  const res = await mcp([rpc("tools/list"), rpc("ping")], { token });
  assert.equal(res.status, 400);
  assert.equal(res.body.error.code, -32600);
  assert.match(res.body.error.message, /batch/i);
  const garbage = await mcp(null, { token, raw: "{not json" });
  assert.equal(garbage.status, 400);
  assert.equal(garbage.body.error.code, -32700);
});

test("MCP-020 a write tool with a read token is 403 insufficient_scope, the body a FORBIDDEN tool failure", async () => {
  const fixture = await oauthFixture();
  const token = await fixture.mint("read");
  const { res, result, block } = await callTool(token, "svc_ledger_add", {
    type: "PROGRESS",
    content: "x",
    sessionId: crypto.randomUUID(),
  });
  assert.equal(res.status, 403);
  const challenge = res.headers.get("WWW-Authenticate") ?? "";
  assert.match(challenge, /^Bearer /);
  assert.match(challenge, /error="insufficient_scope"/);
  assert.match(challenge, /scope="write"/);
  assert.ok(challenge.includes(`resource_metadata="${METADATA}"`), challenge);
  assert.equal(res.body.jsonrpc, "2.0");
  assert.equal(typeof res.body.id, "number");
  assert.equal(result.isError, true);
  assert.equal(result.content.length, 1);
  assert.equal(block.code, "FORBIDDEN");
  assert.equal(block.status, 403);
  assert.equal(block.details.requiredScope, "write");
  // A read tool works with the same token.
  const status = await callTool(token, "svc_status");
  assert.equal(status.res.status, 200);
  assert.equal(status.result.isError, undefined);
});

test("MCP-016 initialize tells agents to call svc_status first; stateless (no session id)", async () => {
  const fixture = await oauthFixture();
  const token = await fixture.mint("read");
  const res = await mcp(initialize(), { token });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("Mcp-Session-Id"), null);
  const result = res.body.result;
  assert.match(result.instructions, /svc_status first/);
  assert.equal(result.serverInfo.version, "1.0.0");
  assert.ok(result.capabilities.tools);
});

test("MCP-003 GET /health still answers { ok: true, version } without auth", async () => {
  const res = await call("GET", "/health");
  assert.equal(res.status, 200);
  assert.deepEqual(res.body, { ok: true, version: "1.0.0" });
});
