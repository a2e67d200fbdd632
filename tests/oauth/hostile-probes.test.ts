// deno-lint-ignore-file no-explicit-any
// Probes of a hostile-client review (issue 22, point 4) on the OAuth server: a control character in a
// loopback redirect, secrets in logs, revocation by a foreign client, registration errors in the OAuth
// shape, resource indicators (RFC 8707), refresh scope (RFC 6749 section 6) and the consent page's
// read-only choice.
import assert from "node:assert/strict";
import { call, env, test } from "../helpers/mod.ts";
import { loggableError, redactSecrets } from "@/shared/log-safe.ts";
import { logWriter } from "@/http/access-log.ts";
import { hashToken } from "@/domain/core/crypto.ts";
import {
  authorizeQuery,
  Browser,
  formFields,
  newUser,
  type Page,
  pkce,
  projectOptions,
  registerClient,
} from "./flow.ts";
import {
  claimsOf,
  grantee,
  liveInFamily,
  newClient,
  newCode,
  oauthPost,
  redeem,
  refresh,
  refreshRow,
  tokens,
} from "./token-fixtures.ts";

const CB = "https://app.example.com/cb";
const LOOPBACK = "http://127.0.0.1:9/cb";
const MCP_URL = "http://localhost:8787/mcp";

function assertErrorPage(page: Page) {
  assert.equal(page.status, 400, page.text.slice(0, 200));
  assert.equal(page.location, null, "never redirected");
  assert.match(page.text, /Authorization request refused/);
}

async function codesOf(userId: string): Promise<number> {
  const e = await env();
  const rows = await e.db.selectFrom("oauth_codes").select("id").where("user_id", "=", userId).execute();
  return rows.length;
}

/** Runs `fn` with console output collected (and not printed); returns what was written. */
async function capturingConsole(fn: () => Promise<void>): Promise<string> {
  const lines: string[] = [];
  const saved = { error: console.error, log: console.log, warn: console.warn, info: console.info };
  const collect = (...args: unknown[]) => {
    lines.push(args.map((a) => (typeof a === "string" ? a : Deno.inspect(a))).join(" "));
  };
  console.error = collect;
  console.log = collect;
  console.warn = collect;
  console.info = collect;
  try {
    await fn();
  } finally {
    Object.assign(console, saved);
  }
  return lines.join("\n");
}

// --- b. control characters in a loopback redirect_uri; no secret in any log line --------------------

test("attack: a loopback redirect_uri with %0D%0A shows the fixed error page (not 500), also without response_type", async () => {
  const { challenge } = pkce();
  const evil = `${LOOPBACK}\r\nSet-Cookie: x=1`;
  const full = await new Browser().get(
    authorizeQuery({ response_type: "code", redirect_uri: evil, code_challenge: challenge, state: "s" }),
  );
  assertErrorPage(full);
  // A redirect_error (no response_type) would have put the CRLF into Location: 500 before.
  const partial = await new Browser().get(authorizeQuery({ redirect_uri: evil, code_challenge: challenge }));
  assertErrorPage(partial);
});

test("attack: approving with a %0D%0A loopback redirect stores no code and logs no code (was 500 with the code in the log)", async () => {
  const user = await newUser("member");
  const { challenge } = pkce();
  const browser = new Browser();
  const consent = await browser.signIn(
    authorizeQuery({ response_type: "code", redirect_uri: LOOPBACK, code_challenge: challenge }),
    user.email,
    user.password,
  );
  assert.equal(consent.status, 200);
  const form = {
    ...formFields(consent.text),
    redirect_uri: `${LOOPBACK}\r\nX-Injected: 1`,
    project_id: projectOptions(consent.text)[0]!,
    action: "approve",
  };
  let res: Page | undefined;
  const logged = await capturingConsole(async () => {
    res = await browser.post(form);
  });
  assertErrorPage(res!);
  assert.equal(await codesOf(user.userId), 0, "nothing stored");
  assert.doesNotMatch(logged, /svc_ac_/);
  assert.doesNotMatch(logged, /X-Injected/);
});

