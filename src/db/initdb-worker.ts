/**
 * Creates the embedded database in a data directory (PGlite's initdb) in a Web Worker (src/db/initdb.ts):
 * initdb runs a second PostgreSQL instance and copies the new cluster through tar dumps, and what that
 * touched stays resident in the process that ran it (issue 27.5: a first start held about 330 MB more than a
 * restart). A terminated worker gives its heap and its WebAssembly memory back.
 */
import { PGlite } from "@electric-sql/pglite";

export interface InitdbRequest {
  /** The `pgdata` directory. */
  path: string;
  startParams: string[];
}

export type InitdbReply = { ok: true } | { ok: false; message: string };

interface WorkerScope {
  postMessage(message: InitdbReply): void;
  onmessage: ((e: MessageEvent<InitdbRequest>) => void) | null;
}
const scope = self as unknown as WorkerScope;

scope.onmessage = async (e: MessageEvent<InitdbRequest>) => {
  let reply: InitdbReply;
  try {
    const pglite = new PGlite(e.data.path, { startParams: e.data.startParams });
    await pglite.waitReady;
    await pglite.close();
    reply = { ok: true };
  } catch (err) {
    reply = { ok: false, message: err instanceof Error ? err.message : String(err) };
  }
  scope.postMessage(reply);
};
