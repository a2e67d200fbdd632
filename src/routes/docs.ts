import { Scalar } from "@scalar/hono-api-reference";
import type { Hono } from "hono";
import type { AppEnv } from "@/http/env.ts";

/** Where the page loads Scalar's bundle from: this service, never a CDN (the reference works offline). */
export const SCALAR_BUNDLE_PATH = "/docs/scalar.js";
const BUNDLE = new URL("./vendor/scalar-standalone.js.gz", import.meta.url);

let bundle: Promise<Uint8Array<ArrayBuffer>> | null = null;
function gzippedBundle(): Promise<Uint8Array<ArrayBuffer>> {
  bundle ??= Deno.readFile(BUNDLE).then((b) => new Uint8Array(b));
  return bundle;
}

/**
 * `GET /docs`: the interactive reference (Scalar, MIT) rendered in the browser from `/openapi.json`;
 * `GET /docs/scalar.js`: Scalar's standalone bundle, vendored by `deno task vendor-scalar` and served
 * gzip-compressed (decompressed here for the rare client that does not accept gzip).
 */
export function registerDocs(app: Hono<AppEnv>): void {
  app.get(
    "/docs",
    Scalar({
      url: "/openapi.json",
      cdn: SCALAR_BUNDLE_PATH,
      pageTitle: "Agent Coordination Service API",
      hideClientButton: true,
      telemetry: false,
    }),
  );
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
