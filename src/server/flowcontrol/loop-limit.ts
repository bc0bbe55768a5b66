// The dispatch limit: how many requests may execute at once, derived from the
// event loop (apiary's own addition to priority and fairness).
//
// Why: upstream's seats (400 + 200) bound goroutines on many cores. apiary
// serves every request on one event loop, so those seats are never the
// bottleneck: a flood of 64 creates all execute at once, interleaved turn by
// turn with everyone else's requests, and APF's fair queues stay empty, so a
// light flow waits behind the flood's whole in-flight work. Concurrency on one
// loop only pays while requests wait on I/O (an fsync, an etcd round trip):
// then the loop is idle and a new request can use it. So the controller
// divides a limit that follows the loop among the active flows (controller.ts):
// while requests wait on it and the loop has room (its delay, how late a timer
// fires, i.e. the work in front of it, is well under a target, or the loop is
// idle part of the time), the limit grows; when the delay passes the target
// while the loop is busy, it shrinks. (Both signals: on a shared machine a
// timer is also late when the process is not scheduled, which more or fewer
// requests would not change; a loop idle in part is waiting on I/O, and more
// requests can use it.) Beyond its share a flow's requests wait in their
// level's fair queues, where a light flow's request goes before a flood's
// backlog, which is what lets fairness bite on the resource really scarce.
//
// The seats, their shares, borrowing and the 429s are upstream's and unchanged;
// the limit only decides when a queued request may start (never a 429 by itself).

import { performance } from 'node:perf_hooks';

export interface LoopLimitOptions {
  /** The fewest requests allowed to execute at once (default 2). */
  min?: number;
  /** The most (default: the server's seats). */
  max?: number;
  /** The loop delay the limit keeps under (default 2 ms: a light tenant's p99 stays within about twice its solo p99, bench/noisy-neighbour.ts). */
  targetDelayMs?: number;
  /** Between two adjustments (default 100 ms). */
  windowMs?: number;
  /** The starting limit (default 32, within [min, max]). */
  initial?: number;
}

/** The loop over one window: its largest delay (ms) and the part of the time it was busy (0..1). */
export interface LoopWindow {
  delayMs: number;
  utilization: number;
}

/** Busier than this, the loop has no room for more work. */
const BUSY = 0.9;

/**
 * One adjustment (pure): shrink in proportion when the loop's delay passed the
 * target while it was busy; grow when requests waited on the limit and the loop
 * has room (x1.25 when the delay is well under the target or the loop is idle a
 * good part of the time, else +1); else stay.
 */
export function nextLimit(limit: number, w: LoopWindow, waitedOnLimit: boolean, o: Required<Pick<LoopLimitOptions, 'min' | 'max' | 'targetDelayMs'>>): number {
  let next = limit;
  const busy = w.utilization >= BUSY;
  if (w.delayMs > o.targetDelayMs && busy) next = Math.floor(limit * Math.max(0.5, Math.min(0.9, o.targetDelayMs / w.delayMs)));
  else if (waitedOnLimit && (w.delayMs <= o.targetDelayMs || !busy)) next = w.delayMs < o.targetDelayMs / 2 || w.utilization < 0.7 ? Math.ceil(limit * 1.25) : limit + 1;
  return Math.max(o.min, Math.min(o.max, next));
}

/** The source of the loop's windows; each read() ends one and starts the next. */
export interface DelaySource {
  read(): LoopWindow;
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
  let elu = performance.eventLoopUtilization();
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
      const delayMs = Math.max(max, performance.now() - last - periodMs, 0);
      max = 0;
      const now = performance.eventLoopUtilization();
      const utilization = performance.eventLoopUtilization(now, elu).utilization;
      elu = now;
      return { delayMs, utilization };
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
  private newSource: (() => DelaySource) | undefined;
  private wanted = false;

  /** Called when the limit grows (the controller dispatches waiters then). */
  onRaise: () => void = () => {};

  constructor(options: LoopLimitOptions = {}) {
    const min = options.min ?? 2;
    const max = Math.max(min, options.max ?? 600);
    this.o = { min, max, targetDelayMs: options.targetDelayMs ?? 2, windowMs: options.windowMs ?? 100, initial: options.initial ?? 32 };
    this.limit = Math.max(min, Math.min(max, this.o.initial));
  }

  /** Feeds one window (the timer does, tests may): adjusts the limit. */
  observe(w: LoopWindow): void {
    this.lastDelayMs = w.delayMs;
    const before = this.limit;
    this.limit = nextLimit(this.limit, w, this.waited, this.o);
    this.waited = false;
    if (this.limit > before) this.onRaise();

  }

  /**
   * Makes the limit follow the loop from now on, while sampling is on
   * (sample(); off at first): the controller turns it on while any flow is
   * active. An idle server's windows would change nothing (no delay, nobody
   * waiting), and its sampling timer woke it 200 times a second.
   */
  start(source: () => DelaySource = () => eventLoopDelay()): void {
    this.newSource = source;
    if (this.wanted) this.sample(true);
  }

  /** Sampling on or off (see start(); it begins at start() when asked for before, ends at stop()). */
  sample(on: boolean): void {
    this.wanted = on;
    if (this.newSource === undefined || on === (this.timer !== undefined)) return;
    if (!on) {
      this.stopSampling();
      return;
    }
    const source = this.newSource();
    this.source = source;
    // A wait seen while nobody was sampled is old news.
    this.waited = false;
    this.timer = setInterval(() => this.observe(source.read()), this.o.windowMs);
    this.timer.unref();
  }

  /**
   * One flow is left: sampling stops, and the limit goes back up to its
   * initial value, so that the next flow to arrive is not held to a share of a
   * limit the one flow's own load had shrunk (it adapts again from there).
   */
  alone(): void {
    this.sample(false);
    if (this.limit < this.o.initial) {
      this.limit = this.o.initial;
      this.onRaise();
    }
  }

  stop(): void {
    this.newSource = undefined;
    this.stopSampling();
  }

  private stopSampling(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    this.source?.stop();
    this.source = undefined;
  }
}
