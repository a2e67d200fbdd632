// The sign-in and consent page in a real browser: Debian's Chromium driven by playwright-core against
// a real `Deno.serve` of the app on 127.0.0.1 (random port), with a loopback callback server. Skips itself,
// saying so, only when no chromium binary exists (.ci/run installs Debian's `chromium`).
import assert from "node:assert/strict";
import { chromium } from "playwright-core";
import { ADMIN_TOKEN, startTestEnv, type TestEnv } from "../helpers/env.ts";
import { pkce } from "./flow.ts";
import { contractChecked } from "../helpers/contract-check.ts";

/** Calls over the socket, answers checked against the OpenAPI document. */
const fetch = contractChecked(globalThis.fetch);

function findChromium(): string | null {
  for (const name of ["chromium", "chromium-browser"]) {
    try {
      const out = new Deno.Command("sh", {
        args: ["-c", `command -v ${name}`],
        stdout: "piped",
        stderr: "null",
      })
        .outputSync();
      const path = new TextDecoder().decode(out.stdout).trim();
      if (out.success && path !== "") return path;
    } catch {
      // no shell: fall through
    }
  }
  return null;
}

// SVC_TEST_NO_BROWSER=1 skips it too: .ci/run drives the browser once, in the PGlite run (the pages' server
// side is covered on both engines by the HTTP tests).
const executablePath = Deno.env.get("SVC_TEST_NO_BROWSER") === "1" ? null : findChromium();
if (!executablePath) {
  console.warn("tests/oauth/browser.test.ts SKIPPED: no chromium binary, or SVC_TEST_NO_BROWSER=1");
}

interface Server {
  port: number;
  shutdown(): Promise<void>;
}

function serve(handler: (req: Request) => Response | Promise<Response>): Promise<Server> {
  return new Promise((resolve) => {
    const server = Deno.serve({
      hostname: "127.0.0.1",
      port: 0,
      onListen: ({ port }) => resolve({ port, shutdown: () => server.shutdown() }),
    }, handler);
  });
}

