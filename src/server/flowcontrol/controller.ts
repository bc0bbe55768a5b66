// API Priority and Fairness: the configuration consumer and the seat keeper
// (upstream's util/flowcontrol/apf_controller.go and conc_alloc.go, in our
// own shape). It turns the FlowSchemas and PriorityLevelConfigurations into
// a classifier (schemas in matchingPrecedence order, then by name; a schema
// whose level is missing matches nothing) and one PriorityLevelState per
// level, each with its share of the server's concurrency limit:
//
//   nominal(l) = ceil(serverLimit × shares(l) / Σ shares)
//   lendable(l) = round(nominal(l) × lendablePercent / 100)
//   max(l)      = nominal(l) + round(nominal(l) × borrowingLimitPercent / 100)  (no limit when unset)
//
// Borrowing as upstream's: every 10 s (and with each configuration) the
// seats are re-divided among the levels by their smoothed seat demand
// (borrowing.ts); a level admits up to its current limit in between.
//
// Admission is synchronous whenever a seat is free: no promise, no timer on
// the unloaded path. Otherwise the request waits in its flow's queue until a
// seat frees, its wait limit passes (rejected: time-out) or it is cancelled.
//
// The dispatch limit (loop-limit.ts): the event loop is given `limit`
// requests of queuing levels to execute at once, shared equally by the flows
// that have requests executing or waiting (max-min fair: a flow may execute
// up to limit / active flows, at least one). Requests are weighed by their
// loop time (loop-cost.ts): the share is limit × the mean request's loop time
// ÷ active flows, and a flow's requests in flight count at its own mean, so a
// flow of cheap requests may have more of them executing than a flood of dear
// ones. A flow stays counted as active
// for a moment (LINGER_MS) after its last request, so that a light flow
// between two of its requests does not hand the whole limit back to a flood;
// while only one flow is active nothing is held (there is nobody to be fair
// to, and the queued path's promise and timer would be pure cost). A flow at its share waits in its
// fair queue even though its level has seats; a flow under it (a light
// tenant's GETs beside a flood) starts at once. So the flood is what queues,
// and the loop carries at most its share of the flood's work when a light
// request arrives. Waiters are dispatched on the next turn of the loop
// (setImmediate), not inside the finishing request's own turn, so requests
// that arrived meanwhile are queued by then and compete in fair order; across
// levels, the one using the smallest part of its nominal seats goes first.
// One waiter starts per turn: a turn that started a whole backlog at once
// would hold the loop for all of their first steps before it reads the
// next request of anyone.
// Exempt requests and levels that reject rather than queue are not held.

import { MANDATORY_FLOW_SCHEMAS, MANDATORY_PRIORITY_LEVELS } from '../../api/flowcontrol/v1/bootstrap.js';
import { DEFAULT_NOMINAL_CONCURRENCY_SHARES } from '../../api/flowcontrol/v1/defaults.js';
import type { FlowSchema, PriorityLevelConfiguration } from '../../api/flowcontrol/v1/types.js';
import { compileFlowSchema, flowDistinguisher, type RequestDigest } from './matching.js';
import { PriorityLevelState, type FlowLoad, type LevelConfig, type RejectReason, type Waiter } from './queueset.js';
import { performance } from 'node:perf_hooks';
import { flowHash } from './shuffle-sharding.js';
import { allocate } from './borrowing.js';
import type { LoopLimit } from './loop-limit.js';
import { LoopCost, nextMeanCost, type LoopCharge } from './loop-cost.js';
import { LoopShare } from './loop-share.js';

export interface FlowControlOptions {
  /** --max-requests-inflight (default 400). */
  maxRequestsInflight?: number;
  /** --max-mutating-requests-inflight (default 200). */
  maxMutatingRequestsInflight?: number;
  /** How long a request may wait in its queue before it is refused (default 15 s, upstream's default wait limit). */
  queueWaitLimitMs?: number;
  /** The dispatch limit (none: only the seats limit). */
  loopLimit?: LoopLimit;
  /** How requests' loop time is measured under the dispatch limit (tests give their own clock); null: every request weighs the same. */
  loopCost?: LoopCost | null;
  /** How the flows share the loop's time under the dispatch limit (loop-share.ts); null: by requests in flight only. */
  loopShare?: LoopShare | null;
  now?: () => number;
  /** A monotonic clock in ms for execution times (default performance.now). */
  monotonic?: () => number;
}

