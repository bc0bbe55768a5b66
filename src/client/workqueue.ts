// WorkQueue: the rate-limited, delaying work queue controllers pull keys from
// (client-go util/workqueue: queue.go, delaying_queue.go,
// rate_limiting_queue.go, folded into one class).
//
// Contract and invariants:
// - An item is in at most one of three places: queued (waiting for a worker),
//   processing (handed out by get() and not yet done()), or neither. The
//   `dirty` set marks items that need processing.
// - add() of an item that is already dirty does nothing: a key queued twice
//   while waiting is processed once.
// - add() of an item that is processing only marks it dirty; done() puts it
//   back on the queue. So one item is never processed by two workers at once,
//   and a key re-added during processing is processed again afterwards.
// - addAfter(item, ms) holds the item back for ms on the clock; the same item
//   waiting twice keeps the earlier ready time.
// - addRateLimited(item) is addAfter(item, rateLimiter.when(item)); forget()
//   resets the item's backoff, numRequeues() reports it.
// - shutDown(): further adds are ignored, delayed items are dropped, workers
//   blocked in get() wake up; items still queued are handed out until the
//   queue is empty, then get() reports shutdown. shutDownWithDrain() does the
//   same and also waits until every item handed out has been marked done.

import { type Clock, type Timer, realClock } from './clock.js';
import { type RateLimiter, defaultControllerRateLimiter } from './rate-limiters.js';

export type GetResult<T> = { item: T; shutdown: false } | { item: undefined; shutdown: true };

export interface WorkQueueOptions<T> {
  name?: string;
  clock?: Clock;
  rateLimiter?: RateLimiter<T>;
}

interface Waiting<T> {
  item: T;
  readyAt: number;
}

export class WorkQueue<T> {
  readonly name: string;
  private readonly clock: Clock;
  private readonly rateLimiter: RateLimiter<T>;

  private queue: T[] = [];
  private head = 0; // queue[head..] are live; compacted lazily
  private readonly dirty = new Set<T>();
  private readonly processing = new Set<T>();
  private readonly getters: Array<(r: GetResult<T>) => void> = [];
  private drainWaiters: Array<() => void> = [];
  private shuttingDown = false;

  // Delayed items: readyAt per item, plus a min-heap with lazy deletion.
  private readonly waitingReadyAt = new Map<T, number>();
  private heap: Waiting<T>[] = [];
  private timer: Timer | undefined;
  private timerDue = Infinity;

  constructor(options: WorkQueueOptions<T> = {}) {
    this.name = options.name ?? '';
    this.clock = options.clock ?? realClock;
    this.rateLimiter = options.rateLimiter ?? defaultControllerRateLimiter<T>(this.clock);
  }

  /** Marks the item as needing processing (see the contract above). */
  add(item: T): void {
    if (this.shuttingDown || this.dirty.has(item)) return;
    this.dirty.add(item);
    if (this.processing.has(item)) return;
    this.push(item);
  }

  /** Items queued and not yet handed out (excludes delayed and processing). */
  len(): number {
    return this.queue.length - this.head;
  }

  /** Waits for an item; the caller must call done(item) when finished with it. */
  get(): Promise<GetResult<T>> {
    if (this.len() > 0) return Promise.resolve(this.takeNext());
    if (this.shuttingDown) return Promise.resolve({ item: undefined, shutdown: true });
    return new Promise((resolve) => this.getters.push(resolve));
  }

  /** Marks processing of the item finished; re-queues it if it was added meanwhile. */
  done(item: T): void {
    if (!this.processing.delete(item)) return;
    if (this.dirty.has(item)) this.push(item);
    if (this.processing.size === 0) this.wakeDrainers();
  }

  /** Stops accepting items; workers drain what is queued, then get() reports shutdown. */
  shutDown(): void {
    if (this.shuttingDown) return;
    this.shuttingDown = true;
    this.clearDelayed();
    if (this.len() === 0) {
      for (const resolve of this.getters.splice(0)) resolve({ item: undefined, shutdown: true });
    }
  }

