// SharedIndexInformer: one List&Watch of one resource, shared by every event
// handler interested in it (client-go tools/cache shared_informer.go).
//
// Data path: Reflector → DeltaFIFO → handleDeltas → Indexer (the cache) and
// then every handler's ProcessorListener. The cache is updated before any
// handler hears of a change, so a handler reading the cache (through a
// lister) sees at least the state it is told about.
//
// Contract:
// - addEventHandler() may be called before or after run(). A handler added
//   late first receives a synthetic onAdd (isInInitialList = true) for every
//   object already cached, then live notifications.
// - onUpdate is also called on resync and relist with an unchanged object
//   (same resourceVersion); those reach only handlers whose resync period is
//   due. A relist's missing objects arrive as onDelete with a
//   DeletedFinalStateUnknown tombstone.
// - hasSynced(): the initial list has been fully applied to the cache.
// - run(signal) resolves once the informer has fully stopped after signal
//   aborted. An informer runs once; it cannot be restarted.
// - Handler errors are logged and never stop the informer.
// - A transform (option or setTransform() before run(), client-go's
//   SetTransform) is applied to every object received, before it is cached
//   or handed to any handler: cache and handlers see only what it returns.

import type { KubeObject } from '../machinery/meta.js';
import { type Clock, realClock, sleep } from './clock.js';
import { DeltaFIFO, type Delta, FIFOClosedError, type TransformFunc } from './delta-fifo.js';
import { Indexer, type Indexers } from './indexer.js';
import { Lister } from './lister.js';
import type { ListerWatcher } from './list-watch.js';
import { type ClientLogger, defaultLogger, errorField } from './logger.js';
import { type Notification, ProcessorListener, type ResourceEventHandler } from './processor-listener.js';
import { Reflector, type ReflectorOptions } from './reflector.js';
import { type KeyFunc, metaNamespaceKeyFunc } from './store.js';

export type { ResourceEventHandler } from './processor-listener.js';

/** Handlers may not ask for resyncs more often than this (client-go's minimumResyncPeriod). */
export const MINIMUM_RESYNC_PERIOD_MS = 1000;

export interface SharedInformerOptions<T extends KubeObject> {
  name?: string;
  /** Default resync period for handlers; 0 (default) disables resync. */
  resyncPeriodMs?: number;
  indexers?: Indexers<T>;
  /** false: no built-in namespace index (its lister cannot list by namespace). Default true. */
  namespaceIndex?: boolean;
  keyFunc?: KeyFunc<T>;
  clock?: Clock;
  logger?: ClientLogger;
  /** What the cache keeps of each object received (see the header). */
  transform?: TransformFunc<T>;
  /** Passed through to the Reflector (backoff, page size, watch timeouts). */
  reflector?: Omit<ReflectorOptions, 'clock' | 'resyncPeriodMs' | 'shouldResync' | 'logger' | 'name'>;
}

/** What addEventHandler returns: the handle to remove it and its own sync state. */
export interface EventHandlerRegistration {
  hasSynced(): boolean;
  remove(): void;
}

export class SharedIndexInformer<T extends KubeObject = KubeObject> {
  readonly name: string;
  private readonly indexer: Indexer<T>;
  private readonly clock: Clock;
  private readonly log: ClientLogger;
  private readonly defaultResyncMs: number;
  private resyncCheckPeriodMs: number;
  private readonly listeners = new Set<ProcessorListener<T>>();
  private syncingListeners = new Set<ProcessorListener<T>>();
  private fifo: DeltaFIFO<T> | undefined;
  private reflector: Reflector<T> | undefined;
  private started = false;
  private stopped = false;
  private transform: TransformFunc<T> | undefined;

  constructor(
    private readonly listerWatcher: ListerWatcher<T>,
    private readonly options: SharedInformerOptions<T> = {},
  ) {
    this.name = options.name ?? 'informer';
    this.clock = options.clock ?? realClock;
    this.log = options.logger ?? defaultLogger();
    this.defaultResyncMs = options.resyncPeriodMs ?? 0;
    this.resyncCheckPeriodMs = this.defaultResyncMs;
    this.indexer = new Indexer<T>(options.keyFunc ?? (metaNamespaceKeyFunc as KeyFunc<T>), options.indexers ?? {}, { namespaceIndex: options.namespaceIndex !== false });
    this.transform = options.transform;
  }

  /** Sets the transform applied to every object received; only before run(), as client-go. */
  setTransform(transform: TransformFunc<T>): void {
    if (this.started) throw new Error(`informer ${this.name} has already started`);
    this.transform = transform;
  }

  getIndexer(): Indexer<T> {
    return this.indexer;
  }

  /** A lister over this informer's cache. */
  lister(): Lister<T> {
    return new Lister<T>(this.indexer);
  }

  addIndexers(indexers: Indexers<T>): void {
    this.indexer.addIndexers(indexers);
  }

  hasSynced(): boolean {
    return this.fifo?.hasSynced() ?? false;
  }

  lastSyncResourceVersion(): string {
    return this.reflector?.lastSyncResourceVersion() ?? '';
  }

  isStarted(): boolean {
    return this.started;
  }

