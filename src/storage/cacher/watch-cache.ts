// The watch cache's state for one resource: the current objects in key order
// and a bounded window of the most recent events (upstream's watchCache).
//
// Contract:
// - Objects are kept as the backend stored them (JSON without
//   resourceVersion) plus their modRevision; they are parsed only when a
//   reader asks (decode), so 100,000 objects cost about their JSON size. A
//   history event's parsed form lives from its dispatch until release().
// - `revision` is the newest revision the cache reflects: the last applied
//   event's, or a later one a progress notification confirmed. It never goes
//   back. waitFor(rev, ms) resolves true once revision >= rev, false after ms.
// - The history holds at most `capacity` events in revision order. A watch can
//   resume from any revision >= oldestResumable(); older ones get 410.
// - replace() loads a full list (initialisation, or after the backend watch
//   failed): the history starts empty and resumable from the list revision on.
// - A value that cannot be decoded is kept as stored (the cache never parses
//   on apply); the decoder the cache was given throws for it when a reader or
//   an event asks, and the cacher leaves it out of watch streams.
// - Namespaced scans cost what the key range holds: keys are kept sorted and a
//   scan starts with a binary search (SortedKeys).

import type { KeyValue, WatchEvent as KVWatchEvent } from '../interface.js';
import type { KubeObject } from '../../machinery/meta.js';
import { SortedKeys } from '../sorted-keys.js';
import { decode, type StoreWatchEvent } from '../object-store.js';

/** Parses a stored value at a revision; throws (a CorruptObjectError) for a value that is not an object. */
export type CacheDecoder = (key: string, value: string, revision: number) => KubeObject;

const plainDecoder: CacheDecoder = (_key, value, revision) => decode(value, revision);

/** One object as the cache holds it. */
export interface CachedObject {
  readonly key: string;
  /** The stored JSON (no metadata.resourceVersion). */
  readonly value: string;
  /** modRevision: the object's resourceVersion. */
  readonly revision: number;
}

/** One change, as kept in the history window. */
export class CacheEvent {
  /** Memo of the parsed objects and the event every unfiltered watcher receives. */
  private sharedEvent: StoreWatchEvent | undefined;
  private prevObject: KubeObject | undefined;

  constructor(
    readonly type: 'ADDED' | 'MODIFIED' | 'DELETED',
    readonly key: string,
    readonly revision: number,
    /** The state after the change; for DELETED, the last state (at the deletion's revision). */
    readonly object: CachedObject,
    /** The state before the change (updates and deletions), when known. */
    readonly prev: CachedObject | undefined,
    private readonly decoder: CacheDecoder = plainDecoder,
  ) {}

  /**
   * The event as a watcher without a selector sees it; one object shared by
   * every such watcher. Throws when the value cannot be decoded.
   */
  shared(): StoreWatchEvent {
    this.sharedEvent ??= { type: this.type, object: this.decoder(this.key, this.object.value, this.revision) };
    return this.sharedEvent;
  }

  /** The previous state, parsed once, its resourceVersion this event's revision (as upstream's DELETED of a filtered-out object). */
  previous(): KubeObject | undefined {
    if (this.prev === undefined) return undefined;
    this.prevObject ??= this.decoder(this.key, this.prev.value, this.revision);
    return this.prevObject;
  }

  /**
   * Drops the parsed forms once the event has been handed out: the history
   * then holds only the stored JSON (and the layers above can let go of their
   * encodings, which they key on the shared event). A later replay parses again.
   */
  release(): void {
    this.sharedEvent = undefined;
    this.prevObject = undefined;
  }
}

interface Waiter {
  revision: number;
  resolve(reached: boolean): void;
  timer: NodeJS.Timeout;
}

export class WatchCache {
  private readonly objects = new Map<string, CachedObject>();
  private readonly keys = new SortedKeys();
  /** Ring buffer of the last `capacity` events. */
  private readonly history: (CacheEvent | undefined)[];
  private start = 0;
  private size = 0;
  /** The revision of the list the cache was last filled from. */
  private listRevision = 0;
  /** True once an event was dropped from the window since the last list. */
  private evicted = false;
  private waiters: Waiter[] = [];
  revision = 0;

  constructor(
    readonly capacity: number,
    private readonly decoder: CacheDecoder = plainDecoder,
  ) {
    if (!(capacity >= 1)) throw new Error(`watch cache capacity must be at least 1, got ${capacity}`);
    this.history = new Array<CacheEvent | undefined>(capacity);
  }

  get objectCount(): number {
    return this.objects.size;
  }

