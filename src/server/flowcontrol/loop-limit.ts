// The dispatch limit: how many requests may execute at once, derived from the
// event loop (apiary's own addition to priority and fairness).
//
// Why: upstream's seats (400 + 200) bound goroutines on many cores. apiary
// serves every request on one event loop, so those seats are never the
// bottleneck: a flood of 64 creates all execute at once, interleaved turn by
// turn with everyone else's requests, and APF's fair queues stay empty, so a
// light flow waits behind the flood's whole in-flight work. Concurrency on one
// loop only pays while requests wait on I/O (an fsync, an etcd round trip):
// then the loop is idle and a new request can use it. So the controller caps
// executing requests at a limit that follows the loop: while the loop's delay
// (how late a timer fires: the length of the work in front of it) stays under
// a target and requests are waiting on the limit, the limit grows; when the
// delay passes the target, it shrinks. Beyond the limit requests wait in their
// level's fair queues, where a light flow's request is dispatched before a
// flood's backlog (virtual finish time), which is what lets fairness bite on
// the resource that is really scarce.
//
// The seats, their shares, borrowing and the 429s are upstream's and unchanged;
// the limit only decides when a queued request may start (never a 429 by itself).

import { performance } from 'node:perf_hooks';

export interface LoopLimitOptions {
  /** The fewest requests allowed to execute at once (default 4). */
  min?: number;
  /** The most (default: the server's seats). */
  max?: number;
  /** The loop delay the limit keeps under (default 10 ms). */
  targetDelayMs?: number;
  /** Between two adjustments (default 100 ms). */
  windowMs?: number;
  /** The starting limit (default 32, within [min, max]). */
  initial?: number;
}

/**
 * One adjustment (pure): shrink in proportion when the loop's delay passed the
 * target; grow when requests waited on the limit and the delay is well under
 * it (faster the further under); else stay.
 */
export function nextLimit(limit: number, delayMs: number, waitedOnLimit: boolean, o: Required<Pick<LoopLimitOptions, 'min' | 'max' | 'targetDelayMs'>>): number {
  let next = limit;
  if (delayMs > o.targetDelayMs) next = Math.floor(limit * Math.max(0.5, Math.min(0.9, o.targetDelayMs / delayMs)));
  else if (waitedOnLimit) next = delayMs < o.targetDelayMs / 2 ? Math.ceil(limit * 1.25) : limit + 1;
  return Math.max(o.min, Math.min(o.max, next));
}

/** The source of the loop's delay over a window (the largest delay seen, in ms); reset after each read. */
export interface DelaySource {
  read(): number;
  stop(): void;
}

/**
 * The loop's delay, sampled by a timer every `periodMs`: how late it fires is
 * the work that ran in front of it. (Not perf_hooks' monitorEventLoopDelay:
 * resetting its histogram each window cost more than the sampling itself.)
 */
export function eventLoopDelay(periodMs = 5): DelaySource {
  let last = performance.now();
  let max = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    const late = now - last - periodMs;
    if (late > max) max = late;
    last = now;
  }, periodMs);
  timer.unref();
  return {
    read: () => {
      // The work running now (the read's own turn) counts too.
      const ms = Math.max(max, performance.now() - last - periodMs, 0);
      max = 0;
      return ms;
    },
    stop: () => clearInterval(timer),
  };
}

export class LoopLimit {
  limit: number;
  /** Set by the controller when a request had to wait on the limit (not on its level's seats). */
  waited = false;
  /** The last window's loop delay (ms), for the debug dump. */
  lastDelayMs = 0;
  private readonly o: Required<LoopLimitOptions>;
  private timer: NodeJS.Timeout | undefined;
  private source: DelaySource | undefined;

  /** Called when the limit grows (the controller dispatches waiters then). */
  onRaise: () => void = () => {};

  constructor(options: LoopLimitOptions = {}) {
    const min = options.min ?? 4;
    const max = Math.max(min, options.max ?? 600);
    this.o = { min, max, targetDelayMs: options.targetDelayMs ?? 10, windowMs: options.windowMs ?? 100, initial: options.initial ?? 32 };
    this.limit = Math.max(min, Math.min(max, this.o.initial));
  }

  /** Feeds one window's delay (the timer does, tests may): adjusts the limit. */
  observe(delayMs: number): void {
    this.lastDelayMs = delayMs;
    const before = this.limit;
    this.limit = nextLimit(this.limit, delayMs, this.waited, this.o);
    this.waited = false;
    if (this.limit > before) this.onRaise();

  }

  start(source: DelaySource = eventLoopDelay()): void {
    this.source = source;
    this.timer = setInterval(() => this.observe(source.read()), this.o.windowMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    this.source?.stop();
    this.source = undefined;
  }
}
