import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { advanceClock, env, test } from "../helpers/mod.ts";
import { startTestEnv } from "../helpers/env.ts";
import { pruneTables } from "@/domain/maintenance/prune.ts";
import { SIGNIN_WINDOW_MS } from "@/domain/oauth/consent.ts";
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

const ISS = "http://localhost:8787";
const CB = "https://app.example.com/cb";

function sha256(s: string): string {
  return createHash("sha256").update(s).digest("hex");
}

async function codeRows() {
  const e = await env();
  return await e.db.selectFrom("oauth_codes").selectAll().execute();
}

function assertErrorPage(page: Page) {
  assert.equal(page.status, 400, page.text.slice(0, 200));
  assert.equal(page.location, null, "never redirected");
  assert.match(page.text, /Authorization request refused/);
  assert.equal(page.headers.get("x-frame-options"), "DENY");
}

function params(location: string): URLSearchParams {
  return new URL(location).searchParams;
}

/** Signs in and approves; returns the redirect. */
async function approve(
  query: Record<string, string | undefined>,
  user: { email: string; password: string },
  pick?: (fields: Record<string, string>, html: string) => Record<string, string>,
) {
  const browser = new Browser();
  const consent = await browser.signIn(authorizeQuery(query), user.email, user.password);
  assert.equal(consent.status, 200);
  const fields = formFields(consent.text);
  const form = pick
    ? pick(fields, consent.text)
    : { ...fields, project_id: projectOptions(consent.text)[0]! };
  const res = await browser.post({ ...form, action: "approve" });
  return { res, browser, consent };
}

test("OAUTH-029 an unknown client shows the fixed error page (400) and never redirects", async () => {
  const { challenge } = pkce();
  const page = await new Browser().get(
    authorizeQuery({
      response_type: "code",
      client_id: "svc_client_nope",
      redirect_uri: CB,
      code_challenge: challenge,
    }),
  );
  assertErrorPage(page);
});

test("OAUTH-028 OAUTH-029 redirect not equal to the registered one is refused without redirect (raw comparison)", async () => {
  const clientId = await registerClient([CB, "com.example.app:/cb"]);
  const { challenge } = pkce();
  const variants = [
    "https://APP.example.com/cb", // upper-case host
    "https://app.example.com:443/cb", // explicit default port
    "https://app.example.com/cb/", // trailing slash
    "https://app.example.com/cb?x=1", // added query
    "https://app.example.com/x/../cb", // dot segments
    "https://app.example.com%2Fcb", // encoded slash
    "https://app.example.com/%63b", // encoded letter
    "https://app.example.com/cb#frag",
    "https://app.example.com.evil.com/cb",
    "https://evil.com/cb",
    "HTTPS://app.example.com/cb",
    "com.example.app:/cb/",
    "javascript:alert(1)",
    "JavaScript://app.example.com/cb",
    " javascript:alert(1)",
    "data:text/html,x",
    "",
  ];
  for (const redirect of variants) {
    const page = await new Browser().get(
      authorizeQuery({
        response_type: "code",
        client_id: clientId,
        redirect_uri: redirect,
        code_challenge: challenge,
      }),
    );
    assertErrorPage(page);
  }
  // Missing redirect_uri altogether.
  assertErrorPage(
    await new Browser().get(
      authorizeQuery({ response_type: "code", client_id: clientId, code_challenge: challenge }),
    ),
  );
  // The exact registered URIs pass.
  for (const redirect of [CB, "com.example.app:/cb"]) {
    const page = await new Browser().get(
      authorizeQuery({
        response_type: "code",
        client_id: clientId,
        redirect_uri: redirect,
        code_challenge: challenge,
      }),
    );
    assert.equal(page.status, 200, redirect);
  }
});

