import { admin, advanceClock } from "../helpers/mod.ts";

/** Service time now (ISO) without moving the clock. */
export async function serviceNow(): Promise<number> {
  return Date.parse((await admin("POST", "/clock", { advanceMs: 0 })).now);
}

/** Moves the clock just past the start of the next fixed window of `windowMs` (counters use fixed windows). */
export async function alignToWindow(windowMs: number): Promise<void> {
  const now = await serviceNow();
  await advanceClock(windowMs - (now % windowMs) + 1000);
}
