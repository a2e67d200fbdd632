import type { InitdbReply, InitdbRequest } from "./initdb-worker.ts";

/** Whether `path` (a `pgdata` directory) already holds a database. */
async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(`${path}/PG_VERSION`);
    return true;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return false;
    throw err;
  }
}

/**
 * Creates the embedded database in `path` unless it exists, in a Web Worker ended afterwards, so that
 * initdb's memory leaves with it (src/db/initdb-worker.ts). Returns whether it created one.
 */
export async function initdbInWorker(path: string, startParams: string[]): Promise<boolean> {
  if (await exists(path)) return false;
  const worker = new Worker(new URL("./initdb-worker.ts", import.meta.url), { type: "module" });
  try {
    const reply = await new Promise<InitdbReply>((resolve) => {
      worker.onmessage = (e: MessageEvent<InitdbReply>) => resolve(e.data);
      worker.onerror = (e) => {
        e.preventDefault();
        resolve({ ok: false, message: e.message });
      };
      const request: InitdbRequest = { path, startParams };
      worker.postMessage(request);
    });
    if (!reply.ok) throw new Error(`Cannot create the embedded database in "${path}": ${reply.message}`);
    return true;
  } finally {
    worker.terminate();
  }
}