export interface Classification {
  flowSchema: FlowSchema;
  level: PriorityLevelState;
  flowKey: string;
  /** The flow's hand of queues at its level (shuffle sharding), dealt once per flow and configuration. */
  hand?: number[];
  /** The flow's requests under the dispatch limit. */
  load: FlowLoad;
  /** The metrics' children of the flow's (level, schema), kept here by metrics.ts on first use: no lookup per request. */
  metricsSlot?: object;
}

/** Flows remembered per configuration; past this many the memo starts over. */
const MAX_REMEMBERED_FLOWS = 10_000;

/** Maps and leaves of the classification memo; past this many it starts over (a few MB at most). */
const MAX_CLASSIFIED_ENTRIES = 4 * MAX_REMEMBERED_FLOWS;

/** The classification memo: one map per part of the key, a Classification at the leaf. */
type ClassifiedNode = Map<string, ClassifiedNode | Classification>;

/** A granted request: release() exactly once when its work (or a watch's initialization) is done. */
export interface Ticket {
  readonly classification: Classification;
  readonly width: number;
  readonly waitedMs: number;
  /** Whether release() or finish() was called. */
  readonly released: boolean;
  release(): void;
  /** release(), returning how long the request executed (seconds, by the controller's monotonic clock; 0 when already released). */
  finish(): number;
}

export interface Rejection {
  readonly classification: Classification;
  readonly reason: RejectReason;
}

export interface FlowControlEvents {
  dispatched?(c: Classification, waitedMs: number, width: number): void;
  rejected?(c: Classification, reason: RejectReason): void;
  /** A request was queued; its queue holds `length` requests now. */
  enqueued?(c: Classification, length: number): void;
}

const MAX_SEATS_LIMIT = 10;
/** How long an idle flow still counts as active for the dispatch limit's shares. */
const LINGER_MS = 250;
const MAX_SEATS_PERCENT = 0.15;
/** Moving means of loop time per request: the server's over about 16 requests, a flow's over about 8. */
const SERVER_COST_WEIGHT = 16;
const FLOW_COST_WEIGHT = 8;
/** The least a request weighs under the dispatch limit, relative to the mean request. */
const MIN_WEIGHT = 1 / 16;

export class FlowController {
  readonly serverLimit: number;
  private schemas: FlowSchema[] = [];
  private matchers: Array<(d: RequestDigest) => boolean> = [];
  private levels = new Map<string, PriorityLevelState>();
  /**
   * One Classification per flow of the current configuration, by schema (its
   * index in `schemas`) then distinguisher: no hashing, dealing or key string
   * built per request.
   */
  private flows: Array<Map<string, Classification>> = [];
  private rememberedFlows = 0;
  /**
   * Classifications by what decides them (user, groups, verb, group, resource,
   * subresource, namespace; the path for non-resource requests): most requests
   * repeat a few such keys, and matching them against every schema's rules
   * costs more than the lookup. A tree of maps, one level per part, so that
   * no key string is built per request (concatenating and hashing ~100
   * characters cost more than the seven short lookups). Cleared with each
   * configuration.
   */
  private classified: ClassifiedNode = new Map();
  private classifiedCount = 0;
  /** Groups joined as one key part, by the groups array (authenticators hand out the same array per cached identity). */
  private groupKeys = new WeakMap<readonly string[], string>();
  private readonly queueWaitLimitMs: number;
  private readonly now: () => number;
  private readonly monotonic: () => number;
  readonly loopLimit: LoopLimit | undefined;
  /** The requests' loop time (with the dispatch limit only). */
  private readonly loopCost: LoopCost | undefined;
  /** The flows' shares of the loop's time (with the dispatch limit and loop costs only). */
  private readonly loopShare: LoopShare | undefined;
  /** Wakes the dispatcher when a flow held by its share of loop time may start again (nothing else might finish meanwhile). */
  private shareTimer: NodeJS.Timeout | undefined;
  private shareTimerDue = 0;
  /** Whether the last underShare() refused for loop time (not for the count in flight, which the limit's growth answers). */
  private heldByTime = false;
  private unqueuedMs = 0;
  private unqueuedAt = -Infinity;
  /** The mean loop time of a request (ms), the unit the limit's share is weighed in. */
  meanCostMs = 0.5;
  /** Requests executing under the dispatch limit, requests waiting in any queue, flows with either. */
  private running = 0;
  private waitingCount = 0;
  private activeFlows = 0;
  /**
   * The flows counted in activeFlows: those with requests executing or
   * waiting, and those idle for less than LINGER_MS (idleSince set). A flow
   * stays in the set while it comes and goes between requests, so the common
   * path (one request starts, ends, the next starts) touches no set.
   */
  private readonly counted = new Set<FlowLoad>();
  private lingerTimer: NodeJS.Timeout | undefined;
  private dispatchScheduled = false;
  events: FlowControlEvents = {};
  /** The last re-division's fair fraction (apiserver_flowcontrol_seat_fair_frac). */
  fairFrac = 0;
  /** Per level, the target of the last re-division (apiserver_flowcontrol_target_seats). */
  readonly targets = new Map<PriorityLevelState, number>();
  private rebalancer: NodeJS.Timeout | undefined;

