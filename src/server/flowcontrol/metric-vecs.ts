// Counters and histograms for the per-request path, kept as plain numbers and
// rendered only when /metrics is scraped: prom-client's own children hash
// their label set on every inc/observe, which costs microseconds per request.
// They register in a prom-client Registry as custom metrics (name + get()).

import type { Metric, Registry } from 'prom-client';

type Labels = Record<string, string>;

interface MetricValue {
  labels: Labels;
  value: number;
  metricName?: string;
}

export interface CounterChild {
  value: number;
}

export class CounterVec {
  private readonly children: Array<{ labels: Labels; child: CounterChild }> = [];
  /** Called before the values are read (counts kept elsewhere are folded in then). */
  beforeRead: () => void = () => {};

  constructor(readonly name: string, private readonly help: string, registry: Registry) {
    registry.registerMetric(this as unknown as Metric);
  }

  /** A child for these labels; keep it: every call makes a new series. */
  child(labels: Labels): CounterChild {
    const child = { value: 0 };
    this.children.push({ labels, child });
    return child;
  }

  get(): { name: string; help: string; type: string; values: MetricValue[]; aggregator: string } {
    this.beforeRead();
    return { name: this.name, help: this.help, type: 'counter', aggregator: 'sum', values: this.children.map(({ labels, child }) => ({ labels, value: child.value })) };
  }
}

export interface HistogramChild {
  /** Per bucket (cumulative at render), then +Inf. */
  counts: number[];
  sum: number;
  count: number;
}

export class HistogramVec {
  private readonly children: Array<{ labels: Labels; child: HistogramChild }> = [];
  /** Called before the values are read (observations kept elsewhere are folded in then). */
  beforeRead: () => void = () => {};

  constructor(
    readonly name: string,
    private readonly help: string,
    private readonly buckets: readonly number[],
    registry: Registry,
    /** `le` before the other labels on bucket lines, as prom-client's own Histogram writes them. */
    private readonly leFirst = false,
  ) {
    registry.registerMetric(this as unknown as Metric);
  }

  child(labels: Labels): HistogramChild {
    const child = { counts: new Array<number>(this.buckets.length).fill(0), sum: 0, count: 0 };
    this.children.push({ labels, child });
    return child;
  }

  /** `n` observations of `value` at once. */
  observeMany(child: HistogramChild, value: number, n: number): void {
    const b = this.buckets;
    for (let i = 0; i < b.length; i++) {
      if (value <= b[i]!) {
        child.counts[i]! += n;
        break;
      }
    }
    child.sum += value * n;
    child.count += n;
  }

  observe(child: HistogramChild, value: number): void {
    this.observeMany(child, value, 1);
  }

  get(): { name: string; help: string; type: string; values: MetricValue[]; aggregator: string } {
    this.beforeRead();
    const values: MetricValue[] = [];
    for (const { labels, child } of this.children) {
      let cumulative = 0;
      this.buckets.forEach((le, i) => {
        cumulative += child.counts[i]!;
        values.push({ metricName: `${this.name}_bucket`, labels: this.withLe(labels, String(le)), value: cumulative });
      });
      values.push({ metricName: `${this.name}_bucket`, labels: this.withLe(labels, '+Inf'), value: child.count });
      values.push({ metricName: `${this.name}_sum`, labels, value: child.sum });
      values.push({ metricName: `${this.name}_count`, labels, value: child.count });
    }
    return { name: this.name, help: this.help, type: 'histogram', aggregator: 'sum', values };
  }

  private withLe(labels: Labels, le: string): Labels {
    return this.leFirst ? { le, ...labels } : { ...labels, le };
  }
}
