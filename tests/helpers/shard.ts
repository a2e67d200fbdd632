/**
 * The suite runs in a dozen isolates rather than one per test file: each `tests/shards/NN.test.ts`
 * imports its share of the test files, so the service's modules and the contract validators load once
 * per shard instead of once per file (about a second of CPU each). Each file still gets its own
 * service: `env()` (mod.ts) starts a fresh one for the first test of each file.
 *
 * A single file still runs on its own: `deno test -A tests/claims/claim.test.ts`.
 */
import { setRegisteringFile } from "./mod.ts";

export const SHARD_COUNT = 12;

const TESTS_DIR = new URL("../", import.meta.url);

/** Every `*.test.ts` under tests/ except the shards themselves, as URLs, in a stable order. */
async function testFiles(dir: URL = TESTS_DIR): Promise<{ url: URL; size: number }[]> {
  const found: { url: URL; size: number }[] = [];
  for await (const entry of Deno.readDir(dir)) {
    const url = new URL(entry.name + (entry.isDirectory ? "/" : ""), dir);
    if (entry.isDirectory && entry.name !== "shards") found.push(...await testFiles(url));
    else if (entry.isFile && entry.name.endsWith(".test.ts")) {
      found.push({ url, size: (await Deno.stat(url)).size });
    }
  }
  return found.sort((a, b) => a.url.href.localeCompare(b.url.href));
}

/**
 * Files dealt to shards largest first, each to the lightest shard so far (size stands in for run
 * time), so the shards take about as long as each other.
 */
export function dealFiles<T extends { size: number }>(files: T[], shards: number): T[][] {
  const dealt: T[][] = Array.from({ length: shards }, () => []);
  const load = new Array<number>(shards).fill(0);
  for (const file of [...files].sort((a, b) => b.size - a.size)) {
    const lightest = load.indexOf(Math.min(...load));
    dealt[lightest]!.push(file);
    load[lightest] = load[lightest]! + file.size;
  }
  return dealt;
}

/** Imports the test files of shard `index` (its tests register as each file loads). */
export async function runShard(index: number): Promise<void> {
  const mine = dealFiles(await testFiles(), SHARD_COUNT)[index] ?? [];
  for (const file of mine.sort((a, b) => a.url.href.localeCompare(b.url.href))) {
    setRegisteringFile(file.url.href);
    await import(file.url.href);
  }
  setRegisteringFile("");
}
