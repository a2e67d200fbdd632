/** The one service clock. Every time rule reads it, so the test clock moves them all together. */
export interface Clock {
  now(): Date;
  /** Moves the clock forward (test clock only); returns the new time. */
  advance(ms: number): Date;
}

export function systemClock(): Clock {
  let offsetMs = 0;
  return {
    now: () => new Date(Date.now() + offsetMs),
    advance(ms: number) {
      offsetMs += ms;
      return new Date(Date.now() + offsetMs);
    },
  };
}
