// Clock: where the client's time comes from. Everything in src/client that
// waits (reflector backoff, delaying queue, token bucket, resync) takes a
// Clock so tests can drive time by hand (see fake-clock.ts) instead of
// sleeping. Contract: now() is monotonic milliseconds; a timer fires at most
// once, never before its due time, and clearTimer() after firing is a no-op.

/** An opaque handle for a scheduled callback. */
export interface Timer {
  readonly __timer: true;
}

export interface Clock {
  /** Milliseconds; only differences are meaningful. */
  now(): number;
  /** Runs fn once after ms milliseconds. */
  setTimer(fn: () => void, ms: number): Timer;
  clearTimer(timer: Timer): void;
}

/** The process clock: performance.now() and node timers. */
export const realClock: Clock = {
  now: () => performance.now(),
  setTimer: (fn, ms) => setTimeout(fn, Math.max(0, ms)) as unknown as Timer,
  clearTimer: (timer) => clearTimeout(timer as unknown as NodeJS.Timeout),
};

/**
 * Waits ms on the clock, or until signal aborts. Resolves true when the full
 * time elapsed, false when aborted (never rejects).
 */
export function sleep(clock: Clock, ms: number, signal?: AbortSignal): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = (): void => {
      clock.clearTimer(timer);
      resolve(false);
    };
    const timer = clock.setTimer(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
