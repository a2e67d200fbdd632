import assert from "node:assert/strict";
import { call, callOn, env, test } from "../helpers/mod.ts";
import { startTestEnv } from "../helpers/env.ts";

/** Registration from its own client address (X-Forwarded-For is trusted from loopback in tests). */
let addressSeq = 0;
function freshAddress(): string {
  addressSeq++;
  return `10.9.${Math.floor(addressSeq / 250)}.${(addressSeq % 250) + 1}`;
}

async function register(body: unknown, address = freshAddress()) {
  return await call("POST", "/api/oauth/register", { body, headers: { "X-Forwarded-For": address } });
}

async function refused(uri: string) {
  const res = await register({ client_name: "x", redirect_uris: [uri] });
  assert.equal(res.status, 400, `${uri} should be refused: ${res.text}`);
  assert.equal(res.body.error, "invalid_redirect_uri", uri);
  assert.equal(typeof res.body.error_description, "string");
  assert.equal(res.body.data, undefined, "OAuth shape, not the envelope");
  return res;
}

async function clientCount(): Promise<number> {
  const e = await env();
  const rows = await e.db.selectFrom("oauth_clients").select("client_id").execute();
  return rows.length;
}

test("OAUTH-004 OAUTH-021 OAUTH-022 registration answers 201 with the RFC 7591 fields, flat JSON", async () => {
  const res = await register({ client_name: "My IDE", redirect_uris: ["https://app.example.com/cb"] });
  assert.equal(res.status, 201, res.text);
  const b = res.body;
  assert.match(b.client_id, /^svc_client_/);
  assert.equal(typeof b.client_id_issued_at, "number");
  assert.ok(Math.abs(b.client_id_issued_at - Date.now() / 1000) < 600, "Unix seconds");
  assert.equal(b.client_name, "My IDE");
  assert.deepEqual(b.redirect_uris, ["https://app.example.com/cb"]);
  assert.deepEqual(b.grant_types, ["authorization_code", "refresh_token"]);
  assert.deepEqual(b.response_types, ["code"]);
  assert.equal(b.token_endpoint_auth_method, "none");
  assert.equal(b.scope, "read write");
  assert.equal(b.data, undefined);
  const e = await env();
  const row = await e.db.selectFrom("oauth_clients").selectAll().where("client_id", "=", b.client_id)
    .executeTakeFirstOrThrow();
  assert.deepEqual(row.redirect_uris, ["https://app.example.com/cb"]);
});

test("OAUTH-014 OAUTH-015 OAUTH-016 https, loopback http and private-use schemes are accepted", async () => {
  const uris = [
    "https://app.example.com/callback?x=1",
    "http://localhost:3000/cb",
    "http://127.0.0.1/cb",
    "http://[::1]:8080/cb",
    "com.example.app:/cb",
    "cursor://anysphere.cursor-retrieval/oauth/callback",
  ];
  const res = await register({ client_name: "ok", redirect_uris: uris });
  assert.equal(res.status, 201, res.text);
  assert.deepEqual(res.body.redirect_uris, uris);
});

test("OAUTH-013 no redirect_uris, an empty list or more than 10 answer 400 invalid_redirect_uri", async () => {
  const before = await clientCount();
  for (
    const body of [{ client_name: "x" }, { redirect_uris: [] }, { redirect_uris: "https://a.example/cb" }]
  ) {
    const res = await register(body);
    assert.equal(res.status, 400);
    assert.equal(res.body.error, "invalid_redirect_uri");
  }
  const eleven = Array.from({ length: 11 }, (_, i) => `https://a.example/cb${i}`);
  const res = await register({ redirect_uris: eleven });
  assert.equal(res.status, 400);
  assert.equal(res.body.error, "invalid_redirect_uri");
  const ten = await register({ redirect_uris: eleven.slice(0, 10) });
  assert.equal(ten.status, 201);
  assert.equal(await clientCount(), before + 1, "only the valid registration is stored");
});

test("OAUTH-015 plain http on a non-loopback host is refused", async () => {
  await refused("http://app.example.com/cb");
  await refused("http://localhost.evil.com/cb");
  await refused("http://127.0.0.2.nip.io/cb");
});

test("OAUTH-017 a fragment (even empty) is refused", async () => {
  await refused("https://app.example.com/cb#frag");
  await refused("https://app.example.com/cb#");
  await refused("com.example.app:/cb#x");
});

test("OAUTH-018 embedded credentials are refused", async () => {
  await refused("https://user:pass@app.example.com/cb");
  await refused("https://user@app.example.com/cb");
  await refused("http://user:pw@localhost:3000/cb");
  await refused("com.example.app://user:pw@host/cb");
});

test("attack: javascript:, data: and file: in any letter case or after whitespace are refused", async () => {
  for (
    const uri of [
      "javascript:alert(1)",
      "JavaScript:alert(1)",
      "JAVASCRIPT://x/%0aalert(1)",
      " javascript:alert(1)",
      "\tjavascript:alert(1)",
      "\njavascript:alert(1)",
      "java\tscript:alert(1)",
      "data:text/html,<script>alert(1)</script>",
      "DATA:text/html;base64,PHNjcmlwdD4=",
      " data:text/html,x",
      "file:///etc/passwd",
      "FILE:///etc/passwd",
      " file:///etc/passwd",
      "vbscript:msgbox(1)",
      "https://app.example.com/cb ",
    ]
  ) await refused(uri);
});

