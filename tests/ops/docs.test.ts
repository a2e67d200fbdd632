// The API reference as a person uses it: Debian's Chromium loads /docs from a real socket with every
// request outside the service refused, so the page must work offline (no CDN). Reported as ignored, saying why,
// only when no chromium binary exists (.ci/run installs Debian's `chromium`).
import assert from "node:assert/strict";
import { chromium } from "playwright-core";
import { createApp } from "@/app.ts";
import { call, env, test } from "../helpers/mod.ts";

// SVC_TEST_NO_BROWSER=1 skips it too: .ci/run drives the browser once, in the PGlite run (the pages' server
// side is covered on both engines by the HTTP tests).
const executablePath = (Deno.env.get("SVC_TEST_NO_BROWSER") === "1" ? undefined : [
  "/usr/bin/chromium",
  "/usr/bin/chromium-browser",
].find((p) => {
  try {
    return Deno.statSync(p).isFile;
  } catch {
    return false;
  }
})) ?? "";

test("GET /docs is Scalar's reference page loading its bundle from this service, never a CDN", async () => {
  const page = await call("GET", "/docs");
  assert.equal(page.status, 200);
  assert.match(page.headers.get("Content-Type")!, /text\/html/);
  const scripts = [...page.text.matchAll(/<script[^>]*src="([^"]+)"/g)].map((m) => m[1]);
  assert.deepEqual(scripts, ["/docs/scalar.js", "/docs/a11y.js"]);
  assert.doesNotMatch(page.text, /https?:\/\/(cdn|fonts|unpkg)/);
  const bundle = await call("GET", "/docs/scalar.js", { headers: { "Accept-Encoding": "identity" } });
  assert.equal(bundle.status, 200);
  assert.match(bundle.headers.get("Content-Type")!, /javascript/);
  assert.match(bundle.text, /createApiReference/);
});

test(
  "Chromium renders the operations of /openapi.json at /docs with every outside request refused",
  async () => {
    const e = await env();
    const app = createApp({ db: e.db, engine: e.engine, clock: e.clock, config: e.config });
    const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, app.fetch);
    const origin = `http://127.0.0.1:${server.addr.port}`;
    const browser = await chromium.launch({
      executablePath,
      headless: true,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
    });
    const outside: string[] = [];
    try {
      const page = await browser.newPage();
      await page.route("**/*", (route) => {
        const url = route.request().url();
        if (url.startsWith(origin) || url.startsWith("data:") || url.startsWith("blob:")) {
          return route.continue();
        }
        outside.push(url);
        return route.abort();
      });
      await page.goto(`${origin}/docs`);
      // Scalar lists each operation by its summary once it has fetched and parsed the document.
      await page.getByText("Pair an agent with a code and get a session token").first().waitFor({
        timeout: 30_000,
      });
      await page.getByText("Agent Coordination Service").first().waitFor({ timeout: 5_000 });
      const outsideScripts = outside.filter((u) => /\.(m?js|css)(\?|$)/.test(u));
      assert.deepEqual(outsideScripts, [], "the page must not need a CDN");
    } finally {
      await browser.close();
      await server.shutdown();
    }
  },
  { ignore: executablePath === "", reason: "no chromium binary, or SVC_TEST_NO_BROWSER=1" },
);
