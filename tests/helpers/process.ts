import postgres from "postgres";

/**
 * Helpers for tests that run the service as a process: a free port, its output as lines, a line awaited, an
 * empty database for it.
 */

/** A TCP port free on 127.0.0.1 right now. */
export function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

/** Appends a stream's non-empty lines to `lines` until it ends. */
export function collect(stream: ReadableStream<Uint8Array>, lines: string[]): Promise<void> {
  return stream.pipeThrough(new TextDecoderStream()).pipeTo(
    new WritableStream({
      write(chunk) {
        lines.push(...chunk.split("\n").filter((l) => l !== ""));
      },
    }),
  );
}

/** Waits until one of `lines` matches (they grow while a process runs); throws with them all after `ms`. */
export async function waitForLine(lines: string[], re: RegExp, ms = 30_000): Promise<string> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    const hit = lines.find((l) => re.test(l));
    if (hit) return hit;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no line matching ${re} within ${ms} ms:\n${lines.join("\n")}`);
}

/** A fresh, empty database on the PostgreSQL server of `baseUrl` (named `<prefix>_<random>`), and its drop. */
export async function emptyDatabase(
  baseUrl: string,
  prefix = "svc_proc",
): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `${prefix}_${crypto.randomUUID().replace(/-/g, "").slice(0, 12)}`;
  const admin = postgres(baseUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const again = postgres(baseUrl, { max: 1, onnotice: () => {} });
      await again.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
      await again.end();
    },
  };
}
