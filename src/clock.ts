/** The one service clock. Every time rule reads it, so the test clock moves them all together. */
export interface Clock {
  now(): Date;
  /** Moves this process's clock forward (test clock only); returns the new time. */
  advance(ms: number): Date;
  /** The offset from the system time, in milliseconds (0 unless the test clock moved it). */
  offsetMs(): number;
  /**
   * Brings the offset up to `offsetMs` when it is ahead (the test clock shared through the database
   * only moves forward, so a stale read never moves the clock back).
   */
  catchUp(offsetMs: number): void;
}

export function systemClock(): Clock {
  let offsetMs = 0;
  return {
    now: () => new Date(Date.now() + offsetMs),
    advance(ms: number) {
      offsetMs += ms;
      return new Date(Date.now() + offsetMs);
    },
    offsetMs: () => offsetMs,
    catchUp(ms: number) {
      if (ms > offsetMs) offsetMs = ms;
    },
  };
}
