/**
 * One process per embedded data directory. PGlite has no postmaster.pid check of its own: two processes on
 * one `DATA_DIR` each run their own copy of the database in memory and overwrite each other's files, so
 * acknowledged writes are lost. The guard is an advisory lock (`flock`) on `DATA_DIR/lock`, taken without
 * waiting: the kernel drops it when its process ends in any way (exit, SIGKILL, a crash; after a power loss
 * no lock survives), so a stale lock never blocks a start, unlike a pid file checked by liveness (pids are
 * reused). The file also names the holder's pid, only to word the refusal; the lock alone decides.
 */

/** The lock file in the data directory (kept after a stop; its lock, not its presence, marks the owner). */
export const LOCK_FILE = "lock";

/** Another process holds the data directory. */
export class DataDirInUseError extends Error {
  constructor(readonly dataDir: string, readonly holderPid: number | null) {
    super(
      `data directory ${dataDir} is in use by ${
        holderPid === null ? "another process" : `process ${holderPid}`
      }` +
        " (the embedded database takes one process at a time: stop that one or set another DATA_DIR)",
    );
    this.name = "DataDirInUseError";
  }
}

export interface DataDirLock {
  /** Unlocks and closes the lock file (idempotent). */
  release(): void;
}

/** Takes the data directory's lock at once or throws `DataDirInUseError` naming the holder. */
export async function lockDataDir(dataDir: string): Promise<DataDirLock> {
  const path = `${dataDir.replace(/\/+$/, "")}/${LOCK_FILE}`;
  // No truncation on open: the file holds the current owner's pid until this process has the lock.
  const file = await Deno.open(path, { read: true, write: true, create: true });
  try {
    if (!await file.tryLock(true)) throw new DataDirInUseError(dataDir, await readHolder(path));
    await file.truncate(0);
    const bytes = new TextEncoder().encode(`${Deno.pid}\n`);
    for (let written = 0; written < bytes.length;) written += await file.write(bytes.subarray(written));
  } catch (err) {
    file.close();
    throw err;
  }
  let released = false;
  return {
    release: () => {
      if (released) return;
      released = true;
      file.close(); // closing the last descriptor drops the lock
    },
  };
}

/**
 * The pid the holder wrote. It writes it just after taking the lock, so an empty file is read again a few
 * times; null when it stays empty or unreadable (a lock taken by something else than this service).
 */
async function readHolder(path: string): Promise<number | null> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const text = await Deno.readTextFile(path).catch(() => "");
    const pid = Number(text.trim());
    if (text.trim() !== "" && Number.isInteger(pid) && pid > 0) return pid;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return null;
}