test("OAUTH-028 a redirect registered by another client is refused", async () => {
  await registerClient(["https://other.example.com/cb"]);
  const mine = await registerClient([CB]);
  const page = await new Browser().get(
    authorizeQuery({
      response_type: "code",
      client_id: mine,
      redirect_uri: "https://other.example.com/cb",
      code_challenge: pkce().challenge,
    }),
  );
  assertErrorPage(page);
});

test("OAUTH-025 client_id is required for a non-loopback redirect and optional for loopback", async () => {
  const { challenge } = pkce();
  assertErrorPage(
    await new Browser().get(
      authorizeQuery({ response_type: "code", redirect_uri: CB, code_challenge: challenge }),
    ),
  );
  const loop = await new Browser().get(
    authorizeQuery({
      response_type: "code",
      redirect_uri: "http://127.0.0.1:7777/cb",
      code_challenge: challenge,
    }),
  );
  assert.equal(loop.status, 200);
  assert.match(loop.text, /Sign in/);
  assertErrorPage(
    await new Browser().get(
      authorizeQuery({
        response_type: "code",
        redirect_uri: "http://127.0.0.1.evil.com/cb",
        code_challenge: challenge,
      }),
    ),
  );
});

test("OAUTH-027 a loopback redirect matches its registered loopback URI on any port, not another path", async () => {
  const clientId = await registerClient(["http://127.0.0.1:1234/cb"]);
  const { challenge } = pkce();
  const ok = await new Browser().get(authorizeQuery({
    response_type: "code",
    client_id: clientId,
    redirect_uri: "http://127.0.0.1:55555/cb",
    code_challenge: challenge,
  }));
  assert.equal(ok.status, 200);
  for (
    const redirect of [
      "http://127.0.0.1:55555/other",
      "http://localhost:55555/cb",
      "http://127.0.0.1:1234/cb/",
    ]
  ) {
    assertErrorPage(
      await new Browser().get(
        authorizeQuery({
          response_type: "code",
          client_id: clientId,
          redirect_uri: redirect,
          code_challenge: challenge,
        }),
      ),
    );
  }
});

test("OAUTH-030 OAUTH-031 OAUTH-032 missing, plain or malformed PKCE gets no code: invalid_request redirect", async () => {
  const clientId = await registerClient([CB]);
  const { challenge } = pkce();
  const cases: Record<string, string | undefined>[] = [
    {}, // no challenge
    { code_challenge: challenge, code_challenge_method: "plain" },
    { code_challenge: challenge, code_challenge_method: "s256" },
    { code_challenge: challenge, code_challenge_method: "" },
    { code_challenge: "short" },
    { code_challenge: "a".repeat(129) },
    { code_challenge: challenge.slice(0, 42) + "+" },
    { code_challenge: challenge.slice(0, 42) + "=" },
  ];
  const before = (await codeRows()).length;
  for (const extra of cases) {
    const page = await new Browser().get(
      authorizeQuery({
        response_type: "code",
        client_id: clientId,
        redirect_uri: CB,
        state: "st-1",
        ...extra,
      }),
    );
    assert.equal(page.status, 303, JSON.stringify(extra));
    assert.ok(page.location!.startsWith(`${CB}?`));
    const p = params(page.location!);
    assert.equal(p.get("error"), "invalid_request");
    assert.equal(p.get("state"), "st-1");
    assert.equal(p.get("iss"), ISS);
    assert.equal(p.get("code"), null);
  }
  // With an invalid redirect the PKCE error is never sent anywhere.
  assertErrorPage(
    await new Browser().get(
      authorizeQuery({ response_type: "code", client_id: clientId, redirect_uri: "https://evil.com/cb" }),
    ),
  );
  assert.equal((await codeRows()).length, before);
});

test("OAUTH-024 response_type other than code is refused by redirect, never issues a code", async () => {
  const clientId = await registerClient([CB]);
  for (
    const [rt, error] of [["token", "unsupported_response_type"], [undefined, "invalid_request"]] as const
  ) {
    const page = await new Browser().get(
      authorizeQuery({
        response_type: rt,
        client_id: clientId,
        redirect_uri: CB,
        code_challenge: pkce().challenge,
      }),
    );
    assert.equal(page.status, 303);
    assert.equal(params(page.location!).get("error"), error);
  }
});