test("attack: logged errors and log fields never carry codes, tokens or passwords", () => {
  const jwt = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl";
  const err = new TypeError(
    `Invalid header value: "http://127.0.0.1/cb?code=svc_ac_SECRETCODE&state=s&iss=x" ` +
      `/api/oauth/token?access_token=${jwt}&refresh_token=svc_rt_SECRETRT&password=hunter2&token=abc ` +
      `{"password":"hunter3","code_verifier":"v3r1f13r"} Authorization: Bearer svc_sess_SECRETSESS`,
  );
  const text = loggableError(err);
  for (
    const secret of ["SECRETCODE", jwt, "SECRETRT", "hunter2", "hunter3", "v3r1f13r", "SECRETSESS", "=abc"]
  ) {
    assert.ok(!text.includes(secret), `${secret} in ${text}`);
  }
  assert.match(text, /code=\[redacted\]/);
  assert.match(text, /state=s/, "harmless parameters stay readable");
  assert.equal(redactSecrets("GET /api/tickets?status=open"), "GET /api/tickets?status=open");
  for (const format of ["json", "text"] as const) {
    const lines: string[] = [];
    logWriter(format, (l) => lines.push(l))("error", "request", { error: String(err), route: "/x" });
    assert.equal(lines.length, 1);
    assert.ok(!lines[0]!.includes("SECRETCODE") && !lines[0]!.includes("hunter2"), lines[0]);
  }
});

// --- d. revocation by a client the token was not issued to (RFC 7009 section 2.1) --------------------

test("OAUTH-060 attack: client B cannot revoke client A's refresh-token family (200, nothing revoked)", async () => {
  const a = await grantee();
  const first = await tokens(a);
  const otherClient = await newClient(["https://b.example.com/cb"]);
  const res = await oauthPost("/api/oauth/revoke", { token: first.refresh_token, client_id: otherClient });
  assert.equal(res.status, 200);
  assert.deepEqual(res.body, {});
  assert.equal((await refreshRow(first.refresh_token)).revoked_at, null);
  assert.equal((await refresh(a, first.refresh_token)).status, 200, "A's family still refreshes");
});

test("OAUTH-063 attack: client B cannot revoke client A's access token; A itself can", async () => {
  const a = await grantee();
  const first = await tokens(a);
  const otherClient = await newClient(["https://b.example.com/cb"]);
  const foreign = await oauthPost("/api/oauth/revoke", { token: first.access_token, client_id: otherClient });
  assert.equal(foreign.status, 200);
  assert.equal((await call("GET", "/me", { token: first.access_token })).status, 200, "still valid");
  const own = await oauthPost("/api/oauth/revoke", { token: first.access_token, client_id: a.clientId });
  assert.equal(own.status, 200);
  assert.equal(
    (await call("GET", "/me", { token: first.access_token })).status,
    401,
    "revoked by its client",
  );
});

test("OAUTH-061 revoking with the token's own client_id revokes the family", async () => {
  const a = await grantee();
  const first = await tokens(a);
  const res = await oauthPost(
    "/api/oauth/revoke",
    { token: first.refresh_token, client_id: a.clientId },
    true,
  );
  assert.equal(res.status, 200);
  assert.equal(await liveInFamily((await refreshRow(first.refresh_token)).family_id), 0);
});

// --- e. registration errors are OAuth-shaped; private-use schemes are reverse domains ------------------

let addressSeq = 0;
async function register(init: { body?: unknown; raw?: string; type?: string }) {
  addressSeq++;
  return await call("POST", "/api/oauth/register", {
    ...(init.raw !== undefined ? { raw: init.raw } : { body: init.body }),
    headers: {
      "X-Forwarded-For": `10.66.${Math.floor(addressSeq / 250)}.${(addressSeq % 250) + 1}`,
      ...(init.type ? { "Content-Type": init.type } : {}),
    },
  });
}

function assertOAuthError(res: { status: number; body: any; text: string }, error: string, status = 400) {
  assert.equal(res.status, status, res.text);
  assert.equal(res.body.error, error, res.text);
  assert.equal(typeof res.body.error_description, "string", res.text);
  assert.equal(Object.keys(res.body).sort().join(","), "error,error_description", res.text);
}

test("OAUTH-002 attack: a NUL in a registered redirect_uri answers invalid_redirect_uri (not the REST shape)", async () => {
  const res = await register({
    body: { client_name: "x", redirect_uris: ["https://a.example.com/cb\u0000x"] },
  });
  assertOAuthError(res, "invalid_redirect_uri");
});

