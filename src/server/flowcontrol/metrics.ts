// apiserver_flowcontrol_* metrics (upstream's util/flowcontrol/metrics):
// counters and histograms updated per request through per-(schema, level)
// children looked up once per classification (plain numbers, see
// metric-vecs.ts), gauges computed at scrape.

import { Gauge, type Registry } from 'prom-client';
import { CounterVec, HistogramVec, type CounterChild, type HistogramChild } from './metric-vecs.js';
import type { Classification, FlowController } from './controller.js';
import type { RejectReason } from './queueset.js';

const WAIT_BUCKETS = [0, 0.005, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30];
const SEAT_BUCKETS = [1, 2, 4, 10];
const QUEUE_LENGTH_BUCKETS = [0, 10, 25, 50, 100, 250, 500, 1000];

/** A flow's execution metrics (opaque outside this module). */
export interface ExecutionMetrics {
  readonly tally: { executing: number; waiting: number };
}

interface Children {
  /**
   * Requests dispatched at once (no wait) on one seat, the common case: one
   * increment here instead of the dispatched counter and the wait and seats
   * histograms each; folded into those three before any of them is read.
   */
  immediate: number;
  dispatched: CounterChild;
  waitExecuted: HistogramChild;
  seats: HistogramChild;
  rejected: Map<string, CounterChild>;
  waitRejected?: HistogramChild;
  executionRegular: HistogramChild;
  executionWatch?: HistogramChild;
  queueLength: HistogramChild;
  labels: { priority_level: string; flow_schema: string };
  tally: { executing: number; waiting: number };
  owner: FlowControlMetrics;
}

export class FlowControlMetrics {
  private readonly dispatched: CounterVec;
  private readonly rejected: CounterVec;
  private readonly wait: HistogramVec;
  private readonly seats: HistogramVec;
  private readonly execution: HistogramVec;
  private readonly queueLength: HistogramVec;
  private readonly children = new Map<string, Children>();
  /** Executing and waiting requests per (level, schema), for the current_* gauges. */
  readonly current = new Map<string, { pl: string; fs: string; executing: number; waiting: number }>();

  constructor(registry: Registry, controller: FlowController) {
    const registers = [registry];
    this.dispatched = new CounterVec('apiserver_flowcontrol_dispatched_requests_total', 'Number of requests executed by API Priority and Fairness subsystem', registry);
    this.rejected = new CounterVec('apiserver_flowcontrol_rejected_requests_total', 'Number of requests rejected by API Priority and Fairness subsystem', registry);
    this.wait = new HistogramVec('apiserver_flowcontrol_request_wait_duration_seconds', 'Length of time a request spent waiting in its queue', WAIT_BUCKETS, registry);
    this.execution = new HistogramVec('apiserver_flowcontrol_request_execution_seconds', 'Duration of initial stage (for a WATCH) or any (for a non-WATCH) stage of request execution in the API Priority and Fairness subsystem', WAIT_BUCKETS, registry);
    this.queueLength = new HistogramVec('apiserver_flowcontrol_request_queue_length_after_enqueue', 'Length of queue in the API Priority and Fairness subsystem, as seen by each request after it is enqueued', QUEUE_LENGTH_BUCKETS, registry);
    this.seats = new HistogramVec('apiserver_flowcontrol_work_estimated_seats', 'Number of estimated seats (maximum of initial and final seats) associated with requests in API Priority and Fairness', SEAT_BUCKETS, registry);
    const fold = (): void => this.foldImmediate();
    this.dispatched.beforeRead = fold;
    this.wait.beforeRead = fold;
    this.seats.beforeRead = fold;
    const current = this.current;
    const perRequest = (name: string, help: string, pick: (v: { executing: number; waiting: number }) => number): void => {
      new Gauge({
        name,
        help,
        labelNames: ['priority_level', 'flow_schema'],
        registers,
        collect() {
          this.reset();
          for (const v of current.values()) this.set({ priority_level: v.pl, flow_schema: v.fs }, pick(v));
        },
      });
    };
    perRequest('apiserver_flowcontrol_current_executing_requests', 'Number of requests in initial (for a WATCH) or any (for a non-WATCH) execution stage in the API Priority and Fairness subsystem', (v) => v.executing);
    perRequest('apiserver_flowcontrol_current_inqueue_requests', 'Number of requests currently pending in queues of the API Priority and Fairness subsystem', (v) => v.waiting);
    const perLevel = (name: string, help: string, pick: (c: FlowController, l: ReturnType<FlowController['priorityLevels']>[number]) => number): void => {
      new Gauge({
        name,
        help,
        labelNames: ['priority_level'],
        registers,
        collect() {
          this.reset();
          for (const l of controller.priorityLevels()) if (!l.config.exempt) this.set({ priority_level: l.config.name }, pick(controller, l));
        },
      });
    };
    perLevel('apiserver_flowcontrol_nominal_limit_seats', 'Nominal number of execution seats configured for each priority level', (_c, l) => l.config.limits.nominal);
    perLevel('apiserver_flowcontrol_request_concurrency_limit', 'Nominal number of execution seats configured for each priority level', (_c, l) => l.config.limits.nominal);
    perLevel('apiserver_flowcontrol_current_limit_seats', 'current derived number of execution seats available to each priority level', (_c, l) => l.currentLimit);
    // The re-division's inputs and outputs (borrowing.ts), as upstream publishes them.
    perLevel('apiserver_flowcontrol_demand_seats_high_watermark', 'High watermark, over last adjustment period, of demand_seats', (_c, l) => l.demand.highWatermark);
    perLevel('apiserver_flowcontrol_demand_seats_average', 'Time-weighted average, over last adjustment period, of demand_seats', (_c, l) => l.demand.average);
    perLevel('apiserver_flowcontrol_demand_seats_stdev', 'Time-weighted standard deviation, over last adjustment period, of demand_seats', (_c, l) => l.demand.stdDev);
    perLevel('apiserver_flowcontrol_demand_seats_smoothed', 'Smoothed seat demands', (_c, l) => l.demand.smoothed);
    perLevel('apiserver_flowcontrol_target_seats', 'Seat allocation targets', (c, l) => c.targets.get(l) ?? 0);
    new Gauge({ name: 'apiserver_flowcontrol_seat_fair_frac', help: 'Fair fraction of server\'s concurrency to allocate to each priority level that can use it', registers, collect() { this.set(controller.fairFrac); } });
    perLevel('apiserver_flowcontrol_lower_limit_seats', 'Configured lower bound on number of execution seats available to each priority level', (_c, l) => l.config.limits.nominal - l.config.limits.lendable);
    perLevel('apiserver_flowcontrol_upper_limit_seats', 'Configured upper bound on number of execution seats available to each priority level', (c, l) => Math.min(l.config.limits.max, c.serverLimit));
    perLevel('apiserver_flowcontrol_current_executing_seats', 'Concurrency (number of seats) occupied by the currently executing (initial stage for a WATCH, any stage otherwise) requests in the API Priority and Fairness subsystem', (_c, l) => l.seatsInUse);
    perLevel('apiserver_flowcontrol_request_concurrency_in_use', 'Concurrency (number of seats) occupied by the currently executing (initial stage for a WATCH, any stage otherwise) requests in the API Priority and Fairness subsystem', (_c, l) => l.seatsInUse);
    // apiary's own: the dispatch limit that follows the event loop (loop-limit.ts), and the loop's delay it last saw.
    const loopLimit = controller.loopLimit;
    if (loopLimit !== undefined) {
      new Gauge({ name: 'apiary_flowcontrol_dispatch_limit', help: 'Requests allowed to execute at once, derived from the event loop delay (apiary)', registers, collect() { this.set(loopLimit.limit); } });
      new Gauge({ name: 'apiary_flowcontrol_event_loop_delay_seconds', help: 'The largest event loop delay in the last window of the dispatch limit (apiary)', registers, collect() { this.set(loopLimit.lastDelayMs / 1000); } });
    }
  }

