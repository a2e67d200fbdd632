import assert from "node:assert/strict";
import { AcquireWatchdog } from "@/db/acquire-watchdog.ts";

/**
 * Issue 27.1: the bounded wait for a database connection is watched by one interval timer for every
 * acquisition instead of a timer armed and cleared per statement. The bound still holds.
 */

Deno.test("PERF2-3 a connection that never comes ends the wait with CONNECT_TIMEOUT within the bound", async () => {
  const watchdog = new AcquireWatchdog(100, 20);
  const started = performance.now();
  const err = await watchdog.wait(new Promise<never>(() => {})).then(() => null, (e: unknown) => e);
  const waited = performance.now() - started;
  assert.equal((err as { code?: string } | null)?.code, "CONNECT_TIMEOUT");
  assert.ok(waited >= 100 && waited < 1_000, `waited ${waited} ms`);
  watchdog.stop();
});

Deno.test("PERF2-3 a connection that comes in time is handed over, a refusal is passed on, and the timer stops", async () => {
  const watchdog = new AcquireWatchdog(1_000, 10);
  assert.equal(await watchdog.wait(Promise.resolve("connection")), "connection");
  await assert.rejects(watchdog.wait(Promise.reject(new Error("refused"))), /refused/);
  const later = watchdog.wait(new Promise((resolve) => setTimeout(() => resolve("late"), 30)));
  assert.equal(await later, "late");
  // With nothing waiting, the interval ends itself at its next round (the test's op sanitizer checks).
  await new Promise((resolve) => setTimeout(resolve, 50));
});
