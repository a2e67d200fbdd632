/**
 * Bounded waits for a connection, watched by ONE interval timer instead of a timer per acquisition
 * (issue 27.1: a timer armed and cleared per statement was a measurable part of a call's CPU). The
 * interval runs only while waits are pending and stops itself at the first round that finds none; a wait
 * ends between `timeoutMs` and `timeoutMs + everyMs` after it began.
 */
export class AcquireWatchdog {
  constructor(readonly timeoutMs = 5_000, readonly everyMs = 250) {}

  readonly #waiting = new Map<object, { deadline: number; reject: (err: Error) => void }>();
  #interval: ReturnType<typeof setInterval> | undefined;

  wait<T>(pending: Promise<T>): Promise<T> {
    const key = {};
    return new Promise<T>((resolve, reject) => {
      this.#waiting.set(key, { deadline: performance.now() + this.timeoutMs, reject });
      this.#interval ??= setInterval(() => this.#sweep(), this.everyMs);
      // A wait the watchdog already ended is not settled again (the caller releases a late connection).
      pending.then(
        (value) => {
          if (this.#waiting.delete(key)) resolve(value);
        },
        (err) => {
          if (this.#waiting.delete(key)) reject(err);
        },
      );
    });
  }

  #sweep(): void {
    if (this.#waiting.size === 0) {
      clearInterval(this.#interval);
      this.#interval = undefined;
      return;
    }
    const now = performance.now();
    for (const [key, waiter] of this.#waiting) {
      if (waiter.deadline > now) continue;
      this.#waiting.delete(key);
      waiter.reject(
        Object.assign(new Error(`no database connection within ${this.timeoutMs / 1000} s`), {
          code: "CONNECT_TIMEOUT",
        }),
      );
    }
  }

  stop(): void {
    clearInterval(this.#interval);
    this.#interval = undefined;
  }
}