test("attack: a duplicated authorize parameter shows the error page", async () => {
  const clientId = await registerClient([CB]);
  const q = authorizeQuery({
    response_type: "code",
    client_id: clientId,
    redirect_uri: CB,
    code_challenge: pkce().challenge,
  });
  assertErrorPage(await new Browser().get(`${q}&redirect_uri=${encodeURIComponent("https://evil.com/cb")}`));
});

test("attack: clickjacking headers on the sign-in, consent and error pages", async () => {
  const user = await newUser();
  const clientId = await registerClient([CB]);
  const q = authorizeQuery({
    response_type: "code",
    client_id: clientId,
    redirect_uri: CB,
    code_challenge: pkce().challenge,
  });
  const browser = new Browser();
  const signIn = await browser.get(q);
  const consent = await browser.signIn(q, user.email, user.password);
  const error = await new Browser().get("/oauth/authorize");
  for (const page of [signIn, consent, error]) {
    const csp = page.headers.get("content-security-policy") ?? "";
    assert.match(csp, /frame-ancestors 'none'/);
    assert.match(csp, /default-src 'none'/);
    assert.equal(page.headers.get("x-frame-options"), "DENY");
    assert.equal(page.headers.get("cache-control"), "no-store");
    assert.doesNotMatch(page.text, /<script/i, "works without JavaScript");
  }
  assert.match(consent.text, /<label for="project">Project<\/label>/);
  assert.match(consent.text, /<label for="new_project_name">New project name<\/label>/);
  assert.match(consent.text, />Approve<\/button>/);
  assert.match(consent.text, />Deny<\/button>/);
});

test("sign-in page: Email, Password, Sign in; cookie HttpOnly, SameSite=Lax, no Secure on http", async () => {
  const user = await newUser();
  const clientId = await registerClient([CB]);
  const q = authorizeQuery({
    response_type: "code",
    client_id: clientId,
    redirect_uri: CB,
    code_challenge: pkce().challenge,
  });
  const browser = new Browser();
  const page = await browser.get(q);
  assert.match(page.text, /<label for="email">Email<\/label>/);
  assert.match(page.text, /<label for="password">Password<\/label>/);
  assert.match(page.text, /<button type="submit">Sign in<\/button>/);
  const posted = await browser.post({ ...formFields(page.text), email: user.email, password: user.password });
  assert.equal(posted.status, 303);
  const cookie = posted.headers.getSetCookie().find((c) => c.startsWith("svc_oauth_session="))!;
  assert.match(cookie, /HttpOnly/i);
  assert.match(cookie, /SameSite=Lax/i);
  assert.doesNotMatch(cookie, /Secure/i);
  const e = await env();
  const value = cookie.split(";")[0]!.split("=")[1]!;
  const row = await e.db.selectFrom("web_sessions").selectAll().where("id_hash", "=", sha256(value))
    .executeTakeFirst();
  assert.equal(row?.user_id, user.userId, "browser session stored by hash");
});

test("sign-in cookies are Secure when PUBLIC_URL is https", async () => {
  const other = await startTestEnv({ publicUrl: "https://auth.example.com" });
  try {
    const res = await other.fetch(
      authorizeQuery({
        response_type: "code",
        redirect_uri: "http://127.0.0.1:9/cb",
        code_challenge: pkce().challenge,
      }),
    );
    assert.equal(res.status, 200);
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith("svc_oauth_pre="))!;
    assert.match(cookie, /Secure/);
    assert.match(cookie, /HttpOnly/i);
    await res.body?.cancel();
  } finally {
    await other.close();
  }
});

