import { Scalar } from "@scalar/hono-api-reference";
import type { Hono } from "hono";
import type { AppEnv } from "@/http/env.ts";

/** Where the page loads Scalar's bundle from: this service, never a CDN (the reference works offline). */
export const SCALAR_BUNDLE_PATH = "/docs/scalar.js";
/** The document `/docs` renders: `/openapi.json` with the MCP server's section added to its introduction. */
export const DOCS_DOCUMENT_PATH = "/docs/reference.json";
const BUNDLE = new URL("./vendor/scalar-standalone.js.gz", import.meta.url);

let bundle: Promise<Uint8Array<ArrayBuffer>> | null = null;
function gzippedBundle(): Promise<Uint8Array<ArrayBuffer>> {
  bundle ??= Deno.readFile(BUNDLE).then((b) => new Uint8Array(b));
  return bundle;
}

/**
 * Scalar's options: everything that would reach a third party is off: the AI assistant (`agent`, on by
 * default on localhost), "Generate MCP" (`mcp`), the developer toolbar with "Deploy on Scalar"
 * (`showDeveloperTools`), the hosted API client button, telemetry and the fonts from Scalar's CDN (the
 * page uses the system fonts; its CSP allows no other origin).
 */
/**
 * Colours with at least 4.5:1 contrast (axe-core, WCAG AA) where Scalar's defaults fall short: the muted
 * text and the HTTP method labels of the sidebar, in both themes.
 */
const CONTRAST_CSS = `
.light-mode { --scalar-color-2: #555555; --scalar-color-3: #5c5c5c; --scalar-color-green: #00704a; --scalar-color-blue: #2f4fb8;
  --scalar-color-orange: #a84a00; --scalar-color-red: #b3202f; --scalar-color-purple: #6b3fc2;
  --scalar-color-yellow: #7a5600; }
.light-mode .sidebar { --scalar-sidebar-search-color: #5c5c5c; }
.dark-mode { --scalar-color-3: #a8a8a8; }
`;

/**
 * `/docs/a11y.js`: repairs two faults of Scalar's markup that assistive technology trips on (axe-core:
 * aria-allowed-attr, button-name): `aria-selected` on sidebar buttons (only tabs, options and cells may
 * carry it) and the search button without a name. Runs again whenever Scalar re-renders.
 */
export const DOCS_A11Y_JS = `(() => {
  const fix = () => {
    for (const b of document.querySelectorAll("button[aria-selected]:not([role=tab]):not([role=option])")) {
      b.removeAttribute("aria-selected");
    }
    for (const b of document.querySelectorAll("button[role=search]:not([aria-label])")) {
      b.setAttribute("aria-label", "Search the reference");
    }
  };
  let queued = false;
  new MutationObserver(() => {
    if (queued) return;
    queued = true;
    requestAnimationFrame(() => { queued = false; fix(); });
  }).observe(document.documentElement, { subtree: true, childList: true, attributes: true, attributeFilter: ["aria-selected", "role"] });
  fix();
})();
`;
export const DOCS_A11Y_PATH = "/docs/a11y.js";

export const SCALAR_OPTIONS = {
  url: DOCS_DOCUMENT_PATH,
  cdn: SCALAR_BUNDLE_PATH,
  pageTitle: "Agent Coordination Service API",
  hideClientButton: true,
  telemetry: false,
  withDefaultFonts: false,
  showDeveloperTools: "never",
  agent: { disabled: true },
  mcp: { disabled: true },
  favicon: "/favicon.svg",
  hiddenClients: true,
  customCss: CONTRAST_CSS,
} as const;

/**
 * `GET /docs`: the interactive reference (Scalar, MIT) rendered in the browser from the document plus the
 * MCP section; `GET /docs/scalar.js`: Scalar's standalone bundle, vendored by `deno task vendor-scalar`
 * and served gzip-compressed (decompressed here for the rare client that does not accept gzip).
 */
export function registerDocs(
  app: Hono<AppEnv>,
  document: { info: { description?: string } },
  mcp: string,
): void {
  const withMcp = {
    ...document,
    info: { ...document.info, description: `${document.info.description ?? ""}\n\n${mcp}` },
  };
  const docsJson = JSON.stringify(withMcp);
  app.get(DOCS_DOCUMENT_PATH, (c) => c.body(docsJson, 200, { "Content-Type": "application/json" }));
  // Scalar's page names no language; assistive technology needs one (axe: html-has-lang).
  app.use("/docs", async (c, next) => {
    await next();
    if (c.res.status !== 200) return;
    const html = (await c.res.text()).replace("<html>", '<html lang="en">')
      .replace("</body>", `<script src="${DOCS_A11Y_PATH}" defer></script>\n</body>`);
    c.res = new Response(html, { status: 200, headers: c.res.headers });
  });
  app.get("/docs", Scalar(SCALAR_OPTIONS as unknown as Parameters<typeof Scalar>[0]));
  app.get(DOCS_A11Y_PATH, (c) =>
    c.body(DOCS_A11Y_JS, 200, {
      "Content-Type": "text/javascript; charset=utf-8",
      "Cache-Control": "public, max-age=3600",
      "X-Content-Type-Options": "nosniff",
    }));
  app.get(SCALAR_BUNDLE_PATH, async (c) => {
    const gz = await gzippedBundle();
    const headers: Record<string, string> = {
      "Content-Type": "text/javascript; charset=utf-8",
      "Cache-Control": "public, max-age=86400",
      Vary: "Accept-Encoding",
    };
    if (/\bgzip\b/.test(c.req.header("accept-encoding") ?? "")) {
      return c.body(gz, 200, { ...headers, "Content-Encoding": "gzip" });
    }
    const plain = new Blob([gz]).stream().pipeThrough(new DecompressionStream("gzip"));
    return c.body(plain, 200, headers);
  });
}