  /** Loads a complete list read at `revision`; the history starts over. */
  replace(kvs: readonly KeyValue[], revision: number): void {
    this.objects.clear();
    this.keys.retain(() => false);
    for (const kv of kvs) {
      this.objects.set(kv.key, { key: kv.key, value: kv.value, revision: kv.modRevision });
      this.keys.insert(kv.key);
    }
    this.history.fill(undefined);
    this.start = 0;
    this.size = 0;
    this.evicted = false;
    this.listRevision = revision;
    this.advance(Math.max(revision, this.revision));
  }

  /** Applies backend events in revision order; returns them as cache events. */
  apply(events: readonly KVWatchEvent[]): CacheEvent[] {
    const out: CacheEvent[] = [];
    for (const e of events) {
      let event: CacheEvent;
      if (e.type === 'put') {
        const prev = this.objects.get(e.kv.key);
        const object: CachedObject = { key: e.kv.key, value: e.kv.value, revision: e.kv.modRevision };
        if (prev === undefined) this.keys.insert(e.kv.key);
        this.objects.set(e.kv.key, object);
        const prevState = prev ?? (e.prevKv ? { key: e.kv.key, value: e.prevKv.value, revision: e.prevKv.modRevision } : undefined);
        event = new CacheEvent(prevState === undefined ? 'ADDED' : 'MODIFIED', e.kv.key, e.kv.modRevision, object, prevState, this.decoder);
      } else {
        const prev = this.objects.get(e.key);
        this.objects.delete(e.key);
        this.keys.remove(e.key);
        const last: CachedObject = { key: e.key, value: (prev ?? e.prevKv).value, revision: e.revision };
        event = new CacheEvent('DELETED', e.key, e.revision, last, last, this.decoder);
      }
      this.push(event);
      out.push(event);
    }
    if (out.length > 0) this.advance(out[out.length - 1].revision);
    return out;
  }

  /** A progress notification: nothing under the prefix is pending up to `revision`. */
  progress(revision: number): void {
    this.advance(revision);
  }

  /** The oldest revision a watch may resume from (upstream: oldest event's revision - 1). */
  oldestResumable(): number {
    if (!this.evicted) return this.listRevision;
    const oldest = this.history[this.start];
    return oldest === undefined ? this.revision : oldest.revision - 1;
  }

  /** History events with revision > after, in order (after must be >= oldestResumable()). */
  eventsAfter(after: number): CacheEvent[] {
    // Binary search for the first event past `after`.
    let lo = 0;
    let hi = this.size;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.at(mid).revision <= after) lo = mid + 1;
      else hi = mid;
    }
    const out: CacheEvent[] = [];
    for (let i = lo; i < this.size; i++) out.push(this.at(i));
    return out;
  }

  get(key: string): CachedObject | undefined {
    return this.objects.get(key);
  }

  /** Whether any key is in [start, end) (an empty end: no upper bound); false means range() yields nothing. */
  hasRange(start: string, end: string): boolean {
    const first = this.keys.firstFrom(start);
    return first !== undefined && (end === '' || first < end);
  }

  /** Objects with keys in [start, end), in key order. */
  *range(start: string, end: string): Generator<CachedObject> {
    for (const key of this.keys.between(start, end)) {
      const obj = this.objects.get(key);
      if (obj !== undefined) yield obj;
    }
  }

  /** Resolves true once the cache reflects `revision`, false after `timeoutMs`. */
  waitFor(revision: number, timeoutMs: number): Promise<boolean> {
    if (this.revision >= revision) return Promise.resolve(true);
    if (timeoutMs <= 0) return Promise.resolve(false);
    return new Promise((resolve) => {
      const waiter: Waiter = {
        revision,
        resolve,
        timer: setTimeout(() => {
          this.waiters = this.waiters.filter((w) => w !== waiter);
          resolve(false);
        }, timeoutMs),
      };
      this.waiters.push(waiter);
    });
  }

  /** Fails every waiter now (the cache is stopping). */
  releaseWaiters(): void {
    for (const w of this.waiters) {
      clearTimeout(w.timer);
      w.resolve(false);
    }
    this.waiters = [];
  }

  private at(i: number): CacheEvent {
    return this.history[(this.start + i) % this.capacity]!;
  }

  private push(event: CacheEvent): void {
    if (this.size === this.capacity) {
      this.history[this.start] = event;
      this.start = (this.start + 1) % this.capacity;
      this.evicted = true;
    } else {
      this.history[(this.start + this.size) % this.capacity] = event;
      this.size++;
    }
  }

  private advance(revision: number): void {
    if (revision <= this.revision && this.waiters.length === 0) return;
    if (revision > this.revision) this.revision = revision;
    if (this.waiters.length === 0) return;
    const still: Waiter[] = [];
    for (const w of this.waiters) {
      if (w.revision <= this.revision) {
        clearTimeout(w.timer);
        w.resolve(true);
      } else still.push(w);
    }
    this.waiters = still;
  }
}