test("attack: a failed sign-in does not say which part was wrong and opens no session", async () => {
  const user = await newUser();
  const clientId = await registerClient([CB]);
  const q = authorizeQuery({
    response_type: "code",
    client_id: clientId,
    redirect_uri: CB,
    code_challenge: pkce().challenge,
  });
  const texts: string[] = [];
  for (const [email, password] of [[user.email, "wrong"], ["nobody@example.com", user.password]]) {
    const browser = new Browser();
    const page = await browser.get(q);
    const res = await browser.post({ ...formFields(page.text), email: email!, password: password! });
    assert.equal(res.status, 401);
    assert.equal(browser.cookies.has("svc_oauth_session"), false);
    texts.push(/<p class="error" role="alert">([^<]*)<\/p>/.exec(res.text)![1]!);
  }
  assert.equal(texts[0], texts[1]);
  assert.equal(texts[0], "Email or password is incorrect.");
});

test("attack: CSRF token missing or wrong on sign-in and consent is refused (403), no code", async () => {
  const user = await newUser();
  const clientId = await registerClient([CB]);
  const q = authorizeQuery({
    response_type: "code",
    client_id: clientId,
    redirect_uri: CB,
    code_challenge: pkce().challenge,
  });
  const browser = new Browser();
  const page = await browser.get(q);
  const fields = formFields(page.text);
  const { csrf_token: _drop, ...noToken } = fields;
  assert.equal((await browser.post({ ...noToken, email: user.email, password: user.password })).status, 403);
  assert.equal(
    (await browser.post({
      ...fields,
      csrf_token: "x".repeat(64),
      email: user.email,
      password: user.password,
    }))
      .status,
    403,
  );
  // Sign-in form token from another browser (pre-session) does not work with this cookie.
  const other = new Browser();
  const otherPage = await other.get(q);
  assert.equal(
    (await browser.post({
      ...fields,
      csrf_token: formFields(otherPage.text).csrf_token!,
      email: user.email,
      password: user.password,
    }))
      .status,
    403,
  );
  assert.equal(browser.cookies.has("svc_oauth_session"), false);

  const consent = await browser.signIn(q, user.email, user.password);
  const consentFields = formFields(consent.text);
  const projectId = projectOptions(consent.text)[0]!;
  const before = (await codeRows()).length;
  const { csrf_token: signInToken } = fields;
  for (const token of [undefined, "", "bogus", signInToken]) {
    const form: Record<string, string> = { ...consentFields, project_id: projectId, action: "approve" };
    if (token === undefined) delete form.csrf_token;
    else form.csrf_token = token!;
    const res = await browser.post(form);
    assert.equal(res.status, 403, `token ${token}`);
    assert.equal(res.location, null);
  }
  // Another user's valid consent token does not work with this session.
  const mallory = await newUser();
  const malloryConsent = await new Browser().signIn(q, mallory.email, mallory.password);
  const res = await browser.post({
    ...consentFields,
    csrf_token: formFields(malloryConsent.text).csrf_token!,
    project_id: projectId,
    action: "approve",
  });
  assert.equal(res.status, 403);
  assert.equal((await codeRows()).length, before);
});

test("OAUTH-037 OAUTH-036 OAUTH-039 approve stores the code hashed with the challenge (60 s) and redirects with code, state, iss", async () => {
  const user = await newUser("member");
  const clientId = await registerClient([CB]);
  const { challenge } = pkce();
  const state = "s t&a=te/✓";
  const { res } = await approve(
    {
      response_type: "code",
      client_id: clientId,
      redirect_uri: CB,
      code_challenge: challenge,
      code_challenge_method: "S256",
      scope: "read write",
      state,
    },
    user,
  );
  assert.equal(res.status, 303);
  assert.ok(res.location!.startsWith(`${CB}?`));
  const p = params(res.location!);
  const code = p.get("code")!;
  assert.match(code, /^svc_ac_[A-Za-z0-9_-]{40,}$/);
  assert.equal(p.get("state"), state);
  assert.equal(p.get("iss"), ISS);
  assert.equal(res.headers.get("cache-control"), "no-store");
  const rows = (await codeRows()).filter((r) => r.code_hash === sha256(code));
  assert.equal(rows.length, 1);
  const row = rows[0]!;
  assert.equal(row.code_challenge, challenge);
  assert.equal(row.client_id, clientId);
  assert.equal(row.redirect_uri, CB);
  assert.equal(row.user_id, user.userId);
  assert.equal(row.project_id, user.projectId);
  assert.equal(row.scope, "write", "member asking write gets write");
  assert.equal(row.used_at, null);
  assert.equal(row.expires_at.getTime() - row.created_at.getTime(), 60_000);
  assert.ok(!JSON.stringify(await codeRows()).includes(code), "the clear code is stored nowhere");
});

