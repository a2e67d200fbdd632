// The dashboard as a person uses it: Debian's Chromium driven by playwright-core against a real
// `Deno.serve` of the app on 127.0.0.1. One browser for the file; each step has its own browser context
// (its own cookies). Skips itself, saying so, only when no chromium binary exists.
import assert from "node:assert/strict";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { callOn, env, pairAgent, test, type TestEnv } from "../helpers/mod.ts";
import { insertClaim, insertLedgerEntry, insertSprint, insertTicket } from "../helpers/fixtures.ts";
import { type DashFixture, dashFixture, PASSWORD } from "./helpers.ts";
import { CHROMIUM_ARGS, findChromium, serveApp } from "./browser.ts";

// SVC_TEST_NO_BROWSER=1 skips it too: .ci/run drives the browser once, in the PGlite run (the pages' server
// side is covered on both engines by the HTTP tests).
const executablePath = Deno.env.get("SVC_TEST_NO_BROWSER") === "1" ? null : findChromium();
if (!executablePath) {
  console.warn("tests/dashboard/browser.test.ts SKIPPED: no chromium binary, or SVC_TEST_NO_BROWSER=1");
}

interface World {
  e: TestEnv;
  origin: string;
  browser: Browser;
  f: DashFixture;
  base: string;
}

async function signIn(
  w: World,
  who: keyof DashFixture["users"],
  width = 1280,
): Promise<[BrowserContext, Page]> {
  const context = await w.browser.newContext({ viewport: { width, height: 900 } });
  const page = await context.newPage();
  await page.goto(`${w.origin}/`);
  await page.getByLabel("Email").fill(w.f.users[who].email);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  // The sign-in form lives at `/` too: wait for the signed-in page, not for the URL.
  await page.getByRole("button", { name: "Sign out" }).waitFor();
  return [context, page];
}

const TICKET = {
  description: "d",
  type: "feature",
  acceptanceCriteria: [{ title: "It renders" }],
  expectedFiles: ["src/a.ts"],
  doneDefinition: "The page renders the ticket with its fields",
  verificationCommand: "deno test tests/dashboard",
  riskClass: "local",
};

async function rest(w: World, token: string, method: string, path: string, body?: unknown) {
  const res = await callOn(w.e, method, `/api${path}`, { token, body });
  assert.ok(res.status < 300, `${method} ${path}: ${res.status} ${res.text}`);
  return res.body.data;
}

/** Run in the page (a string: the test program has no DOM types). */
const A11Y_REPORT = `({
  lang: document.documentElement.lang,
  h1: document.querySelectorAll("h1").length,
  main: document.querySelectorAll("main").length,
  unlabelled: Array.from(document.querySelectorAll("input, select, textarea"))
    .filter((el) => el.type !== "hidden")
    .filter((el) => !el.labels?.length && !el.getAttribute("aria-label") && !el.getAttribute("aria-labelledby"))
    .map((el) => el.outerHTML),
  overflow: document.documentElement.scrollWidth - window.innerWidth,
})`;

/** Marks the window, so a later check can tell the page was not reloaded. */
async function mark(page: Page) {
  await page.evaluate("window.__noReload = 1");
}
async function notReloaded(page: Page) {
  assert.equal(await page.evaluate("window.__noReload"), 1);
}