test("OAUTH-002 attack: malformed JSON, wrong content type, deep nesting, an oversized body and a NUL in the name at registration answer invalid_client_metadata", async () => {
  assertOAuthError(await register({ raw: "{not json", type: "application/json" }), "invalid_client_metadata");
  assertOAuthError(
    await register({ raw: "redirect_uris=https://a.example.com/cb", type: "text/plain" }),
    "invalid_client_metadata",
  );
  const deep = "[".repeat(100) + "]".repeat(100);
  assertOAuthError(
    await register({
      raw: `{"redirect_uris":["https://a.example.com/cb"],"x":${deep}}`,
      type: "application/json",
    }),
    "invalid_client_metadata",
  );
  const huge = `{"redirect_uris":["https://a.example.com/cb"],"client_name":"${"x".repeat(1024 * 1024)}"}`;
  assertOAuthError(await register({ raw: huge, type: "application/json" }), "invalid_client_metadata", 413);
  const nulName = await register({
    raw: '{"redirect_uris":["https://a.example.com/cb"],"client_name":"a\\u0000b"}',
    type: "application/json",
  });
  assert.equal(nulName.status, 201, nulName.text);
  assert.equal(nulName.body.client_name, "a b", "control characters in the name are cleaned");
});

test("OAUTH-016 a private-use scheme must be a reverse domain name (RFC 8252 7.1): myapp:/cb is refused", async () => {
  for (const uri of ["myapp:/cb", "myapp:cb", "myapp://cb"]) {
    assertOAuthError(await register({ body: { redirect_uris: [uri] } }), "invalid_redirect_uri");
  }
  const ok = await register({
    body: {
      redirect_uris: [
        "com.example.app:/cb",
        "https://a.example.com/cb",
        "http://127.0.0.1:8080/cb",
        "cursor://anysphere.cursor-retrieval/oauth/callback",
      ],
    },
  });
  assert.equal(ok.status, 201, ok.text);
});

// --- f. resource indicators (RFC 8707) and refresh scope (RFC 6749 section 6) -------------------------

test("OAUTH-036 attack: authorize with a resource naming another service redirects with invalid_target", async () => {
  const clientId = await registerClient([CB]);
  const { challenge } = pkce();
  const base = {
    response_type: "code",
    client_id: clientId,
    redirect_uri: CB,
    code_challenge: challenge,
    state: "st",
  };
  const page = await new Browser().get(authorizeQuery({ ...base, resource: "https://evil.example.com/mcp" }));
  assert.equal(page.status, 303, page.text.slice(0, 200));
  const location = new URL(page.location!);
  assert.equal(location.origin + location.pathname, CB);
  assert.equal(location.searchParams.get("error"), "invalid_target");
  assert.equal(location.searchParams.get("state"), "st");
  for (const resource of [MCP_URL, `${MCP_URL}/`, "http://localhost:8787", "http://localhost:8787/"]) {
    const own = await new Browser().get(authorizeQuery({ ...base, resource }));
    assert.equal(own.status, 200, resource);
    assert.match(own.text, /Sign in/);
  }
});

test("OAUTH-037 the own resource survives sign-in and approve: a code is issued", async () => {
  const user = await newUser("member");
  const { challenge } = pkce();
  const browser = new Browser();
  const consent = await browser.signIn(
    authorizeQuery({
      response_type: "code",
      redirect_uri: LOOPBACK,
      code_challenge: challenge,
      resource: MCP_URL,
    }),
    user.email,
    user.password,
  );
  assert.equal(consent.status, 200);
  const fields = formFields(consent.text);
  assert.equal(fields.resource, MCP_URL);
  const res = await browser.post({
    ...fields,
    project_id: projectOptions(consent.text)[0]!,
    action: "approve",
  });
  assert.equal(res.status, 303);
  assert.ok(new URL(res.location!).searchParams.get("code")?.startsWith("svc_ac_"));
});