test("OAUTH-035 a viewer asking for write is capped to read", async () => {
  const user = await newUser("viewer");
  const clientId = await registerClient([CB]);
  const { res, consent } = await approve(
    {
      response_type: "code",
      client_id: clientId,
      redirect_uri: CB,
      code_challenge: pkce().challenge,
      scope: "write",
    },
    user,
  );
  assert.match(consent.text, /\(.*, read\)<\/option>/);
  const code = params(res.location!).get("code")!;
  const row = (await codeRows()).find((r) => r.code_hash === sha256(code))!;
  assert.equal(row.scope, "read");
});

test("OAUTH-034 an omitted or unknown scope falls back to read", async () => {
  const user = await newUser("admin");
  const clientId = await registerClient([CB]);
  for (const scope of [undefined, "admin", "writeall"]) {
    const { res } = await approve(
      {
        response_type: "code",
        client_id: clientId,
        redirect_uri: CB,
        code_challenge: pkce().challenge,
        scope,
      },
      user,
    );
    const row = (await codeRows()).find((r) => r.code_hash === sha256(params(res.location!).get("code")!))!;
    assert.equal(row.scope, "read", String(scope));
  }
});

test("OAUTH-038 deny redirects with access_denied, state and iss, and stores no code", async () => {
  const user = await newUser();
  const clientId = await registerClient([CB]);
  const before = (await codeRows()).length;
  const browser = new Browser();
  const consent = await browser.signIn(
    authorizeQuery({
      response_type: "code",
      client_id: clientId,
      redirect_uri: CB,
      code_challenge: pkce().challenge,
      state: "xyz",
    }),
    user.email,
    user.password,
  );
  const res = await browser.post({ ...formFields(consent.text), action: "deny" });
  assert.equal(res.status, 303);
  const p = params(res.location!);
  assert.equal(p.get("error"), "access_denied");
  assert.equal(p.get("state"), "xyz");
  assert.equal(p.get("iss"), ISS);
  assert.equal(p.get("code"), null);
  assert.equal((await codeRows()).length, before);
});

test("OAUTH-037 a new project named on the page is created in the org where the user is admin", async () => {
  const user = await newUser("admin");
  const clientId = await registerClient([CB]);
  const { res } = await approve(
    {
      response_type: "code",
      client_id: clientId,
      redirect_uri: CB,
      code_challenge: pkce().challenge,
      scope: "write",
    },
    user,
    (fields) => ({ ...fields, project_id: user.projectId, new_project_name: "Fresh <b>one</b>" }),
  );
  assert.equal(res.status, 303);
  const row = (await codeRows()).find((r) => r.code_hash === sha256(params(res.location!).get("code")!))!;
  assert.notEqual(row.project_id, user.projectId);
  const e = await env();
  const project = await e.db.selectFrom("projects").selectAll().where("id", "=", row.project_id)
    .executeTakeFirstOrThrow();
  assert.equal(project.name, "Fresh <b>one</b>");
  assert.equal(project.org_id, user.orgId);
  assert.match(project.ticket_prefix, /^[A-Z]{2,10}$/);
  const membership = await e.db.selectFrom("memberships").selectAll().where("project_id", "=", row.project_id)
    .executeTakeFirstOrThrow();
  assert.equal(membership.user_id, user.userId);
  assert.equal(membership.role, "admin");
  assert.equal(row.scope, "write");
});

