// What a request costs the event loop (apiary's own, for the dispatch limit).
//
// Why: the dispatch limit (loop-limit.ts) bounds the work in flight on the one
// event loop, and shares it among the active flows. Counted in requests, a
// tenant's cheap GETs (a turn of ~0.1 ms each) weigh as much as a flood's
// creates (parse, validate, store, encode: several times that), so when the
// limit is small the light tenant gets one request at a time and waits on its
// own requests. Weighed by their loop time, the light tenant's four GETs fit
// in the share one create takes.
//
// Measuring a request's own CPU on the loop exactly would need async hooks on
// every promise (too dear per request). Instead the loop's busy time
// (performance.eventLoopUtilization's `active`, which excludes the time it
// waits for I/O) is divided equally among the requests executing while it
// passes (processor sharing, as a virtual clock that advances by busy time ÷
// requests executing): a request's cost is the clock's advance over its life.
// A request waiting on a disk or etcd costs nothing while the loop is idle;
// requests overlapping one another share the time. It charges a short request
// less than its own turn took when others are in flight, which errs in the
// light flow's favour; between flows alike it is symmetric.

import { performance } from 'node:perf_hooks';

export class LoopCost {
  /** Busy ms per executing request, since the start (the virtual clock). */
  private virtual = 0;
  private lastActive: number;
  private running = 0;

  /** `active`: the loop's busy time in ms so far (tests feed their own). */
  constructor(private readonly active: () => number = () => performance.eventLoopUtilization().active) {
    this.lastActive = active();
  }

  private advance(): number {
    const a = this.active();
    if (this.running > 0) this.virtual += (a - this.lastActive) / this.running;
    this.lastActive = a;
    return this.virtual;
  }

  /** A request starts executing: its mark, for finish(). */
  start(): number {
    const v = this.advance();
    this.running++;
    return v;
  }

  /** A request that started at `mark` is done: its loop time in ms. */
  finish(mark: number): number {
    const v = this.advance();
    this.running--;
    return v - mark;
  }
}

/** A moving mean of a flow's (or the server's) loop time per request, in ms. */
export function nextMeanCost(mean: number, cost: number, weight: number): number {
  return mean + (cost - mean) / weight;
}