test("attack: not a URL, no scheme or a relative path is refused", async () => {
  await refused("/relative/cb");
  await refused("app.example.com/cb");
  await refused("https://");
  await refused("");
});

test("OAUTH-019 client_name is truncated to 100 characters", async () => {
  const res = await register({ client_name: "n".repeat(250), redirect_uris: ["https://a.example/cb"] });
  assert.equal(res.status, 201);
  assert.equal(res.body.client_name, "n".repeat(100));
});

test("OAUTH-012 confidential clients are refused: invalid_client_metadata", async () => {
  const res = await register({
    redirect_uris: ["https://a.example/cb"],
    token_endpoint_auth_method: "client_secret_basic",
  });
  assert.equal(res.status, 400);
  assert.equal(res.body.error, "invalid_client_metadata");
  const grant = await register({
    redirect_uris: ["https://a.example/cb"],
    grant_types: ["client_credentials"],
  });
  assert.equal(grant.status, 400);
  assert.equal(grant.body.error, "invalid_client_metadata");
  const notJson = await call("POST", "/api/oauth/register", {
    raw: "{not json",
    headers: { "Content-Type": "application/json", "X-Forwarded-For": freshAddress() },
  });
  assert.equal(notJson.status, 400);
  assert.equal(notJson.body.error, "invalid_client_metadata");
  for (const type of ["text/plain", "application/x-www-form-urlencoded"]) {
    const res = await call("POST", "/api/oauth/register", {
      raw: JSON.stringify({ redirect_uris: ["https://a.example/cb"] }),
      headers: { "Content-Type": type, "X-Forwarded-For": freshAddress() },
    });
    assert.equal(res.status, 400, type);
    assert.equal(res.body.error, "invalid_client_metadata", "OAuth shape, not the envelope");
  }
});

test("RATE-042 RATE-043 attack: registration flood from one address answers 429 with Retry-After", async () => {
  const address = freshAddress();
  const before = await clientCount();
  let limited = null;
  for (let i = 0; i < 25 && !limited; i++) {
    const res = await register({ redirect_uris: ["https://a.example/cb"] }, address);
    if (res.status === 429) limited = res;
    else assert.equal(res.status, 201);
  }
  assert.ok(limited, "the 21st registration is refused");
  assert.ok(Number(limited.headers.get("retry-after")) >= 1);
  assert.equal(typeof limited.body.error, "string");
  assert.equal(await clientCount(), before + 20);
  const other = await register({ redirect_uris: ["https://a.example/cb"] });
  assert.equal(other.status, 201, "another address is not limited");
});

test("OAUTH-023 registration with the database unreachable answers 503 temporarily_unavailable, OAuth shape", async () => {
  const down = await startTestEnv();
  await down.close();
  const res = await callOn(down, "POST", "/api/oauth/register", {
    body: { client_name: "x", redirect_uris: ["https://app.example.com/cb"] },
    headers: { "X-Forwarded-For": freshAddress() },
  });
  assert.equal(res.status, 503, res.text);
  assert.equal(res.body.error, "temporarily_unavailable");
  assert.equal(typeof res.body.error_description, "string");
  assert.equal(res.body.data, undefined, "OAuth shape, not the envelope");
  assert.ok(Number(res.headers.get("retry-after")) > 0, "Retry-After tells the client when to come back");
});

test("registration bodies failing the route's schema answer OAuth errors and count toward the rate limit", async () => {
  const address = freshAddress();
  const before = await clientCount();
  const name = await register({ client_name: 5, redirect_uris: ["https://a.example/cb"] }, address);
  assert.equal(name.status, 400, name.text);
  assert.deepEqual(name.body, {
    error: "invalid_client_metadata",
    error_description: "client_name must be a string",
  });
  const nullName = await register({ client_name: null, redirect_uris: ["https://a.example/cb"] }, address);
  assert.equal(nullName.body.error_description, "client_name must be a string");
  const uris = await register({ redirect_uris: "https://a.example/cb" }, address);
  assert.deepEqual(uris.body, {
    error: "invalid_redirect_uri",
    error_description: "redirect_uris must be an array of 1 to 10 URIs",
  });
  const element = await register({ redirect_uris: ["https://a.example/cb", 7] }, address);
  assert.deepEqual(element.body, {
    error: "invalid_redirect_uri",
    error_description: "redirect_uris[1] is not a string",
  });
  const response = await register(
    { redirect_uris: ["https://a.example/cb"], response_types: ["token"] },
    address,
  );
  assert.deepEqual(response.body, {
    error: "invalid_client_metadata",
    error_description: "response_types may hold only code",
  });
  for (let i = 5; i < 20; i++) {
    const res = await register({ client_name: ["x"], redirect_uris: ["https://a.example/cb"] }, address);
    assert.equal(res.status, 400, res.text);
  }
  const limited = await register({ redirect_uris: ["https://a.example/cb"] }, address);
  assert.equal(limited.status, 429, "20 refused bodies used up the address's registrations");
  assert.equal(limited.body.error, "slow_down");
  assert.equal(await clientCount(), before, "nothing was stored");
});
