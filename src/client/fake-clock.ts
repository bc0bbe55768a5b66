// FakeClock: a Clock whose time moves only when step() is called, for tests
// of anything that waits (like k8s.io/utils/clock/testing). Timers due at or
// before the new time fire in due order, including timers scheduled by other
// timers' callbacks during the same step.

import type { Clock, Timer } from './clock.js';

interface FakeTimer extends Timer {
  due: number;
  seq: number;
  fn: () => void;
}

export class FakeClock implements Clock {
  private time: number;
  private seq = 0;
  private readonly timers = new Set<FakeTimer>();

  constructor(start = 0) {
    this.time = start;
  }

  now(): number {
    return this.time;
  }

  setTimer(fn: () => void, ms: number): Timer {
    const timer = { __timer: true as const, due: this.time + Math.max(0, ms), seq: this.seq++, fn };
    this.timers.add(timer);
    return timer;
  }

  clearTimer(timer: Timer): void {
    this.timers.delete(timer as FakeTimer);
  }

  /** Number of timers not yet fired or cleared. */
  pendingTimers(): number {
    return this.timers.size;
  }

  /** Advances time by ms, firing every timer that falls due on the way. */
  step(ms: number): void {
    const target = this.time + ms;
    for (;;) {
      const next = this.earliest();
      if (next === undefined || next.due > target) break;
      this.timers.delete(next);
      this.time = Math.max(this.time, next.due);
      next.fn();
    }
    this.time = target;
  }

  private earliest(): FakeTimer | undefined {
    let best: FakeTimer | undefined;
    for (const t of this.timers) {
      if (best === undefined || t.due < best.due || (t.due === best.due && t.seq < best.seq)) best = t;
    }
    return best;
  }
}
