// Each flow's share of the event loop's time (apiary's own, beside the
// dispatch limit).
//
// Why: the dispatch limit (loop-limit.ts) shares a count of requests in
// flight, and a flow may always run one. One is already too many for a flood
// of creates: one create at a time, each about half a millisecond of loop
// time, took 61 % of the loop while the light tenant's GETs got 22 % of it
// and 38 % of their solo rate (bench/noisy-neighbour.ts, profiled). A count
// cannot go below one; time can.
//
// So the controller also shares the loop's time. Each flow's loop time
// (loop-cost.ts) decays over TAU_MS. A flow with a backlog waits in its fair
// queue, even with nothing in flight, while
//   - its loop time is above its equal part of the budget (a fraction of the
//     wall time), and
//   - the flows' loop time together is over the budget, and
//   - the other flows without a backlog used at least MIN_OTHERS_MS.
// A flow without a backlog is never held: it sends its next request when the
// last is answered, so its latency holds it already, each request waiting for
// the others' work in front of it; it would use more of the loop if it got it.
// (Holding it too, a flow sending one maximal body after another, charged tens
// of milliseconds each, held the light tenant beside it.) Flows that all have
// backlogs (two floods) are not held: they gain nothing from a loop left idle,
// and share it by the dispatch limit alone. Nor is anyone held when the flows
// without a backlog use little of the loop (a controller's lease renewals
// beside one user's flood would otherwise cut the flood for nothing), or when
// one flow is active.
//
// The loop's time beyond the budget is not idle: requests are charged only for
// their own turns, and reading and parsing requests before they are admitted,
// GC and watch fan-out come on top; the rest is the light flow's latency.
//
// A start is charged its flow's mean cost at once and corrected when it
// finishes: charged only at the end, a backlog released while the flow was
// under its part would all start before the first of them showed its cost.

import type { FlowLoad } from './queueset.js';

/** Loop time decays with this time constant (ms): a flow's figure is about its loop time over the last TAU_MS. */
export const TAU_MS = 100;
/**
 * The flows' loop time together is held to this part of the wall time while
 * they compete (--apf-loop-budget). The light tenant's share of its solo rate
 * under the flood in bench/noisy-neighbour.ts (bench/README.md has the runs),
 * one round each: none 43-54 %, 0.5 51-73 %, 0.4 42-71 %, 0.3 63-74 %; medians
 * of three rounds: 0.25 67-80 %, 0.2 78-88 %. The flood then makes about half
 * its unheld rate or less.
 */
export const DEFAULT_BUDGET = 0.2;
/** Below this loop time (ms per TAU_MS) the flows without a backlog compete for nothing worth holding a flow for. */
const MIN_OTHERS_MS = 0.05 * TAU_MS;

export class LoopShare {
  private total = 0;
  private totalAt = 0;
  private readonly budgetMs: number;

  /** `budget`: the part of the wall time the competing flows' requests may take together (0..1]. */
  constructor(budget = DEFAULT_BUDGET) {
    this.budgetMs = Math.min(1, Math.max(0.01, budget)) * TAU_MS;
  }

  /** Adds `ms` of loop time (negative: a correction) to `load` and the total, at `now` (ms, monotonic). */
  charge(load: FlowLoad, ms: number, now: number): void {
    load.spentMs = Math.max(0, decayed(load.spentMs, load.spentAt, now) + ms);
    load.spentAt = now;
    this.total = Math.max(0, decayed(this.total, this.totalAt, now) + ms);
    this.totalAt = now;
  }

  /** A flow's loop time (ms over about the last TAU_MS) at `now`. */
  spent(load: FlowLoad, now: number): number {
    return decayed(load.spentMs, load.spentAt, now);
  }

  /**
   * 0 when a flow with `load` may start a request now as far as loop time
   * goes, else about how long (ms) until it may, if nothing else is charged.
   * `othersUnqueuedMs`: the loop time of the other active flows that have
   * nothing waiting.
   */
  wait(load: FlowLoad, activeFlows: number, now: number, othersUnqueuedMs: number): number {
    if (othersUnqueuedMs < MIN_OTHERS_MS) return 0;
    const spent = decayed(load.spentMs, load.spentAt, now);
    const part = this.budgetMs / Math.max(1, activeFlows);
    if (spent <= part) return 0;
    const total = decayed(this.total, this.totalAt, now);
    if (total <= this.budgetMs) return 0;
    // Either falling under its bound lets it start; both decay as e^(-t/TAU_MS).
    return TAU_MS * Math.log(Math.min(spent / part, total / this.budgetMs));
  }
}

function decayed(value: number | undefined, at: number | undefined, now: number): number {
  if (value === undefined || value === 0 || at === undefined) return 0;
  return now <= at ? value : value * Math.exp((at - now) / TAU_MS);
}