  isStopped(): boolean {
    return this.stopped;
  }

  /** Registers a handler; resyncPeriodMs defaults to the informer's. */
  addEventHandler(handler: ResourceEventHandler<T>, resyncPeriodMs = this.defaultResyncMs): EventHandlerRegistration {
    if (this.stopped) throw new Error(`handler was not added to shared informer ${this.name} because it has stopped already`);
    const period = this.effectiveResync(resyncPeriodMs);
    const listener = new ProcessorListener<T>(handler, period, () => this.hasSynced(), this.log);
    this.listeners.add(listener);
    if (this.started) {
      listener.startResyncClock(this.clock.now());
      for (const obj of this.indexer.list()) listener.add({ kind: 'add', obj, isInInitialList: true });
      void listener.run();
    }
    return {
      hasSynced: () => listener.hasSynced(),
      remove: () => {
        this.listeners.delete(listener);
        this.syncingListeners.delete(listener);
        listener.stop();
      },
    };
  }

  /** Resolves when every handler has been delivered everything so far (useful in tests). */
  async handlersIdle(): Promise<void> {
    await Promise.all([...this.listeners].map((l) => l.idle()));
  }

  /** Lists, watches and dispatches until signal aborts; resolves once fully stopped. */
  async run(signal: AbortSignal): Promise<void> {
    if (this.started) throw new Error(`informer ${this.name} has already been started`);
    this.started = true;
    const fifo = new DeltaFIFO<T>({ knownObjects: this.indexer, keyFunction: (o) => this.indexer.keyOf(o), transformer: this.transform });
    this.fifo = fifo;
    this.reflector = new Reflector<T>(this.listerWatcher, fifo, {
      ...this.options.reflector,
      name: this.name,
      clock: this.clock,
      logger: this.log,
      resyncPeriodMs: this.resyncCheckPeriodMs,
      shouldResync: () => this.shouldResync(),
    });
    const now = this.clock.now();
    for (const l of this.listeners) {
      l.startResyncClock(now);
      void l.run();
    }
    const closeFifo = (): void => fifo.close();
    signal.addEventListener('abort', closeFifo, { once: true });
    if (signal.aborted) fifo.close();
    const reflectorDone = this.reflector.run(signal);
    try {
      while (!signal.aborted) {
        try {
          await fifo.pop((deltas, isInInitialList) => this.handleDeltas(deltas, isInInitialList));
        } catch (err) {
          if (err instanceof FIFOClosedError) break;
          this.log.error({ informer: this.name, ...errorField(err) }, 'processing deltas failed');
        }
      }
    } finally {
      signal.removeEventListener('abort', closeFifo);
      await reflectorDone;
      this.stopped = true;
      for (const l of this.listeners) l.stop();
    }
  }

  /** Applies one key's deltas to the cache, then tells the handlers. */
  private handleDeltas(deltas: Delta<T>[], isInInitialList: boolean): void {
    for (const d of deltas) {
      if (d.type === 'Deleted') {
        this.indexer.delete(d.object);
        this.distribute({ kind: 'delete', obj: d.object }, false);
        continue;
      }
      const obj = d.object as T; // only Deleted deltas carry tombstones
      const old = this.indexer.get(obj);
      if (old !== undefined) {
        this.indexer.update(obj);
        // Unchanged resourceVersion: a resync or relist, not a change.
        const isSync = old.metadata?.resourceVersion === obj.metadata?.resourceVersion;
        this.distribute({ kind: 'update', oldObj: old, newObj: obj }, isSync);
      } else {
        this.indexer.add(obj);
        this.distribute({ kind: 'add', obj, isInInitialList }, false);
      }
    }
  }

  private distribute(n: Notification<T>, isSync: boolean): void {
    for (const l of isSync ? this.syncingListeners : this.listeners) l.add(n);
  }

  /** Called by the reflector each resync check: picks the listeners that are due. */
  private shouldResync(): boolean {
    const now = this.clock.now();
    this.syncingListeners = new Set([...this.listeners].filter((l) => l.shouldResync(now)));
    return this.syncingListeners.size > 0;
  }

  private effectiveResync(requested: number): number {
    if (requested <= 0) return 0;
    let period = Math.max(requested, MINIMUM_RESYNC_PERIOD_MS);
    if (period < this.resyncCheckPeriodMs || this.resyncCheckPeriodMs === 0) {
      // Before start the check period can shrink to fit; after, handlers get the check period.
      if (this.started) period = Math.max(period, this.resyncCheckPeriodMs);
      else this.resyncCheckPeriodMs = period;
    }
    return period;
  }
}

/**
 * Waits until every given informer (or registration) has synced. Resolves
 * true, or false if signal aborts first. Polls every pollMs (100 like client-go).
 */
export async function waitForCacheSync(
  signal: AbortSignal,
  synced: Array<{ hasSynced(): boolean }>,
  options: { clock?: Clock; pollMs?: number } = {},
): Promise<boolean> {
  const clock = options.clock ?? realClock;
  for (;;) {
    if (synced.every((s) => s.hasSynced())) return true;
    if (signal.aborted) return false;
    if (!(await sleep(clock, options.pollMs ?? 100, signal))) return false;
  }
}