  constructor(options: FlowControlOptions = {}) {
    this.serverLimit = (options.maxRequestsInflight ?? 400) + (options.maxMutatingRequestsInflight ?? 200);
    this.queueWaitLimitMs = options.queueWaitLimitMs ?? 15_000;
    this.now = options.now ?? Date.now;
    this.monotonic = options.monotonic ?? performance.now.bind(performance);
    this.loopLimit = options.loopLimit;
    if (this.loopLimit !== undefined) {
      this.loopLimit.onRaise = () => this.scheduleDispatch();
      if (options.loopCost !== null) this.loopCost = options.loopCost ?? new LoopCost();
      if (this.loopCost !== undefined && options.loopShare !== null) this.loopShare = options.loopShare ?? new LoopShare();
    }
    this.configure([], []);
  }

  /**
   * Installs a configuration. Missing mandatory objects are filled in from the
   * built-in ones (as upstream does before they are created); a level that stays
   * keeps its state (its executing and waiting requests); a level that goes
   * drains as it is (its waiters are still dispatched as seats free).
   */
  configure(flowSchemas: readonly FlowSchema[], priorityLevels: readonly PriorityLevelConfiguration[]): void {
    const pls = new Map<string, PriorityLevelConfiguration>();
    for (const pl of MANDATORY_PRIORITY_LEVELS) pls.set(pl.metadata.name!, pl);
    for (const pl of priorityLevels) pls.set(pl.metadata.name!, pl);
    const fss = new Map<string, FlowSchema>();
    for (const fs of MANDATORY_FLOW_SCHEMAS) fss.set(fs.metadata.name!, fs);
    for (const fs of flowSchemas) fss.set(fs.metadata.name!, fs);

    const shares = (pl: PriorityLevelConfiguration): number =>
      pl.spec.type === 'Exempt' ? (pl.spec.exempt?.nominalConcurrencyShares ?? 0) : (pl.spec.limited?.nominalConcurrencyShares ?? DEFAULT_NOMINAL_CONCURRENCY_SHARES);
    let sumShares = 0;
    for (const pl of pls.values()) sumShares += shares(pl);
    const next = new Map<string, PriorityLevelState>();
    for (const [name, pl] of pls) {
      const exempt = pl.spec.type === 'Exempt';
      const limited = pl.spec.limited;
      const nominal = sumShares > 0 ? Math.ceil((this.serverLimit * shares(pl)) / sumShares) : 0;
      const lendablePercent = (exempt ? pl.spec.exempt?.lendablePercent : limited?.lendablePercent) ?? 0;
      const borrowingLimitPercent = limited?.borrowingLimitPercent;
      const queuing = limited?.limitResponse?.queuing;
      const reject = !exempt && limited?.limitResponse?.type !== 'Queue';
      const config: LevelConfig = {
        name,
        uid: pl.metadata.uid ?? '',
        exempt,
        reject,
        queues: queuing?.queues ?? 0,
        handSize: queuing?.handSize ?? 0,
        queueLengthLimit: queuing?.queueLengthLimit ?? 0,
        limits: {
          nominal,
          lendable: Math.round((nominal * lendablePercent) / 100),
          max: exempt ? Infinity : borrowingLimitPercent === undefined ? Infinity : nominal + Math.round((nominal * borrowingLimitPercent) / 100),
        },
      };
      const old = this.levels.get(name);
      const sameShape = old !== undefined && old.config.queues === config.queues && old.config.reject === config.reject && old.config.exempt === config.exempt;
      if (sameShape) {
        old.config = config;
        next.set(name, old);
      } else {
        next.set(name, new PriorityLevelState(config, this.monotonic));
        if (old !== undefined) this.drainLater(old);
      }
    }
    for (const [name, old] of this.levels) if (!next.has(name)) this.drainLater(old);
    this.levels = next;
    this.schemas = [...fss.values()]
      .filter((fs) => next.has(fs.spec.priorityLevelConfiguration.name))
      .sort((a, b) => (a.spec.matchingPrecedence ?? 1000) - (b.spec.matchingPrecedence ?? 1000) || (a.metadata.name! < b.metadata.name! ? -1 : 1));
    this.matchers = this.schemas.map(compileFlowSchema);
    this.flows = this.schemas.map(() => new Map());
    this.rememberedFlows = 0;
    this.classified = new Map();
    this.classifiedCount = 0;
    this.rebalance();
    this.dispatchAll();
  }

