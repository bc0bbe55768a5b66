// Rate limiters for the workqueue (client-go util/workqueue
// default_rate_limiters.go). A RateLimiter answers "how long must this item
// wait before it is retried?"; when() counts as one attempt for that item,
// forget() clears the item's history once it has succeeded.
//
// The default controller limiter is the maximum of a per-item exponential
// backoff (5 ms doubling up to 1000 s) and an overall token bucket (10 qps,
// burst 100): a single failing key backs off on its own, and a storm of
// failing keys cannot retry faster than the bucket allows.

import { type Clock, realClock } from './clock.js';

export interface RateLimiter<T> {
  /** Delay in ms before the item may be processed again; records one attempt. */
  when(item: T): number;
  /** Stops tracking the item (it succeeded or was given up on). */
  forget(item: T): void;
  /** How many times when() was called for the item since it was last forgotten. */
  numRequeues(item: T): number;
}

/** baseDelay * 2^failures, capped at maxDelay (all in ms). */
export class ItemExponentialFailureRateLimiter<T> implements RateLimiter<T> {
  private readonly failures = new Map<T, number>();

  constructor(
    private readonly baseDelayMs: number,
    private readonly maxDelayMs: number,
  ) {}

  when(item: T): number {
    const exp = this.failures.get(item) ?? 0;
    this.failures.set(item, exp + 1);
    // 2^exp overflows to Infinity for large exp; the cap takes care of it.
    const backoff = this.baseDelayMs * Math.pow(2, exp);
    return Math.min(backoff, this.maxDelayMs);
  }

  forget(item: T): void {
    this.failures.delete(item);
  }

  numRequeues(item: T): number {
    return this.failures.get(item) ?? 0;
  }
}

/** fastDelay for the first maxFastAttempts attempts of an item, slowDelay after. */
export class ItemFastSlowRateLimiter<T> implements RateLimiter<T> {
  private readonly attempts = new Map<T, number>();

  constructor(
    private readonly fastDelayMs: number,
    private readonly slowDelayMs: number,
    private readonly maxFastAttempts: number,
  ) {}

  when(item: T): number {
    const n = (this.attempts.get(item) ?? 0) + 1;
    this.attempts.set(item, n);
    return n <= this.maxFastAttempts ? this.fastDelayMs : this.slowDelayMs;
  }

  forget(item: T): void {
    this.attempts.delete(item);
  }

  numRequeues(item: T): number {
    return this.attempts.get(item) ?? 0;
  }
}

/**
 * A token bucket shared by all items (golang.org/x/time/rate's Reserve):
 * tokens refill at qps up to burst; each when() takes one token, and when
 * none is left it reserves a future one, returning how long to wait for it.
 */
export class BucketRateLimiter<T> implements RateLimiter<T> {
  private tokens: number;
  private last: number;

  constructor(
    private readonly qps: number,
    private readonly burst: number,
    private readonly clock: Clock = realClock,
  ) {
    this.tokens = burst;
    this.last = clock.now();
  }

  when(_item: T): number {
    const now = this.clock.now();
    const elapsedSeconds = Math.max(0, now - this.last) / 1000;
    this.last = now;
    this.tokens = Math.min(this.burst, this.tokens + elapsedSeconds * this.qps);
    this.tokens -= 1;
    if (this.tokens >= 0) return 0;
    return (-this.tokens / this.qps) * 1000;
  }

  forget(_item: T): void {}

  numRequeues(_item: T): number {
    return 0;
  }
}

/** The worst (longest) answer of several limiters. */
export class MaxOfRateLimiter<T> implements RateLimiter<T> {
  private readonly limiters: RateLimiter<T>[];

  constructor(...limiters: RateLimiter<T>[]) {
    this.limiters = limiters;
  }

  when(item: T): number {
    // Every limiter must see the attempt, so no short-circuit.
    let delay = 0;
    for (const l of this.limiters) delay = Math.max(delay, l.when(item));
    return delay;
  }

  forget(item: T): void {
    for (const l of this.limiters) l.forget(item);
  }

  numRequeues(item: T): number {
    let n = 0;
    for (const l of this.limiters) n = Math.max(n, l.numRequeues(item));
    return n;
  }
}

/** client-go's DefaultControllerRateLimiter: max(5 ms → 1000 s per item, 10 qps burst 100). */
export function defaultControllerRateLimiter<T>(clock: Clock = realClock): RateLimiter<T> {
  return new MaxOfRateLimiter<T>(
    new ItemExponentialFailureRateLimiter<T>(5, 1000 * 1000),
    new BucketRateLimiter<T>(10, 100, clock),
  );
}
