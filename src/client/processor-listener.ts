// ProcessorListener: delivers an informer's notifications to one event
// handler (client-go shared_informer.go processorListener).
//
// Each handler gets its own unbounded buffer and its own delivery loop, so a
// slow handler delays only itself, and each handler sees its notifications
// exactly in the order the informer produced them. A handler may return a
// promise: the next notification waits for it. A handler that throws or
// rejects is logged and skipped; it never stops the loop or the informer.
//
// hasSynced(): the informer has synced and every notification that belongs
// to the initial list (isInInitialList adds, including the synthetic adds a
// late-registered handler receives) has been delivered to this handler.

import type { ClientLogger } from './logger.js';
import { errorField } from './logger.js';
import type { DeletedFinalStateUnknown } from './store.js';

export interface ResourceEventHandler<T> {
  onAdd?(obj: T, isInInitialList: boolean): void | Promise<void>;
  onUpdate?(oldObj: T, newObj: T): void | Promise<void>;
  /** obj is a DeletedFinalStateUnknown when the delete was missed while disconnected. */
  onDelete?(obj: T | DeletedFinalStateUnknown<T>): void | Promise<void>;
}

export type Notification<T> =
  | { kind: 'add'; obj: T; isInInitialList: boolean }
  | { kind: 'update'; oldObj: T; newObj: T }
  | { kind: 'delete'; obj: T | DeletedFinalStateUnknown<T> };

export class ProcessorListener<T> {
  private buffer: Notification<T>[] = [];
  private head = 0;
  private wake: (() => void) | undefined;
  private stopped = false;
  private pendingInitial = 0;
  private idleWaiters: Array<() => void> = [];
  /** When this listener is next due a resync (clock ms); Infinity without resync. */
  nextResync = Infinity;

  constructor(
    readonly handler: ResourceEventHandler<T>,
    readonly resyncPeriodMs: number,
    private readonly upstreamHasSynced: () => boolean,
    private readonly log: ClientLogger,
  ) {}

  add(n: Notification<T>): void {
    if (this.stopped) return;
    if (n.kind === 'add' && n.isInInitialList) this.pendingInitial++;
    this.buffer.push(n);
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  hasSynced(): boolean {
    return this.upstreamHasSynced() && this.pendingInitial === 0;
  }

  /** Notifications waiting for delivery. */
  pending(): number {
    return this.buffer.length - this.head;
  }

  /** Resolves when everything buffered so far has been delivered. */
  idle(): Promise<void> {
    if (this.pending() === 0 || this.stopped) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Due for a resync at `now`? Advances nextResync when it is. */
  shouldResync(now: number): boolean {
    if (this.resyncPeriodMs <= 0 || now < this.nextResync) return false;
    this.nextResync = now + this.resyncPeriodMs;
    return true;
  }

  startResyncClock(now: number): void {
    this.nextResync = this.resyncPeriodMs > 0 ? now + this.resyncPeriodMs : Infinity;
  }

  stop(): void {
    this.stopped = true;
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }

  /** The delivery loop; resolves after stop(). */
  async run(): Promise<void> {
    while (!this.stopped) {
      if (this.pending() === 0) {
        for (const resolve of this.idleWaiters.splice(0)) resolve();
        await new Promise<void>((resolve) => (this.wake = resolve));
        continue;
      }
      const n = this.buffer[this.head++] as Notification<T>;
      if (this.head > 1024 && this.head * 2 > this.buffer.length) {
        this.buffer = this.buffer.slice(this.head);
        this.head = 0;
      }
      const waiting = this.deliver(n);
      if (waiting !== undefined) await waiting;
      if (n.kind === 'add' && n.isInInitialList) this.pendingInitial--;
    }
  }

  /**
   * Calls the handler; a promise when it returned one (the loop waits for it),
   * else undefined: a synchronous handler (most: they queue work) costs the
   * loop no promise and no turn per notification.
   */
  private deliver(n: Notification<T>): Promise<void> | undefined {
    let result: void | Promise<void> | undefined;
    try {
      if (n.kind === 'add') result = this.handler.onAdd?.(n.obj, n.isInInitialList);
      else if (n.kind === 'update') result = this.handler.onUpdate?.(n.oldObj, n.newObj);
      else result = this.handler.onDelete?.(n.obj);
    } catch (err) {
      this.failed(n, err);
      return undefined;
    }
    if (result === undefined || result === null || typeof (result as { then?: unknown }).then !== 'function') return undefined;
    return Promise.resolve(result).then(undefined, (err: unknown) => this.failed(n, err));
  }

  private failed(n: Notification<T>, err: unknown): void {
    this.log.error({ notification: n.kind, ...errorField(err) }, 'event handler failed');
  }
}
