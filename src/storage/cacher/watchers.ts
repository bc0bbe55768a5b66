// The watchers of one resource's watch cache (./cacher.ts): registered by
// key prefix (the resource's root, or one namespace's), handed each dispatch's
// events, told how far the cache has got, and ended when a handler throws.

import { StatusError, badRequest, resourceExpired } from '../../machinery/errors.js';
import type { Predicate, StoreWatchEvent, StoreWatchHandlers } from '../object-store.js';
import { isCorruptObjectError } from '../corrupt-values.js';
import type { CacheEvent } from './watch-cache.js';
import { sharedEvents, watcherEvent } from './watcher-events.js';

export interface CacheWatcher {
  /** Key prefix this watcher sees (a namespace's, or the whole resource's). */
  prefix: string;
  predicate: Predicate | undefined;
  handlers: StoreWatchHandlers;
  /** Every event up to this revision has been handed over (or skipped). */
  lastRevision: number;
  stopped: boolean;
}

export class CacheWatchers {
  private readonly all = new Set<CacheWatcher>();
  /** The same watchers by prefix: the resource's root, or one namespace's. */
  private readonly byPrefix = new Map<string, Set<CacheWatcher>>();

  constructor(
    private readonly root: string,
    private readonly namespaced: boolean,
  ) {}

  get size(): number {
    return this.all.size;
  }

  /** Ends every watcher (the cache is re-initialised or stopped). */
  endAll(): void {
    const all = [...this.all];
    this.all.clear();
    this.byPrefix.clear();
    for (const w of all) this.end(w, undefined);
  }

  register(watcher: CacheWatcher): void {
    this.all.add(watcher);
    let group = this.byPrefix.get(watcher.prefix);
    if (group === undefined) this.byPrefix.set(watcher.prefix, (group = new Set()));
    group.add(watcher);
  }

  unregister(watcher: CacheWatcher): void {
    this.all.delete(watcher);
    const group = this.byPrefix.get(watcher.prefix);
    if (group === undefined) return;
    group.delete(watcher);
    if (group.size === 0) this.byPrefix.delete(watcher.prefix);
  }

  /**
   * Hands the pending events to the watchers whose prefix holds them (the
   * resource's watchers get every event, a namespace's watchers that
   * namespace's), then tells every watcher how far the cache has got.
   */
  dispatch(batch: readonly CacheEvent[], revision: number): void {
    if (batch.length > 0 && this.all.size > 0) {
      this.deliverBatch(this.byPrefix.get(this.root), batch);
      if (this.namespaced && this.byPrefix.size > (this.byPrefix.has(this.root) ? 1 : 0)) {
        const byNamespace = new Map<string, CacheEvent[]>();
        for (const e of batch) {
          const end = e.key.indexOf('/', this.root.length);
          if (end < 0) continue;
          const prefix = e.key.slice(0, end + 1);
          if (!this.byPrefix.has(prefix)) continue;
          let events = byNamespace.get(prefix);
          if (events === undefined) byNamespace.set(prefix, (events = []));
          events.push(e);
        }
        for (const [prefix, events] of byNamespace) this.deliverBatch(this.byPrefix.get(prefix), events);
      }
    }
    // Handed out: the history keeps only the stored JSON of these events.
    for (const e of batch) e.release();
    let rv: string | undefined;
    for (const watcher of this.all) {
      if (watcher.lastRevision >= revision || watcher.stopped) continue;
      watcher.lastRevision = revision;
      const onProgress = watcher.handlers.onProgress;
      if (onProgress === undefined) continue;
      try {
        onProgress((rv ??= String(revision)));
      } catch (err) {
        this.end(watcher, err instanceof StatusError ? err : badRequest(String(err)));
      }
    }
  }

  /**
   * One dispatch's events (in revision order, all under the group's prefix)
   * to a group of watchers. A handler may stop watchers meanwhile (they are
   * skipped); none can register meanwhile (watch() registers after an await).
   */
  private deliverBatch(group: Set<CacheWatcher> | undefined, events: readonly CacheEvent[]): void {
    if (group === undefined || events.length === 0) return;
    const first = events[0]!.revision;
    const last = events[events.length - 1]!.revision;
    /** The events as every unfiltered watcher sees them, made on first use. */
    let shared: StoreWatchEvent[] | undefined;
    for (const watcher of group) {
      if (watcher.stopped) continue;
      if (watcher.handlers.onEvents === undefined || watcher.predicate !== undefined || watcher.lastRevision >= first) {
        for (const e of events) this.deliverOne(watcher, e);
        continue;
      }
      shared ??= sharedEvents(events);
      watcher.lastRevision = last;
      if (shared.length === 0) continue;
      try {
        watcher.handlers.onEvents(shared);
      } catch (err) {
        this.end(watcher, err instanceof StatusError ? err : badRequest(String(err)));
      }
    }
  }

  /** Replays events to one watcher (a resumed watch's window). */
  deliver(watcher: CacheWatcher, events: readonly CacheEvent[]): void {
    for (const e of events) {
      if (watcher.stopped) return;
      this.deliverOne(watcher, e);
    }
  }

  /** One event to one watcher: runs once per watcher per event, so it is kept small (no closures). */
  private deliverOne(watcher: CacheWatcher, e: CacheEvent): void {
    if (watcher.stopped || e.revision <= watcher.lastRevision) return;
    watcher.lastRevision = e.revision;
    if (!e.key.startsWith(watcher.prefix)) return;
    let out: StoreWatchEvent | null;
    try {
      out = watcherEvent(e, watcher.predicate);
    } catch (err) {
      // A value that cannot be decoded: the event is skipped (counted and logged once).
      if (isCorruptObjectError(err)) return;
      throw err;
    }
    if (out === null) return;
    try {
      watcher.handlers.onEvent(out);
    } catch (err) {
      this.end(watcher, err instanceof StatusError ? err : badRequest(String(err)));
    }
  }

  /** Runs a handler; one that throws ends its watcher. Returns false when the watcher is over. */
  call(watcher: CacheWatcher, fn: () => void): boolean {
    if (watcher.stopped) return false;
    try {
      fn();
    } catch (err) {
      this.end(watcher, err instanceof StatusError ? err : badRequest(String(err)));
      return false;
    }
    return !watcher.stopped;
  }

  end(watcher: CacheWatcher, err: StatusError | undefined): void {
    if (watcher.stopped) return;
    watcher.stopped = true;
    this.unregister(watcher);
    try {
      if (err !== undefined) watcher.handlers.onError(err);
      else if (watcher.handlers.onClose !== undefined) watcher.handlers.onClose();
      else watcher.handlers.onError(resourceExpired('the watch cache was re-initialised; watch again'));
    } catch {
      // The watch is over; a throwing handler has nobody left to tell.
    }
  }
}