  /**
   * Re-divides the seats among the levels by their seat demand over the period
   * that ends now (borrowing.ts); the limits hold until the next call.
   */
  rebalance(): void {
    const now = this.monotonic();
    const levels = [...this.levels.values()].filter((l) => !l.config.exempt);
    let total = 0;
    const items = levels.map((l) => {
      l.demand.endPeriod(now);
      const { nominal, lendable, max } = l.config.limits;
      total += nominal;
      const lower = Math.max(nominal - lendable, Math.min(nominal, l.demand.highWatermark));
      return { lower, upper: max, target: Math.max(lower, l.demand.smoothed) };
    });
    const { allocations, fairFrac } = allocate(total, items);
    this.fairFrac = fairFrac;
    this.targets.clear();
    levels.forEach((l, i) => {
      // At least one seat for a level that has any: with tiny totals (--max-requests-inflight 1) a level
      // lending all it has would round to none and stall its requests until demand is seen a period later.
      l.currentLimit = Math.max(Math.round(allocations[i]!), Math.min(1, l.config.limits.nominal));
      this.targets.set(l, items[i]!.target);
    });
    this.scheduleDispatch();
  }

  /** Re-divides every `periodMs` (upstream: 10 s) until stopRebalancing(). */
  startRebalancing(periodMs = 10_000): void {
    this.stopRebalancing();
    this.rebalancer = setInterval(() => this.rebalance(), periodMs);
    this.rebalancer.unref();
  }

  stopRebalancing(): void {
    if (this.rebalancer !== undefined) clearInterval(this.rebalancer);
    this.rebalancer = undefined;
  }

  /** A level that left the configuration: its waiters go as its running requests finish (they keep their old state object). */
  private readonly retired = new Set<PriorityLevelState>();
  private drainLater(level: PriorityLevelState): void {
    if (level.executing > 0 || level.waiting > 0) this.retired.add(level);
  }