async function adminCall(e: TestEnv, method: string, path: string, body: unknown) {
  const res = await e.fetch(`/admin${path}`, {
    method,
    headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  const json = await res.json();
  if (res.status >= 300) throw new Error(`admin ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json.data;
}

Deno.test({
  name:
    "OAUTH-005 OAUTH-037 OAUTH-038 browser: register, sign in, pick a project, approve; new project; deny; read only",
  ignore: executablePath === null,
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    // The app behind a real socket; PUBLIC_URL is the served origin, so `iss` is what the browser sees.
    let e: TestEnv | null = null;
    const app = await serve((req) => {
      const url = new URL(req.url);
      return e!.fetch(url.pathname + url.search, {
        method: req.method,
        headers: req.headers,
        body: req.body,
        redirect: "manual",
      });
    });
    const origin = `http://127.0.0.1:${app.port}`;
    e = await startTestEnv({ publicUrl: origin });
    const callbacks: URLSearchParams[] = [];
    const callback = await serve((req) => {
      const url = new URL(req.url);
      // Only the callback itself (Chromium also asks this origin for /favicon.ico).
      if (url.pathname === "/cb") callbacks.push(url.searchParams);
      return new Response("<!doctype html><title>Callback</title><p>Callback received.</p>", {
        headers: { "Content-Type": "text/html" },
      });
    });
    const redirectUri = `http://127.0.0.1:${callback.port}/cb`;
    const browser = await chromium.launch({
      executablePath: executablePath!,
      headless: true,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
    });
    try {
      const org = await adminCall(e, "POST", "/orgs", { name: "Browser org", plan: "team" });
      const project = await adminCall(e, "POST", "/projects", {
        orgId: org.id,
        name: "Browser project",
        ticketPrefix: "BRW",
      });
      const email = "browser-user@example.com";
      const password = "correct horse battery staple";
      const user = await adminCall(e, "POST", "/users", { email, password, name: "Browser User" });
      await adminCall(e, "POST", `/projects/${project.id}/members`, { userId: user.id, role: "admin" });

      const registered = await fetch(`${origin}/api/oauth/register`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ client_name: "Browser <Test> Client", redirect_uris: [redirectUri] }),
      });
      assert.equal(registered.status, 201);
      const clientId = (await registered.json()).client_id as string;

      const authorizeUrl = (challenge: string, state: string) =>
        `${origin}/oauth/authorize?${new URLSearchParams({
          response_type: "code",
          client_id: clientId,
          redirect_uri: redirectUri,
          code_challenge: challenge,
          code_challenge_method: "S256",
          scope: "read write",
          state,
        })}`;

      const context = await browser.newContext({ javaScriptEnabled: false });
      const page = await context.newPage();

      // Run 1: sign in, pick the existing project, approve.
      const first = pkce();
      await page.goto(authorizeUrl(first.challenge, "state-one"));
      await page.getByLabel("Email").fill(email);
      await page.getByLabel("Password").fill(password);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.waitForURL(`${origin}/oauth/authorize?**`);
      assert.equal(await page.locator("#client-name").textContent(), "Browser <Test> Client");
      assert.match((await page.textContent("body")) ?? "", /unverified/);
      assert.equal(await page.locator("#redirect-host").textContent(), `127.0.0.1:${callback.port}`);
      await page.getByLabel("Project", { exact: true }).selectOption(project.id);
      await page.getByRole("button", { name: "Approve" }).click();
      await page.waitForURL(`${redirectUri}?**`);
      const one = callbacks.at(-1)!;
      assert.match(one.get("code") ?? "", /^svc_ac_/);
      assert.equal(one.get("state"), "state-one");
      assert.equal(one.get("iss"), origin);

      // The code exchanges with PKCE, and the access token reads GET /api/me.
      const exchanged = await fetch(`${origin}/api/oauth/token`, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          grant_type: "authorization_code",
          code: one.get("code")!,
          code_verifier: first.verifier,
          redirect_uri: redirectUri,
          client_id: clientId,
        }),
      });
      const tokens = await exchanged.json();
      assert.equal(exchanged.status, 200, JSON.stringify(tokens));
      assert.equal(tokens.token_type, "Bearer");
      assert.equal(tokens.scope, "write");
      const me = await fetch(`${origin}/api/me`, {
        headers: { Authorization: `Bearer ${tokens.access_token}` },
      });
      const meBody = await me.json();
      assert.equal(me.status, 200, JSON.stringify(meBody));
      assert.equal(meBody.data.project.id, project.id);
      assert.equal(meBody.data.agent.platform, "oauth");

      // Run 2: already signed in; create a new project on the page.
      const second = pkce();
      await page.goto(authorizeUrl(second.challenge, "state-two"));
      await page.getByLabel("New project name").fill("Made in the browser");
      await page.getByRole("button", { name: "Approve" }).click();
      await page.waitForURL(`${redirectUri}?**`);
      const two = callbacks.at(-1)!;
      assert.match(two.get("code") ?? "", /^svc_ac_/);
      assert.equal(two.get("state"), "state-two");
      assert.equal(two.get("iss"), origin);
      const created = await e.db.selectFrom("projects").selectAll().where("name", "=", "Made in the browser")
        .executeTakeFirstOrThrow();
      assert.equal(created.org_id, org.id, "created in the org where the user is admin");

      // Run 3: deny.
      const third = pkce();
      await page.goto(authorizeUrl(third.challenge, "state-three"));
      await page.getByRole("button", { name: "Deny" }).click();
      await page.waitForURL(`${redirectUri}?**`);
      const three = callbacks.at(-1)!;
      assert.equal(three.get("error"), "access_denied");
      assert.equal(three.get("state"), "state-three");
      assert.equal(three.get("iss"), origin);
      assert.equal(three.get("code"), null);

      // Run 4: the client asked for read and write; the person grants read only.
      const fourth = pkce();
      await page.goto(authorizeUrl(fourth.challenge, "state-four"));
      assert.equal(await page.getByLabel("Read and write").isChecked(), true, "write is the default choice");
      await page.getByLabel("Project", { exact: true }).selectOption(project.id);
      await page.getByLabel("Read only").check();
      await page.getByRole("button", { name: "Approve" }).click();
      await page.waitForURL(`${redirectUri}?**`);
      const four = callbacks.at(-1)!;
      assert.equal(four.get("state"), "state-four");
      const readOnly = await fetch(`${origin}/api/oauth/token`, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          grant_type: "authorization_code",
          code: four.get("code")!,
          code_verifier: fourth.verifier,
          redirect_uri: redirectUri,
          client_id: clientId,
        }),
      });
      const readTokens = await readOnly.json();
      assert.equal(readOnly.status, 200, JSON.stringify(readTokens));
      assert.equal(readTokens.scope, "read", "the token carries the scope the person chose");
      await context.close();
    } finally {
      await browser.close();
      await callback.shutdown();
      await app.shutdown();
      await e?.close();
    }
  },
});
