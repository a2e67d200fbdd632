// Probes of a hostile-client review (issue 22, point 4) on /mcp's entry: a revoked access token (through
// the revocation endpoint, or by an authorization-code replay) and a token of a suspended organization
// are refused at /mcp itself, for every JSON-RPC method, with the RFC 9728 challenge; a bodyless DELETE
// (what curl, Node and the MCP SDK send) answers 401 / 405, never 415, and so does a bodyless REST call.
// deno-lint-ignore-file no-explicit-any
import assert from "node:assert/strict";
import { admin, env, pairAgent, test } from "../helpers/mod.ts";
import { oauthFixture } from "../oauth/helpers.ts";
import { grantee, newCode, oauthPost, redeem } from "../oauth/token-fixtures.ts";
import { initialize, mcp, PROTOCOL_VERSION, rpc } from "./http.ts";

const METADATA = "http://localhost:8787/.well-known/oauth-protected-resource/mcp";

/** Every JSON-RPC method a client starts with answers 401 invalid_token with the challenge. */
async function assertRefusedAtEntry(token: string) {
  for (const message of [initialize(), rpc("tools/list"), rpc("ping")]) {
    const res = await mcp(message, { token, headers: { "MCP-Protocol-Version": PROTOCOL_VERSION } });
    assert.equal(res.status, 401, `${(message as any).method}: ${res.text}`);
    const challenge = res.headers.get("WWW-Authenticate") ?? "";
    assert.match(challenge, /^Bearer error="invalid_token"/);
    assert.ok(challenge.includes(`resource_metadata="${METADATA}"`), challenge);
    assert.equal(res.body.error.code, "UNAUTHORIZED");
  }
}

test("MCP-007 OAUTH-063 an access token revoked through POST /api/oauth/revoke is 401 at /mcp for initialize and tools/list", async () => {
  const fixture = await oauthFixture();
  const token = await fixture.mint("write");
  assert.equal((await mcp(initialize(), { token })).status, 200);
  const revoked = await oauthPost("/api/oauth/revoke", { token });
  assert.equal(revoked.status, 200);
  await assertRefusedAtEntry(token);
});

test("MCP-007 OAUTH-042 an access token issued from a replayed authorization code is 401 at /mcp", async () => {
  const g = await grantee();
  const { code } = await newCode(g);
  const first = await redeem(g, code);
  assert.equal(first.status, 200);
  assert.equal((await mcp(initialize(), { token: first.body.access_token })).status, 200);
  const replay = await redeem(g, code);
  assert.equal(replay.status, 400);
  assert.equal(replay.body.error, "invalid_grant");
  await assertRefusedAtEntry(first.body.access_token);
});

test("MCP-007 a token of a suspended organization is 401 at /mcp, and works again once reactivated", async () => {
  const fixture = await oauthFixture();
  const token = await fixture.mint("read");
  assert.equal((await mcp(rpc("tools/list"), { token })).status, 200);
  await admin("PATCH", `/orgs/${fixture.orgId}`, { status: "suspended" });
  await assertRefusedAtEntry(token);
  await admin("PATCH", `/orgs/${fixture.orgId}`, { status: "active" });
  assert.equal((await mcp(rpc("tools/list"), { token })).status, 200);
});

test("MCP-020 a viewer's write token is capped to read at /mcp's entry: write tools answer 403 insufficient_scope", async () => {
  const fixture = await oauthFixture({ memberRole: "viewer" });
  const token = await fixture.mint("write");
  const res = await mcp(rpc("tools/call", { name: "svc_ledger_add", arguments: {} }), { token });
  assert.equal(res.status, 403, res.text);
  assert.match(res.headers.get("WWW-Authenticate") ?? "", /insufficient_scope/);
});

/** A request whose body is an empty stream and that has no Content-Type nor Content-Length (Deno.serve). */
async function bodyless(method: string, path: string, token?: string) {
  const e = await env();
  const res = await e.fetch(path, {
    method,
    headers: token ? { Authorization: `Bearer ${token}` } : {},
    body: new ReadableStream({ start: (controller) => controller.close() }),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, body: text ? JSON.parse(text) : null };
}

test("MCP-002 a bodyless DELETE /mcp (no Content-Type, no body) is 401 without a token and 405 + Allow with one", async () => {
  const anonymous = await bodyless("DELETE", "/mcp");
  assert.equal(anonymous.status, 401, anonymous.text);
  assert.match(anonymous.headers.get("WWW-Authenticate") ?? "", /^Bearer resource_metadata=/);
  const fixture = await oauthFixture();
  const withToken = await bodyless("DELETE", "/mcp", await fixture.mint("read"));
  assert.equal(withToken.status, 405, withToken.text);
  assert.equal(withToken.headers.get("Allow"), "POST");
});

test("a bodyless REST POST or DELETE without Content-Type is not 415: the route answers", async () => {
  const refresh = await bodyless("POST", "/api/session/refresh");
  assert.equal(refresh.status, 400, refresh.text);
  assert.equal(refresh.body.error.code, "VALIDATION_ERROR");
  const fixture = await oauthFixture();
  const agent = await pairAgent(fixture.projectId);
  const ended = await bodyless("DELETE", "/api/subagent/session", agent.token);
  assert.notEqual(ended.status, 415, ended.text);
  // A body with the wrong content type still is 415.
  const e = await env();
  const typed = await e.fetch("/api/session/refresh", {
    method: "POST",
    headers: { "Content-Type": "text/plain" },
    body: '{"token":"x"}',
  });
  assert.equal(typed.status, 415);
});