test("OAUTH-037 a member who is admin nowhere gets the new project in a new organization", async () => {
  const user = await newUser("member");
  const clientId = await registerClient([CB]);
  const { res } = await approve(
    { response_type: "code", client_id: clientId, redirect_uri: CB, code_challenge: pkce().challenge },
    user,
    (fields) => ({ ...fields, new_project_name: "Side project" }),
  );
  const row = (await codeRows()).find((r) => r.code_hash === sha256(params(res.location!).get("code")!))!;
  const e = await env();
  const project = await e.db.selectFrom("projects").selectAll().where("id", "=", row.project_id)
    .executeTakeFirstOrThrow();
  assert.notEqual(project.org_id, user.orgId);
  const org = await e.db.selectFrom("organizations").selectAll().where("id", "=", project.org_id)
    .executeTakeFirstOrThrow();
  assert.equal(org.status, "active");
});

test("OAUTH-040 attack: approving a project the user is not a member of is refused", async () => {
  const user = await newUser();
  const stranger = await newUser();
  const clientId = await registerClient([CB]);
  const before = (await codeRows()).length;
  const { res } = await approve(
    { response_type: "code", client_id: clientId, redirect_uri: CB, code_challenge: pkce().challenge },
    user,
    (fields) => ({ ...fields, project_id: stranger.projectId }),
  );
  assert.equal(res.status, 400);
  assert.equal(res.location, null);
  assert.equal((await codeRows()).length, before);
});

