import axe from "axe-core";
import { chromium } from "playwright-core";
import { env } from "./helpers/mod.ts";
import { CHROMIUM_ARGS, findChromium, serveApp } from "./dashboard/browser.ts";
const e = await env();
const server = await serveApp(e);
const browser = await chromium.launch({
  executablePath: findChromium()!,
  headless: true,
  args: CHROMIUM_ARGS,
});
const page = await browser.newPage({ viewport: { width: Number(Deno.args[0] ?? 1366), height: 900 } });
await page.goto(`${server.origin}/docs`);
await page.getByText("Pair an agent with a code and get a session token").first().waitFor({
  state: "attached",
  timeout: 60_000,
});
await page.evaluate(axe.source);
const r = await page.evaluate(`axe.run(document, { resultTypes: ["violations"] }).then((r) =>
    r.violations.filter((v) => v.impact === "serious" || v.impact === "critical")
      .map((v) => ({id: v.id, n: v.nodes.length, nodes: v.nodes.slice(0, 2).map((n) => ({html: n.html.slice(0, 300), why: n.failureSummary.slice(0, 300)}))})))`);
console.log(JSON.stringify(r, null, 1));
await browser.close();
await server.shutdown();
Deno.exit(0);
