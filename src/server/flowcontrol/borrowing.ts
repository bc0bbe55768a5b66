// Borrowing as kube-apiserver 1.32 re-divides it (KEP-1040; upstream's
// apf_controller.go updateBorrowing and conc_alloc.go, in our own shape):
// every 10 s each priority level's seat demand (seats executing + seats
// waiting, integrated over time) gives its statistics for the period (the
// mean, the standard deviation, the high watermark); the demand is smoothed
//   smoothed = max(mean + stddev, 0.977 × smoothed + 0.023 × (mean + stddev))
// and the server's seats (Σ nominal) are divided again: each level gets
//   current = clamp(fairFrac × target, lower, upper)
//   lower   = max(nominal − lendable, min(nominal, high watermark))
//   target  = max(lower, smoothed)     upper = nominal + borrowing limit
// with the one fairFrac that makes the currents add up to Σ nominal. A level
// admits requests up to its current limit until the next period.

/** A level's seat demand, integrated over time since the last reset. */
export class SeatDemand {
  private value = 0;
  private since: number;
  private start: number;
  private sum = 0;
  private sumSquares = 0;
  private max = 0;
  /** The statistics of the periods so far (upstream's seatDemandStats). */
  highWatermark = 0;
  average = 0;
  stdDev = 0;
  smoothed = 0;

  constructor(now: number) {
    this.since = now;
    this.start = now;
  }

  /** The demand is `value` from `now` on. */
  set(value: number, now: number): void {
    const dt = now - this.since;
    if (dt > 0) {
      this.sum += this.value * dt;
      this.sumSquares += this.value * this.value * dt;
    }
    this.since = now;
    this.value = value;
    if (value > this.max) this.max = value;
  }

  /** Ends a period: its statistics update the smoothed demand; the next period starts with the current value. */
  endPeriod(now: number): void {
    this.set(this.value, now);
    const duration = now - this.start;
    this.highWatermark = this.max;
    if (duration > 0) {
      this.average = this.sum / duration;
      this.stdDev = Math.sqrt(Math.max(0, this.sumSquares / duration - this.average * this.average));
      const envelope = this.average + this.stdDev;
      this.smoothed = Math.max(envelope, SMOOTHING * this.smoothed + (1 - SMOOTHING) * envelope);
    }
    this.start = now;
    this.sum = 0;
    this.sumSquares = 0;
    this.max = this.value;
  }
}

const SMOOTHING = 0.977;
const MIN_TARGET = 0.001;

export interface AllocationItem {
  lower: number;
  upper: number;
  target: number;
}

/**
 * The fair division (pure): allocations clamp(fairFrac × target, lower, upper)
 * summing to `total`, and that fairFrac. When the lower bounds already reach
 * the total every item gets its lower bound; when the upper bounds cannot, its upper one.
 */
export function allocate(total: number, items: readonly AllocationItem[]): { allocations: number[]; fairFrac: number } {
  const targets = items.map((i) => Math.max(MIN_TARGET, i.target));
  const at = (p: number): number[] => items.map((i, k) => Math.max(i.lower, Math.min(i.upper, p * targets[k]!)));
  const sum = (a: number[]): number => a.reduce((x, y) => x + y, 0);
  const lowSum = sum(items.map((i) => i.lower));
  if (total <= 0) return { allocations: items.map(() => 0), fairFrac: 0 };
  if (lowSum >= total) return { allocations: items.map((i) => i.lower), fairFrac: Math.min(...items.map((i, k) => i.lower / targets[k]!)) };
  const highSum = sum(items.map((i) => i.upper));
  if (highSum <= total) return { allocations: items.map((i) => i.upper), fairFrac: Math.max(...items.map((i, k) => i.upper / targets[k]!)) };
  // f(p) = Σ clamp(p × target) grows with p: bisect for f(p) = total.
  let lo = 0;
  let hi = 1;
  while (sum(at(hi)) < total) hi *= 2;
  for (let n = 0; n < 100 && hi - lo > 1e-12 * hi; n++) {
    const mid = (lo + hi) / 2;
    if (sum(at(mid)) < total) lo = mid;
    else hi = mid;
  }
  return { allocations: at(hi), fairFrac: hi };
}