test("OAUTH-020 attack: client_name is escaped and shown as unverified with the redirect host verbatim", async () => {
  const user = await newUser();
  const clientId = await registerClient(
    ["https://cb.example.net:8443/cb"],
    `<script>alert(1)</script><img src=x onerror=alert(2)>"'`,
  );
  const consent = await new Browser().signIn(
    authorizeQuery({
      response_type: "code",
      client_id: clientId,
      redirect_uri: "https://cb.example.net:8443/cb",
      code_challenge: pkce().challenge,
    }),
    user.email,
    user.password,
  );
  assert.doesNotMatch(consent.text, /<script>|<img/);
  assert.match(consent.text, /&#60;script&#62;alert\(1\)&#60;&#47;script&#62;/);
  assert.match(consent.text, /\(unverified\)/);
  assert.match(consent.text, /<code id="redirect-host">cb.example.net:8443<\/code>/);
});

test("attack: password guessing from one address is refused after 10 failures (429), even with the right password", async () => {
  // The strikes count in fixed windows: start one second into a fresh window, so that the eleven attempts
  // cannot straddle a boundary (which split them and let the test fail at, say, 00:45:00).
  const now = (await env()).clock.now().getTime();
  await advanceClock(SIGNIN_WINDOW_MS - (now % SIGNIN_WINDOW_MS) + 1000);
  const user = await newUser();
  const q = authorizeQuery({
    response_type: "code",
    redirect_uri: "http://127.0.0.1:9/cb",
    code_challenge: pkce().challenge,
  });
  const browser = new Browser();
  const page = await browser.get(q);
  const fields = formFields(page.text);
  for (let i = 0; i < 10; i++) {
    const res = await browser.post({ ...fields, email: user.email, password: `guess-${i}` });
    assert.equal(res.status, 401);
  }
  const blocked = await browser.post({ ...fields, email: user.email, password: user.password });
  assert.equal(blocked.status, 429);
  assert.ok(Number(blocked.headers.get("retry-after")) > 0);
  assert.equal(browser.cookies.has("svc_oauth_session"), false);
  const elsewhere = new Browser();
  const again = await elsewhere.get(q);
  const ok = await elsewhere.post({ ...formFields(again.text), email: user.email, password: user.password });
  assert.equal(ok.status, 303, "another address signs in");
});

test("OAUTH-025 OAUTH-027 a loopback redirect without client_id is approved; the code row has no client", async () => {
  const user = await newUser("member");
  const { challenge } = pkce();
  const redirect = "http://localhost:43117/callback";
  const { res, consent } = await approve(
    { response_type: "code", redirect_uri: redirect, code_challenge: challenge, state: "loop" },
    user,
  );
  assert.match(consent.text, /not registered/);
  assert.equal(res.status, 303);
  assert.ok(res.location!.startsWith(`${redirect}?`));
  const p = params(res.location!);
  assert.equal(p.get("state"), "loop");
  const row = (await codeRows()).find((r) => r.code_hash === sha256(p.get("code")!))!;
  assert.equal(row.client_id, null);
  assert.equal(row.redirect_uri, redirect);
  assert.equal(row.code_challenge, challenge);
});

test("attack: a signed-out browser cannot approve or deny (no session: sign-in page, no redirect)", async () => {
  const user = await newUser();
  const clientId = await registerClient([CB]);
  const q = authorizeQuery({
    response_type: "code",
    client_id: clientId,
    redirect_uri: CB,
    code_challenge: pkce().challenge,
  });
  const victim = new Browser();
  const consent = await victim.signIn(q, user.email, user.password);
  const fields = formFields(consent.text);
  const attacker = new Browser();
  for (const action of ["approve", "deny"]) {
    const res = await attacker.post({ ...fields, project_id: user.projectId, action });
    assert.equal(res.status, 401);
    assert.equal(res.location, null);
    assert.match(res.text, /Sign in/);
  }
});

test("pruning drops authorization codes and browser sessions a day after they expired, not before", async () => {
  const user = await newUser();
  const clientId = await registerClient([CB]);
  const { res, browser } = await approve(
    { response_type: "code", client_id: clientId, redirect_uri: CB, code_challenge: pkce().challenge },
    user,
  );
  const codeHash = sha256(params(res.location!).get("code")!);
  const sessionHash = sha256(browser.cookies.get("svc_oauth_session")!);
  const e = await env();
  const exists = async () => [
    (await e.db.selectFrom("oauth_codes").select("id").where("code_hash", "=", codeHash).execute()).length,
    (await e.db.selectFrom("web_sessions").select("id_hash").where("id_hash", "=", sessionHash).execute())
      .length,
  ];
  const at = (ms: number) => ({
    db: e.db,
    clock: { ...e.clock, now: () => new Date(e.clock.now().getTime() + ms) },
  });
  await pruneTables(at(20 * 3600_000));
  assert.deepEqual(await exists(), [1, 1], "both expired less than a day ago: kept");
  await pruneTables(at(37 * 3600_000));
  assert.deepEqual(await exists(), [0, 0]);
});

test("OAUTH-026 authorize without redirect_uri shows the fixed error page and issues no code", async () => {
  const clientId = await registerClient([CB]);
  const before = (await codeRows()).length;
  const page = await new Browser().get(
    authorizeQuery({ response_type: "code", client_id: clientId, code_challenge: pkce().challenge }),
  );
  assertErrorPage(page);
  assert.equal((await codeRows()).length, before);
});

test("OAUTH-033 the scope is space-delimited: one containing write asks for write", async () => {
  const user = await newUser("admin");
  const clientId = await registerClient([CB]);
  for (const scope of ["read write", "write read", "openid write"]) {
    const { res } = await approve(
      {
        response_type: "code",
        client_id: clientId,
        redirect_uri: CB,
        code_challenge: pkce().challenge,
        scope,
      },
      user,
    );
    const row = (await codeRows()).find((r) => r.code_hash === sha256(params(res.location!).get("code")!))!;
    assert.equal(row.scope, "write", scope);
  }
});