  /** shutDown(), then waits until every item handed out by get() is done(). */
  shutDownWithDrain(): Promise<void> {
    this.shutDown();
    if (this.processing.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }

  isShuttingDown(): boolean {
    return this.shuttingDown;
  }

  /** Adds the item after ms milliseconds (immediately when ms <= 0). */
  addAfter(item: T, ms: number): void {
    if (this.shuttingDown) return;
    if (ms <= 0) {
      this.add(item);
      return;
    }
    const readyAt = this.clock.now() + ms;
    const existing = this.waitingReadyAt.get(item);
    if (existing !== undefined && existing <= readyAt) return;
    this.waitingReadyAt.set(item, readyAt);
    this.heapPush({ item, readyAt });
    this.armTimer();
  }

  /** Adds the item after the rate limiter says it may be retried. */
  addRateLimited(item: T): void {
    this.addAfter(item, this.rateLimiter.when(item));
  }

  /** Clears the item's failure history in the rate limiter. */
  forget(item: T): void {
    this.rateLimiter.forget(item);
  }

  numRequeues(item: T): number {
    return this.rateLimiter.numRequeues(item);
  }

  private push(item: T): void {
    const getter = this.getters.shift();
    if (getter !== undefined) {
      this.processing.add(item);
      this.dirty.delete(item);
      getter({ item, shutdown: false });
      return;
    }
    this.queue.push(item);
  }

  private takeNext(): GetResult<T> {
    const item = this.queue[this.head++] as T;
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
    this.processing.add(item);
    this.dirty.delete(item);
    if (this.shuttingDown && this.len() === 0) {
      // The last queued item is out: anyone still waiting learns of the shutdown.
      for (const resolve of this.getters.splice(0)) resolve({ item: undefined, shutdown: true });
    }
    return { item, shutdown: false };
  }

  private wakeDrainers(): void {
    for (const resolve of this.drainWaiters.splice(0)) resolve();
  }

  // --- delayed items ---

  private armTimer(): void {
    const next = this.peekLive();
    if (next === undefined) {
      this.disarm();
      return;
    }
    if (this.timer !== undefined && this.timerDue <= next.readyAt) return;
    this.disarm();
    this.timerDue = next.readyAt;
    this.timer = this.clock.setTimer(() => this.onTimer(), next.readyAt - this.clock.now());
  }

  private disarm(): void {
    if (this.timer !== undefined) this.clock.clearTimer(this.timer);
    this.timer = undefined;
    this.timerDue = Infinity;
  }

  private onTimer(): void {
    this.timer = undefined;
    this.timerDue = Infinity;
    const now = this.clock.now();
    for (;;) {
      const next = this.peekLive();
      if (next === undefined || next.readyAt > now) break;
      this.heapPop();
      this.waitingReadyAt.delete(next.item);
      this.add(next.item);
    }
    this.armTimer();
  }

  private clearDelayed(): void {
    this.disarm();
    this.waitingReadyAt.clear();
    this.heap = [];
  }

  /** The earliest heap entry that is still current, dropping superseded ones. */
  private peekLive(): Waiting<T> | undefined {
    while (this.heap.length > 0) {
      const top = this.heap[0] as Waiting<T>;
      if (this.waitingReadyAt.get(top.item) === top.readyAt) return top;
      this.heapPop();
    }
    return undefined;
  }

  private heapPush(entry: Waiting<T>): void {
    const h = this.heap;
    h.push(entry);
    let i = h.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if ((h[parent] as Waiting<T>).readyAt <= entry.readyAt) break;
      h[i] = h[parent] as Waiting<T>;
      i = parent;
    }
    h[i] = entry;
  }

  private heapPop(): void {
    const h = this.heap;
    const last = h.pop();
    if (last === undefined || h.length === 0) return;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let smallest = i;
      let smallestAt = last.readyAt;
      if (l < h.length && (h[l] as Waiting<T>).readyAt < smallestAt) {
        smallest = l;
        smallestAt = (h[l] as Waiting<T>).readyAt;
      }
      if (r < h.length && (h[r] as Waiting<T>).readyAt < smallestAt) smallest = r;
      if (smallest === i) break;
      h[i] = h[smallest] as Waiting<T>;
      i = smallest;
    }
    h[i] = last;
  }
}