  /** classify(), remembered per key (see `classified`); the digest is built only when the key is new. */
  classifyRequest(user: string, groups: readonly string[], info: Omit<RequestDigest, 'user' | 'groups'>): Classification {
    // One group (most users but admins and service accounts) is its own key; several are one JSON text, in a tree of their own.
    let groupKey: string;
    const one = groups.length === 1;
    if (one) groupKey = groups[0]!;
    else {
      const known = this.groupKeys.get(groups);
      if (known !== undefined) groupKey = known;
      else {
        groupKey = JSON.stringify(groups);
        this.groupKeys.set(groups, groupKey);
      }
    }
    // Every path through a tree has the same depth (a level holds only maps or only leaves).
    const root = this.classified;
    let node = this.step(this.step(this.step(root, info.isResourceRequest ? (one ? 'r1' : 'rn') : one ? 'n1' : 'nn'), user), groupKey);
    node = this.step(node, info.verb);
    let last: string;
    if (info.isResourceRequest) {
      node = this.step(this.step(this.step(node, info.apiGroup), info.resource), info.subresource);
      last = info.namespace;
    } else last = info.path;
    const known = node.get(last);
    if (known !== undefined) return known as Classification;
    const c = this.classify({ user, groups, isResourceRequest: info.isResourceRequest, verb: info.verb, apiGroup: info.apiGroup, resource: info.resource, subresource: info.subresource, namespace: info.namespace, path: info.path });
    // classify() may have started its own memo over (too many flows): then this key is not kept.
    if (this.classified !== root) return c;
    if (this.classifiedCount >= MAX_CLASSIFIED_ENTRIES) {
      this.classified = new Map();
      this.classifiedCount = 0;
      return c;
    }
    node.set(last, c);
    this.classifiedCount++;
    return c;
  }

  /** The child map of `node` under `part`, made when missing (counted with the leaves: the memo's size bounds its maps too). */
  private step(node: ClassifiedNode, part: string): ClassifiedNode {
    let next = node.get(part) as ClassifiedNode | undefined;
    if (next === undefined) {
      next = new Map();
      node.set(part, next);
      this.classifiedCount++;
    }
    return next;
  }

  classify(d: RequestDigest): Classification {
    for (let i = 0; i < this.schemas.length; i++) {
      if (!this.matchers[i]!(d)) continue;
      const fs = this.schemas[i]!;
      const distinguisher = flowDistinguisher(fs, d);
      const flows = this.flows[i]!;
      let c = flows.get(distinguisher);
      if (c === undefined) {
        if (this.rememberedFlows >= MAX_REMEMBERED_FLOWS) {
          for (const m of this.flows) m.clear();
          this.rememberedFlows = 0;
          this.classified = new Map();
          this.classifiedCount = 0;
        }
        c = { flowSchema: fs, level: this.levels.get(fs.spec.priorityLevelConfiguration.name)!, flowKey: `${fs.metadata.name},${distinguisher}`, load: { executing: 0, waiting: 0 } };
        flows.set(distinguisher, c);
        this.rememberedFlows++;
      }
      return c;
    }
    // Unreachable while catch-all is in place (it matches every user); kept total anyway.
    const fs = this.schemas[this.schemas.length - 1]!;
    return { flowSchema: fs, level: this.levels.get(fs.spec.priorityLevelConfiguration.name)!, flowKey: `${fs.metadata.name},`, load: { executing: 0, waiting: 0 } };
  }

  /** Seats a list or watch-with-initial-events of `objects` objects takes at this level (upstream's list work estimator). */
  maxSeats(level: PriorityLevelState): number {
    if (level.config.exempt || level.config.reject || level.config.handSize === 0) return MAX_SEATS_LIMIT;
    const n = level.config.limits.nominal;
    const seats = Math.max(1, Math.min(Math.ceil(n * MAX_SEATS_PERCENT), Math.floor(n / level.config.handSize)));
    return Math.min(seats, MAX_SEATS_LIMIT);
  }