  private childrenFor(c: Classification): Children {
    const slot = c.metricsSlot;
    // A classification keeps its children (no label strings or lookups per request); a slot another instance filled is not ours.
    if (slot !== undefined && (slot as Children).owner === this) return slot as Children;
    return this.findChildren(c);
  }

  private findChildren(c: Classification): Children {
    const key = `${c.level.config.name}\u0000${c.flowSchema.metadata.name}`;
    let ch = this.children.get(key);
    if (ch === undefined) {
      const labels = { priority_level: c.level.config.name, flow_schema: c.flowSchema.metadata.name! };
      let tally = this.current.get(key);
      if (tally === undefined) {
        tally = { pl: labels.priority_level, fs: labels.flow_schema, executing: 0, waiting: 0 };
        this.current.set(key, tally);
      }
      ch = {
        dispatched: this.dispatched.child(labels),
        waitExecuted: this.wait.child({ ...labels, execute: 'true' }),
        seats: this.seats.child(labels),
        immediate: 0,
        rejected: new Map(),
        executionRegular: this.execution.child({ ...labels, type: 'regular' }),
        queueLength: this.queueLength.child(labels),
        labels,
        tally,
        owner: this,
      };
      this.children.set(key, ch);
    }
    c.metricsSlot = ch;
    return ch;
  }

  /** The executing/waiting tally of a classification. */
  tally(c: Classification): { executing: number; waiting: number } {
    return this.childrenFor(c).tally;
  }

  /** The immediate dispatches counted so far go into the dispatched counter and the wait and seats histograms. */
  private foldImmediate(): void {
    for (const ch of this.children.values()) {
      const n = ch.immediate;
      if (n === 0) continue;
      ch.immediate = 0;
      ch.dispatched.value += n;
      this.wait.observeMany(ch.waitExecuted, 0, n);
      this.seats.observeMany(ch.seats, 1, n);
    }
  }

  onDispatched(c: Classification, waitedMs: number, width: number): void {
    const ch = this.childrenFor(c);
    if (waitedMs === 0 && width === 1) {
      ch.immediate++;
      return;
    }
    ch.dispatched.value++;
    this.wait.observe(ch.waitExecuted, waitedMs / 1000);
    this.seats.observe(ch.seats, width);
  }

  /** A request of `c` starts executing; hand what this returns to executed() when it is done. */
  executing(c: Classification): ExecutionMetrics {
    const ch = this.childrenFor(c);
    ch.tally.executing++;
    return ch;
  }

  /** A request's execution (a watch's initialization) took `seconds`. */
  executed(execution: ExecutionMetrics, seconds: number, watch: boolean): void {
    const ch = execution as Children;
    ch.tally.executing--;
    this.execution.observe(watch ? (ch.executionWatch ??= this.execution.child({ ...ch.labels, type: 'watch' })) : ch.executionRegular, seconds);
  }

  /** A request was queued; its queue holds `length` requests now. */
  onEnqueued(c: Classification, length: number): void {
    this.queueLength.observe(this.childrenFor(c).queueLength, length);
  }

  onRejected(c: Classification, reason: RejectReason): void {
    const ch = this.childrenFor(c);
    let counter = ch.rejected.get(reason);
    if (counter === undefined) {
      counter = this.rejected.child({ ...ch.labels, reason });
      ch.rejected.set(reason, counter);
    }
    counter.value++;
    this.wait.observe((ch.waitRejected ??= this.wait.child({ ...ch.labels, execute: 'false' })), 0);
  }
}
