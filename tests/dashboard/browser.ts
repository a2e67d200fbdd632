// Shared by the dashboard's browser test and `deno task screenshots`: Debian's chromium, and the app
// behind a real socket on 127.0.0.1 (random port).
import type { TestEnv } from "../helpers/env.ts";

/** The chromium binary on PATH (Debian's `chromium`), or null. Never downloads a browser. */
export function findChromium(): string | null {
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

/** The launch flags of every browser test (headless, no sandbox in containers, no background traffic). */
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
];

export interface ServedApp {
  origin: string;
  shutdown(): Promise<void>;
}

/** Serves the test environment's app on 127.0.0.1 (streaming responses such as SSE pass through). */
export function serveApp(e: TestEnv): Promise<ServedApp> {
  return new Promise((resolve) => {
    const server = Deno.serve({
      hostname: "127.0.0.1",
      port: 0,
      onListen: ({ port }) =>
        resolve({
          origin: `http://127.0.0.1:${port}`,
          shutdown: async () => {
            await server.shutdown();
          },
        }),
    }, (req, info) => {
      // The app's streams (SSE) end when the browser goes away: the response is then complete.
      const gone = new AbortController();
      info.completed.finally(() => gone.abort());
      const url = new URL(req.url);
      return e.fetch(url.pathname + url.search, {
        method: req.method,
        headers: req.headers,
        body: req.body,
        redirect: "manual",
        signal: gone.signal,
      });
    });
  });
}