  /**
   * Admits a request: a Ticket at once when a seat is free, a Rejection when
   * it cannot wait, else a promise of either. A waiting request leaves its
   * queue when `closer` (its response) emits 'close'. (An emitter rather than
   * a callback: nothing is allocated for it on the common path, a free seat.)
   */
  admit(c: Classification, width: number, closer?: { once(event: 'close', listener: () => void): unknown }): Ticket | Rejection | Promise<Ticket | Rejection> {
    const level = c.level;
    if (level.config.exempt) return this.grant(c, width, -1, 0);
    const w = Math.max(1, width);
    const queue = level.pickQueue((c.hand ??= level.dealHand(flowHash(c.flowKey))));
    if (level.config.reject) return this.canDispatch(level, w) ? this.grant(c, w, queue, 0) : this.reject(c, 'concurrency-limit');
    const load = c.load;
    if (this.loopLimit === undefined) {
      if (level.waiting === 0 && this.canDispatch(level, w)) return this.grant(c, w, queue, 0);
    } else if (load.waiting === 0 && this.canDispatch(level, w)) {
      // Others' waiters hold no claim on a seat this flow may take: they wait on their own flows' shares (or on seats, then canDispatch is false for all but narrower requests).
      if (this.underShare(load)) return this.grant(c, w, queue, 0);
      if (!this.heldByTime) this.loopLimit.waited = true;
    }
    if (level.queueLength(queue) >= level.config.queueLengthLimit) return this.reject(c, 'queue-full');
    return new Promise<Ticket | Rejection>((resolve) => {
      const enqueuedAt = this.now();
      let timer: NodeJS.Timeout | undefined;
      let settled = false;
      const waiter: Waiter = {
        width: w,
        flow: load,
        flowSchema: c.flowSchema.metadata.name!,
        queue,
        enqueuedAt,
        settle: (admitted, reason) => {
          if (settled) return;
          settled = true;
          if (timer !== undefined) clearTimeout(timer);
          resolve(admitted ? this.grant(c, w, queue, this.now() - enqueuedAt, true) : this.reject(c, reason ?? 'time-out'));
        },
      };
      level.enqueue(waiter);
      this.waitingCount++;
      if (load.waiting++ + load.executing === 0) this.flowActive(load);
      this.events.enqueued?.(c, level.queueLength(queue));
      timer = setTimeout(() => {
        if (this.unqueue(level, waiter)) waiter.settle(false, 'time-out');
      }, this.queueWaitLimitMs);
      closer?.once('close', () => {
        if (this.unqueue(level, waiter)) waiter.settle(false, 'cancelled');
      });
    });
  }

  private unqueue(level: PriorityLevelState, waiter: Waiter): boolean {
    if (!level.remove(waiter)) return false;
    this.waitingCount--;
    this.unwait(waiter.flow);
    return true;
  }

  private unwait(load: FlowLoad): void {
    if (--load.waiting + load.executing === 0) this.flowIdle(load, this.monotonic());
  }

  /** A flow has nothing executing or waiting any more: it lingers in the count for LINGER_MS, then the others' shares grow. */
  private flowIdle(load: FlowLoad, now: number): void {
    load.idleSince = now;
    if (this.lingerTimer === undefined) {
      this.lingerTimer = setInterval(() => this.expireLingering(), LINGER_MS);
      this.lingerTimer.unref();
    }
  }

  private flowActive(load: FlowLoad): void {
    if (load.idleSince !== undefined) load.idleSince = undefined;
    else if (!this.counted.has(load)) {
      this.counted.add(load);
      // The dispatch limit follows the loop while two flows or more are active: alone, a flow is held by
      // nothing (underShare), and a limit shrunk by its own load would cap it at half of that the moment a
      // second flow (a controller's one request) shows up.
      if (++this.activeFlows === 2) this.loopLimit?.sample(true);
    }
  }

  /** Flows idle for LINGER_MS leave the count: the others' shares grow. */
  private expireLingering(): void {
    const now = this.monotonic();
    let lingering = 0;
    for (const load of this.counted) {
      if (load.idleSince === undefined) continue;
      if (now - load.idleSince < LINGER_MS) {
        lingering++;
        continue;
      }
      this.counted.delete(load);
      load.idleSince = undefined;
      if (--this.activeFlows === 1) this.loopLimit?.alone();
    }
    if (lingering === 0 && this.lingerTimer !== undefined) {
      clearInterval(this.lingerTimer);
      this.lingerTimer = undefined;
    }
    this.scheduleDispatch();
  }