test(
  "dashboard browser: sign in, every view, live updates over SSE, human actions, tenancy, XSS, a11y",
  async (t) => {
    const e = await env();
    const server = await serveApp(e);
    const browser = await chromium.launch({
      executablePath: executablePath!,
      headless: true,
      args: CHROMIUM_ARGS,
    });
    try {
      const f = await dashFixture(e);
      const w: World = {
        e,
        origin: server.origin,
        browser,
        f,
        base: `${server.origin}/projects/${f.projectId}`,
      };
      const dev = await pairAgent(f.projectId, { name: "dev-agent" });
      const [adminCtx, admin] = await signIn(w, "admin");

      await t.step("sign in shows the user's projects; the board opens from the list", async () => {
        await admin.getByRole("link", { name: `Dash ${f.prefix}` }).click();
        await admin.waitForURL(w.base);
        assert.equal(await admin.getByRole("heading", { level: 1 }).textContent(), "Board");
        assert.ok(await admin.locator('[data-column="backlog"]').count() === 1, "workflow columns");
        const projects = await admin.goto(`${w.origin}/`);
        assert.equal(projects!.status(), 200);
        assert.doesNotMatch(await admin.locator("main").innerText(), /\bOther\b/, "not a member of Other");
      });

      await t.step("write the brief from its page", async () => {
        await admin.goto(`${w.base}/brief`);
        await admin.getByLabel("Scope").fill("A dashboard that people use");
        await admin.getByLabel("Goals").fill("See the board live");
        await admin.getByRole("button", { name: "Save brief" }).click();
        await admin.waitForURL(`${w.base}/brief`);
        assert.equal(await admin.getByLabel("Scope").inputValue(), "A dashboard that people use");
        assert.match(await admin.locator("main").innerText(), /Version 1/);
      });

      await t.step(
        "a ticket created through the API appears on the open board without a reload",
        async () => {
          await admin.goto(w.base);
          await mark(admin);
          const created = await rest(w, dev.token, "POST", "/ticket", {
            ...TICKET,
            title: "Live on the board",
          });
          const card = admin.locator(`[data-key="${created.ticketRef}"]`);
          await card.waitFor({ timeout: 10_000 });
          assert.match(await card.innerText(), /Live on the board/);
          await notReloaded(admin);
        },
      );

      await t.step(
        "a ledger entry appears on the open ticket page without a reload; TESTED shows evidence",
        async () => {
          await admin.goto(`${w.base}/tickets/${f.prefix}-1`);
          assert.match(await admin.getByRole("heading", { level: 1 }).innerText(), /Live on the board/);
          await mark(admin);
          await rest(w, dev.token, "POST", "/ledger", {
            type: "FOUND",
            content: "Found while watching the page",
            ticketId: `${f.prefix}-1`,
          });
          await admin.getByText("Found while watching the page").waitFor({ timeout: 10_000 });
          await rest(w, dev.token, "POST", "/ledger", {
            type: "TESTED",
            content: "deno test tests/dashboard: 9 passed",
            ticketId: `${f.prefix}-1`,
            payload: { command: "deno test tests/dashboard", passed: 9 },
          });
          const tested = admin.locator("li.t-TESTED");
          await tested.waitFor({ timeout: 10_000 });
          assert.match(await tested.locator(".type").innerText(), /TESTED/);
          assert.match(await tested.locator(".evidence").innerText(), /"passed": 9/);
          await notReloaded(admin);
        },
      );

      await t.step("move a ticket from its page", async () => {
        await admin.goto(`${w.base}/tickets/${f.prefix}-1`);
        const options = await admin.getByLabel("Move to").locator("option").evaluateAll((els) =>
          els.map((el) => el.getAttribute("value") ?? "")
        );
        assert.ok(options.length > 0);
        const to = options.includes("todo") ? "todo" : options[0]!;
        await admin.getByLabel("Move to").selectOption(to);
        await admin.getByRole("button", { name: "Move" }).click();
        await admin.waitForURL(`${w.base}/tickets/${f.prefix}-1`);
        // The status shows in words; its value stays in data-status.
        assert.equal(await admin.locator('[data-field="status"]').getAttribute("data-status"), to);
        const row = await e.db.selectFrom("tickets").select("status").where("project_id", "=", f.projectId)
          .where("number", "=", 1).executeTakeFirstOrThrow();
        assert.equal(row.status, to);
      });

      await t.step("approve a ticket in review", async () => {
        const reviewed = await insertTicket(f.projectId, {
          ...{ title: "Ready for review", status: "review", assignee: dev.agentId, riskClass: "local" },
          ...{ expectedFiles: ["src/r.ts"], doneDefinition: "Reviewed", verificationCommand: "deno test" },
          criteria: [{ title: "It works" }],
          acknowledged: true,
          reviewHandoff: { summary: "Done", changedFiles: ["src/r.ts"], branch: "feat/r" },
        });
        await insertLedgerEntry(f.projectId, {
          type: "TESTED",
          content: "deno test: 3 passed",
          agentId: dev.agentId,
          ticketId: reviewed.id,
        });
        await admin.goto(`${w.base}/tickets/${reviewed.key}`);
        await admin.getByRole("button", { name: "Approve" }).click();
        await admin.waitForURL(`${w.base}/tickets/${reviewed.key}`);
        assert.equal(await admin.locator('[data-field="status"]').getAttribute("data-status"), "done");
        assert.match(await admin.locator("main").innerText(), /Approved/);
      });

      await t.step("live claims: a stale claim is released; a fresh one has no release button", async () => {
        const now = Date.now();
        await insertClaim(f.projectId, {
          agentId: dev.agentId,
          files: ["src/stale.ts"],
          claimedAt: new Date(now - 11 * 60_000),
          expiresAt: new Date(now + 20 * 60_000),
        });
        await admin.goto(`${w.base}/claims`);
        await mark(admin);
        await rest(w, dev.token, "POST", "/claim", { files: ["src/fresh.ts"] });
        const fresh = admin.locator("tr", { hasText: "src/fresh.ts" });
        await fresh.waitFor({ timeout: 10_000 });
        await notReloaded(admin);
        assert.equal(await fresh.getByRole("button").count(), 0);
        const stale = admin.locator("tr", { hasText: "src/stale.ts" });
        assert.match(await stale.innerText(), /stale/);
        await admin.getByRole("button", { name: "Release stale claim on src/stale.ts" }).click();
        await admin.waitForURL(`${w.base}/claims`);
        assert.equal(await admin.locator("tr", { hasText: "src/stale.ts" }).count(), 0);
        assert.equal(await admin.locator("tr", { hasText: "src/fresh.ts" }).count(), 1);
      });

      await t.step("mint a pairing code, pair an agent with it, then revoke that agent", async () => {
        await admin.goto(`${w.base}/agents`);
        await admin.getByRole("link", { name: "Pair a new agent" }).click();
        await admin.getByLabel("Agent name").fill("paired-in-browser");
        await admin.getByLabel("Role").selectOption("evaluator");
        await admin.getByRole("button", { name: "Mint pairing code" }).click();
        const code = (await admin.locator("#pairing-code").innerText()).trim();
        assert.match(code, /^[A-Z0-9-]{6,}$/);
        assert.match(await admin.locator("#connect-command").innerText(), /\/api\/pair\/connect/);
        const paired = await callOn(e, "POST", "/api/pair/connect", {
          body: { code, agentName: "paired-in-browser", platform: "claude-code" },
          headers: { "X-Forwarded-For": "10.77.1.2" },
        });
        assert.equal(paired.status, 200, paired.text);
        const me = await callOn(e, "GET", "/api/me", { token: paired.body.data.sessionToken });
        assert.equal(me.status, 200, me.text);
        assert.equal(me.body.data.role, "evaluator", me.text);
        const token = paired.body.data.sessionToken as string;
        await admin.goto(`${w.base}/agents`);
        const own = admin.locator(".card", { hasText: "you" });
        assert.equal(await own.count(), 1, "the admin's own agent is marked");
        assert.equal(await own.getByRole("button").count(), 0, "and cannot be revoked from here");
        const card = admin.locator('[data-agent="paired-in-browser"]');
        assert.match(await card.innerText(), /evaluator/);
        await card.getByRole("button", { name: "Revoke paired-in-browser" }).click();
        await admin.waitForURL(`${w.base}/agents`);
        assert.match(await admin.locator('[data-agent="paired-in-browser"]').innerText(), /revoked/);
        assert.equal((await callOn(e, "GET", "/api/me", { token })).status, 401);
      });

      await t.step("threads, sprints (burndown SVG) and the ledger feed with a filter", async () => {
        const thread = await rest(w, dev.token, "POST", "/thread", { intent: "Which port does it use?" });
        await rest(w, dev.token, "POST", `/thread/${thread.id}/reply`, {
          content: "Port 8787, as configured",
        });
        const sprintId = await insertSprint(f.projectId, { number: 1, name: "First sprint" });
        await e.db.updateTable("tickets").set({ sprint_id: sprintId }).where("project_id", "=", f.projectId)
          .execute();
        await admin.goto(w.base);
        for (
          const [link, heading] of [["Threads", "Threads"], ["Sprints", "Sprints"], [
            "Ledger",
            "Ledger",
          ]] as const
        ) {
          await admin.getByRole("navigation", { name: "Project" }).getByRole("link", { name: link }).click();
          assert.equal(await admin.getByRole("heading", { level: 1 }).innerText(), heading);
        }
        await admin.getByLabel("Type").selectOption("TESTED");
        await admin.getByRole("button", { name: "Filter" }).click();
        await admin.waitForURL(/type=TESTED/);
        const types = await admin.locator("ol.ledger li .type").allInnerTexts();
        assert.ok(types.length >= 2 && types.every((x) => x === "TESTED"), types.join());
        await admin.goto(`${w.base}/threads`);
        await admin.getByRole("link", { name: "Which port does it use?" }).click();
        assert.match(await admin.locator("main").innerText(), /Port 8787, as configured/);
        await admin.goto(`${w.base}/sprints`);
        await admin.getByRole("link", { name: "#1 First sprint" }).click();
        assert.equal(await admin.locator("svg.burndown").count(), 1);
        assert.match(await admin.locator("main").innerText(), /Live on the board/);
        await admin.goto(`${w.base}/agents`);
        assert.match(await admin.locator('[data-agent="dev-agent"]').innerText(), /generator/);
      });

      await t.step("agent-written markup renders as text and never runs", async () => {
        const payload = `<img src=x onerror="window.__xss=1"><script>window.__xss=2</script>`;
        const created = await rest(w, dev.token, "POST", "/ticket", { ...TICKET, title: `XSS ${payload}` });
        await rest(w, dev.token, "POST", "/ledger", {
          type: "FOUND",
          content: payload,
          ticketId: created.id,
        });
        await rest(w, dev.token, "POST", "/thread", { intent: payload });
        for (const path of ["", `/tickets/${created.ticketRef}`, "/ledger", "/threads"]) {
          await admin.goto(w.base + path);
          assert.ok((await admin.locator("main").innerText()).includes(payload), `${path} shows the text`);
          assert.equal(await admin.locator('main img, main script, img[src="x"]').count(), 0, path);
          assert.equal(
            await admin.evaluate("window.__xss"),
            undefined,
          );
        }
      });

      await t.step("a viewer reads every page but sees no action forms", async () => {
        const [ctx, viewer] = await signIn(w, "viewer");
        for (const path of ["", `/tickets/${f.prefix}-2`, "/claims", "/agents"]) {
          assert.equal((await viewer.goto(w.base + path))!.status(), 200, path);
          const buttons = await viewer.locator("main button").allInnerTexts();
          assert.deepEqual(buttons.filter((b) => b !== "Filter"), [], path);
        }
        assert.equal((await viewer.goto(`${w.base}/pair`))!.status(), 404);
        await ctx.close();
      });

      await t.step("a user of another project gets 404 for this project's pages", async () => {
        const [ctx, outsider] = await signIn(w, "outsider");
        assert.doesNotMatch(await outsider.locator("main").innerText(), new RegExp(`Dash ${f.prefix}`));
        for (
          const path of [
            "",
            "/claims",
            "/agents",
            "/threads",
            "/sprints",
            "/ledger",
            "/brief",
            "/tickets/X-1",
          ]
        ) {
          const res = await outsider.goto(w.base + path);
          assert.equal(res!.status(), 404, path);
          assert.match(await outsider.locator("h1").innerText(), /Not found/);
        }
        await ctx.close();
      });

      await t.step("keyboard and screen reader basics; readable at phone width", async () => {
        const ctx = await browser.newContext({ viewport: { width: 390, height: 844 } });
        const page = await ctx.newPage();
        await page.goto(`${w.origin}/`);
        await page.keyboard.press("Tab");
        assert.equal(await page.evaluate("document.activeElement?.textContent"), "Skip to content");
        await page.keyboard.press("Tab");
        assert.equal(await page.evaluate("document.activeElement?.textContent"), "Coordination dashboard");
        await page.keyboard.press("Tab");
        assert.equal(await page.evaluate("document.activeElement?.id"), "email");
        await page.keyboard.type(f.users.member.email);
        await page.keyboard.press("Tab");
        await page.keyboard.type(PASSWORD);
        await page.keyboard.press("Enter");
        await page.getByRole("button", { name: "Sign out" }).waitFor();
        const paths = ["", `/tickets/${f.prefix}-1`, "/claims", "/agents", "/threads", "/sprints", "/ledger"];
        for (const path of [...paths, "/brief"]) {
          await page.goto(w.base + path);
          const report = await page.evaluate(A11Y_REPORT) as {
            lang: string;
            h1: number;
            main: number;
            unlabelled: string[];
            overflow: number;
          };
          assert.equal(report.lang, "en", path);
          assert.equal(report.h1, 1, path);
          assert.equal(report.main, 1, path);
          assert.deepEqual(report.unlabelled, [], path);
          assert.ok(report.overflow <= 1, `${path}: page scrolls sideways by ${report.overflow}px at 390px`);
        }
        await ctx.close();
      });
      await adminCtx.close();
    } finally {
      await browser.close();
      await server.shutdown();
    }
  },
  { ignore: executablePath === null },
);
