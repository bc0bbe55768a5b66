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
// waits for I/O) between two of the dispatch limit's events (a request
// starting, a request finishing) is given to the requests that those events
// show running in it: after a start, the started request runs its first step
// at once (on the same turn); before a finish, the finished request ran its
// last step. An interval bounded by both goes half to each; one between a
// finish and a start (parsing new requests, queueing) to nobody. A request
// whose whole work is one turn (a GET from the watch cache) is charged exactly
// that turn. A request waiting on a disk or etcd is charged nothing for the
// others' work meanwhile (dividing all busy time among the requests in flight
// charged a create waiting on its fsync for the GETs served meanwhile, and the
// dispatch limit then starved the creates); its middle steps (a batched
// commit on a later turn) are charged to nobody, which errs in its favour.

import { performance } from 'node:perf_hooks';

/** A request's loop time so far (ms), from start() to finish(). */
export interface LoopCharge {
  ms: number;
  /** What the flow's share of loop time (loop-share.ts) was charged at the start, corrected at the finish. */
  estimatedMs: number;
}

export class LoopCost {
  private lastActive: number;
  /** The request started by the last event, when that event was a start. */
  private started: LoopCharge | undefined;

  /** `active`: the loop's busy time in ms so far (tests feed their own). */
  constructor(private readonly active: () => number = loopActiveMs()) {
    this.lastActive = active();
  }

  private elapsed(): number {
    const a = this.active();
    const d = a - this.lastActive;
    this.lastActive = a;
    return d;
  }

  /** A request starts executing: its charge, for finish(). */
  start(): LoopCharge {
    const d = this.elapsed();
    if (this.started !== undefined) this.started.ms += d;
    const charge = { ms: 0, estimatedMs: 0 };
    this.started = charge;
    return charge;
  }

  /** A request is done: its loop time in ms. */
  finish(charge: LoopCharge): number {
    const d = this.elapsed();
    const started = this.started;
    if (started === undefined || started === charge) charge.ms += d;
    else {
      started.ms += d / 2;
      charge.ms += d / 2;
    }
    this.started = undefined;
    return charge.ms;
  }
}

/** A moving mean of a flow's (or the server's) loop time per request, in ms. */
export function nextMeanCost(mean: number, cost: number, weight: number): number {
  return mean + (cost - mean) / weight;
}

/**
 * The loop's busy time in ms so far: what performance.eventLoopUtilization()
 * reports as `active` (time since the loop started, less the time it waited
 * for I/O), read without the object that call builds (twice per request).
 * Before the loop starts, 0.
 */
export function loopActiveMs(): () => number {
  const timing = performance.nodeTiming;
  let start = timing.loopStart;
  return () => {
    if (start <= 0) {
      start = timing.loopStart;
      if (start <= 0) return 0;
    }
    return performance.now() - start - timing.idleTime;
  };
}