  /**
   * May a flow with `load` start one more request under the dispatch limit?
   * Always its first; more while its requests in flight, each weighed by its
   * mean loop time relative to the server's mean (at least 1/16: a cheap flow
   * may have 16 times a dear one's requests executing, not unbounded), fit
   * its share, limit ÷ active flows.
   */
  private underShare(load: FlowLoad): boolean {
    if (this.loopLimit === undefined || this.activeFlows <= 1) return true;
    this.heldByTime = false;
    // Only a flow with a backlog is held for loop time: one that sends a request at a time (a tenant's GETs,
    // or one maximal body after another) is itself held by its latency (loop-share.ts).
    if (this.loopShare !== undefined && load.waiting > 0) {
      const now = this.monotonic();
      const wait = this.loopShare.wait(load, this.activeFlows, now, this.unqueuedSpent(this.loopShare, now));
      if (wait > 0) {
        this.heldByTime = true;
        this.dispatchIn(wait);
        return false;
      }
    }
    if (load.executing === 0) return true;
    const mean = this.meanCostMs;
    const weight = this.loopCost === undefined || load.meanCostMs === undefined || mean <= 0 ? 1 : Math.max(MIN_WEIGHT, load.meanCostMs / mean);
    return (load.executing + 1) * weight <= this.loopLimit.limit / this.activeFlows;
  }

  /** Starts a request; `fromQueue`: it was waiting (take()n from its queue), its flow stays active. */
  private grant(c: Classification, width: number, queue: number, waitedMs: number, fromQueue = false): Ticket {
    const level = c.level;
    // One clock read at the start and one at the end serve the queue's charge, the seat demand, the flow's idle time and the metric.
    const started = this.monotonic();
    const charged = level.start(width, queue, started);
    const limited = !level.config.exempt && !level.config.reject;
    const load = c.load;
    if (limited) {
      this.running++;
      if (fromQueue) {
        load.waiting--;
        load.executing++;
      } else if (load.executing++ + load.waiting === 0) this.flowActive(load);
    }
    const charge = limited ? this.loopCost?.start() : undefined;
    if (charge !== undefined && this.loopShare !== undefined) {
      charge.estimatedMs = load.meanCostMs ?? this.meanCostMs;
      this.loopShare.charge(load, charge.estimatedMs, started);
    }
    this.events.dispatched?.(c, waitedMs, width);
    return new Grant(this, c, width, waitedMs, queue, charged, started, limited, charge);
  }

  /** A Grant is done (once): frees its seats and its flow's count, and lets waiters go. */
  finished(g: Grant, now: number, seconds: number): void {
    g.classification.level.finish(g.width, g.queue, g.charged, seconds, now);
    if (g.limited) {
      const load = g.classification.load;
      if (this.loopCost !== undefined && g.charge !== undefined) {
        const cost = this.loopCost.finish(g.charge);
        this.loopShare?.charge(load, cost - g.charge.estimatedMs, now);
        this.meanCostMs = nextMeanCost(this.meanCostMs, cost, SERVER_COST_WEIGHT);
        load.meanCostMs = load.meanCostMs === undefined ? cost : nextMeanCost(load.meanCostMs, cost, FLOW_COST_WEIGHT);
      }
      this.running--;
      if (--load.executing + load.waiting === 0) this.flowIdle(load, now);
    }
    if (this.waitingCount !== 0 || this.retired.size !== 0) this.scheduleDispatch();
  }

  /** The controller's monotonic clock (ms). */
  clock(): number {
    return this.monotonic();
  }

  /** Dispatches waiters on the loop's next turn (once, however many requests finish in this one). */
  scheduleDispatch(): void {
    if (this.dispatchScheduled || (this.waitingCount === 0 && this.retired.size === 0)) return;
    this.dispatchScheduled = true;
    setImmediate(() => {
      this.dispatchScheduled = false;
      this.dispatchAll();
    });
  }

  /** The loop time of the active flows with nothing waiting (loop-share.ts), summed at most once a millisecond. */
  private unqueuedSpent(share: LoopShare, now: number): number {
    if (now - this.unqueuedAt < 1) return this.unqueuedMs;
    let ms = 0;
    for (const load of this.counted) if (load.waiting === 0) ms += share.spent(load, now);
    this.unqueuedMs = ms;
    this.unqueuedAt = now;
    return ms;
  }

