// Backoff: the reflector's exponential backoff with jitter (apimachinery
// wait.NewExponentialBackoffManager(800ms, 30s, 2min, 2.0, 1.0)). Each next()
// doubles the base delay up to the cap and adds up to jitter×base of random
// extra, so retries land in [base, base×(1+jitter)). If no backoff was asked
// for during resetAfter, the server is presumed healthy and the base returns
// to the initial delay.

import type { Clock } from './clock.js';

export interface BackoffOptions {
  initialMs?: number;
  maxMs?: number;
  resetAfterMs?: number;
  factor?: number;
  jitter?: number;
  /** Returns a number in [0, 1); Math.random by default. */
  random?: () => number;
}

export class Backoff {
  private readonly initialMs: number;
  private readonly maxMs: number;
  private readonly resetAfterMs: number;
  private readonly factor: number;
  private readonly jitter: number;
  private readonly random: () => number;
  private baseMs: number;
  private lastAt = -Infinity;

  constructor(
    private readonly clock: Clock,
    options: BackoffOptions = {},
  ) {
    this.initialMs = options.initialMs ?? 800;
    this.maxMs = options.maxMs ?? 30_000;
    this.resetAfterMs = options.resetAfterMs ?? 120_000;
    this.factor = options.factor ?? 2;
    this.jitter = options.jitter ?? 1;
    this.random = options.random ?? Math.random;
    this.baseMs = this.initialMs;
  }

  /** The delay to wait now, in ms; advances the backoff. */
  next(): number {
    const now = this.clock.now();
    if (now - this.lastAt > this.resetAfterMs) this.baseMs = this.initialMs;
    this.lastAt = now;
    const base = this.baseMs;
    this.baseMs = Math.min(this.baseMs * this.factor, this.maxMs);
    return base + this.random() * this.jitter * base;
  }
}