test("OAUTH-058 attack: the token endpoint answers invalid_target for another resource, and accepts its own", async () => {
  const g = await grantee();
  const { code } = await newCode(g);
  assertOAuthError(await redeem(g, code, { resource: "https://evil.example.com/mcp" }), "invalid_target");
  const ok = await redeem(g, code, { resource: MCP_URL });
  assert.equal(ok.status, 200, ok.text);
  assertOAuthError(
    await refresh(g, ok.body.refresh_token, { resource: "https://evil.example.com/" }),
    "invalid_target",
  );
  assert.equal((await refresh(g, ok.body.refresh_token, { resource: `${MCP_URL}/` })).status, 200);
});

test("OAUTH-051 attack: a refresh asking for more scope than granted is invalid_scope and consumes nothing", async () => {
  const g = await grantee();
  const first = await tokens(g, "read");
  assertOAuthError(await refresh(g, first.refresh_token, { scope: "read write" }), "invalid_scope");
  assert.equal((await refreshRow(first.refresh_token)).used_at, null, "the refresh token is not consumed");
  const again = await refresh(g, first.refresh_token, { scope: "read" });
  assert.equal(again.status, 200, again.text);
  assert.equal(again.body.scope, "read");
});

test("OAUTH-051 a refresh may ask for less: read on a write grant; the family keeps write", async () => {
  const g = await grantee();
  const first = await tokens(g, "write");
  const narrowed = await refresh(g, first.refresh_token, { scope: "read" });
  assert.equal(narrowed.status, 200, narrowed.text);
  assert.equal(narrowed.body.scope, "read");
  assert.equal(claimsOf(narrowed.body.access_token).scope, "read");
  const next = await refresh(g, narrowed.body.refresh_token);
  assert.equal(next.body.scope, "write", "omitted scope is the scope granted at consent");
});

// --- g. the consent page lets the user grant read only -----------------------------------------------

async function consentFor(scope: string) {
  const user = await newUser("member");
  const { challenge, verifier } = pkce();
  const browser = new Browser();
  const consent = await browser.signIn(
    authorizeQuery({ response_type: "code", redirect_uri: LOOPBACK, code_challenge: challenge, scope }),
    user.email,
    user.password,
  );
  assert.equal(consent.status, 200);
  const fields = { ...formFields(consent.text), project_id: projectOptions(consent.text)[0]! };
  return { browser, consent, fields, verifier };
}

async function grantedScopeOf(res: Page): Promise<string> {
  assert.equal(res.status, 303, res.text.slice(0, 200));
  const code = new URL(res.location!).searchParams.get("code")!;
  const e = await env();
  const row = await e.db.selectFrom("oauth_codes").select("scope").where("code_hash", "=", hashToken(code))
    .executeTakeFirstOrThrow();
  return row.scope;
}

test("OAUTH-033 the consent page offers read only when write is asked; choosing it grants read", async () => {
  const { browser, consent, fields } = await consentFor("read write");
  assert.match(consent.text, /name="access" value="write" checked/);
  assert.match(consent.text, /name="access" value="read"/);
  assert.equal(
    await grantedScopeOf(await browser.post({ ...fields, access: "read", action: "approve" })),
    "read",
  );
});

test("OAUTH-033 read and write (the default choice) grants write; the access token carries the chosen scope", async () => {
  const { browser, fields } = await consentFor("read write");
  assert.equal(
    await grantedScopeOf(await browser.post({ ...fields, access: "write", action: "approve" })),
    "write",
  );
  const readOnly = await consentFor("read write");
  const res = await readOnly.browser.post({ ...readOnly.fields, access: "read", action: "approve" });
  assert.equal(res.status, 303);
  const token = await oauthPost("/api/oauth/token", {
    grant_type: "authorization_code",
    code: new URL(res.location!).searchParams.get("code")!,
    redirect_uri: LOOPBACK,
    code_verifier: readOnly.verifier,
  });
  assert.equal(token.status, 200, token.text);
  assert.equal(token.body.scope, "read");
  assert.equal(claimsOf(token.body.access_token).scope, "read");
});

test("OAUTH-034 attack: a client asking only read cannot be granted write by the form", async () => {
  const { browser, consent, fields } = await consentFor("read");
  assert.doesNotMatch(consent.text, /name="access"/, "no choice when only read was asked");
  assert.equal(
    await grantedScopeOf(await browser.post({ ...fields, access: "write", action: "approve" })),
    "read",
  );
});