  /** Dispatches waiters in about `ms` (the earliest of the times asked for). */
  private dispatchIn(ms: number): void {
    const due = this.monotonic() + ms;
    if (this.shareTimer !== undefined) {
      if (this.shareTimerDue <= due) return;
      clearTimeout(this.shareTimer);
    }
    this.shareTimerDue = due;
    this.shareTimer = setTimeout(() => {
      this.shareTimer = undefined;
      this.scheduleDispatch();
    }, Math.max(1, Math.ceil(ms)));
    this.shareTimer.unref();
  }

  /** Requests executing under the dispatch limit now. */
  get executingUnderLimit(): number {
    return this.running;
  }

  private reject(c: Classification, reason: RejectReason): Rejection {
    if (reason === 'time-out') c.level.timedOut++;
    else if (reason === 'cancelled') c.level.cancelled++;
    else c.level.rejected++;
    this.events.rejected?.(c, reason);
    return { classification: c, reason };
  }

  /** May `level` start a request of `width` seats now? (A request wider than the level's limit runs alone.) */
  private canDispatch(level: PriorityLevelState, width: number): boolean {
    const limit = level.currentLimit;
    return level.seatsInUse + width <= limit || (level.seatsInUse === 0 && limit > 0);
  }

  /**
   * Starts waiting requests while seats and the dispatch limit allow: each
   * time, the level (with a waiter its seats admit) using the smallest part of
   * its nominal seats, and in it the next request in fair order.
   */
  private dispatchAll(): void {
    while (this.waitingCount > 0) {
      let best: PriorityLevelState | undefined;
      let bestUse = Infinity;
      let bestWaiter: Waiter | undefined;
      const consider = (level: PriorityLevelState): void => {
        if (level.waiting === 0) return;
        const next = level.peek((w) => this.underShare(w.flow) && this.canDispatch(level, w.width));
        if (next === undefined) return;
        const use = level.seatsInUse / Math.max(1, level.config.limits.nominal);
        if (use < bestUse) {
          best = level;
          bestUse = use;
          bestWaiter = next;
        }
      };
      for (const level of this.levels.values()) consider(level);
      for (const level of this.retired) consider(level);
      if (best === undefined || bestWaiter === undefined) {
        if (this.loopLimit !== undefined && !this.heldByTime) this.loopLimit.waited = true;
        break;
      }
      (best as PriorityLevelState).take(bestWaiter);
      this.waitingCount--;
      (bestWaiter as Waiter).settle(true);
      // Under the dispatch limit, one waiter per turn of the loop: the
      // requests that arrived meanwhile (a light flow's) are read between two
      // of a flood's starts, rather than after all of them.
      if (this.loopLimit !== undefined) {
        this.scheduleDispatch();
        break;
      }
    }
    for (const level of this.retired) if (level.executing === 0 && level.waiting === 0) this.retired.delete(level);
  }

  priorityLevels(): PriorityLevelState[] {
    return [...this.levels.values()];
  }

  flowSchemas(): FlowSchema[] {
    return [...this.schemas];
  }
}

/** A Ticket as a class: its methods are shared, nothing is allocated per request but the object. */
class Grant implements Ticket {
  released = false;

  constructor(
    private readonly controller: FlowController,
    readonly classification: Classification,
    readonly width: number,
    readonly waitedMs: number,
    readonly queue: number,
    readonly charged: number,
    private readonly started: number,
    readonly limited: boolean,
    /** Its loop time so far, when the dispatch limit weighs requests (loop-cost.ts). */
    readonly charge: LoopCharge | undefined,
  ) {}

  release(): void {
    this.finish();
  }

  finish(): number {
    if (this.released) return 0;
    this.released = true;
    const now = this.controller.clock();
    const seconds = (now - this.started) / 1000;
    this.controller.finished(this, now, seconds);
    return seconds;
  }
}

export function isTicket(v: Ticket | Rejection): v is Ticket {
  return 'release' in v;
}
