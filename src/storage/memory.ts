// MemoryBackend: the Backend contract (./interface.ts) held in process memory,
// for tests and throwaway servers. Nothing survives the process.
//
// Layout:
// - `current` maps each live key to its latest KeyValue; `liveKeys` keeps those
//   keys sorted, so a range at the current revision costs what it returns.
// - `versions` keeps, per key, every version since the last compaction
//   (a null kv marks a deletion); `historyKeys` keeps those keys sorted, so a
//   range at a past revision walks only the keys ever seen in that range.
// - `log` is the store-wide event history in revision order, for watch replay.
// Writes apply synchronously when called (the promise only reports the result),
// so concurrent writes are totally ordered by call order. Watch events are
// delivered right after each write, replays on a microtask (./backend-watchers.ts).
// Stored KeyValues are frozen and shared with callers.

import {
  StorageError,
  type Backend,
  type GetResult,
  type KeyValue,
  type RangeOptions,
  type RangeResult,
  type WatchEvent,
  type WriteOptions,
} from './interface.js';
import { eventRevision } from './backend-watchers.js';
import { LocalBackend, type LocalBackendOptions } from './local-backend.js';
import { SortedKeys } from './sorted-keys.js';

export type MemoryBackendOptions = LocalBackendOptions;

interface Version {
  revision: number;
  /** null: the key was deleted at this revision. */
  kv: KeyValue | null;
}

/** Replay hands watchers at most this many events per onEvents call. */
const REPLAY_BATCH = 500;

export class MemoryBackend extends LocalBackend implements Backend {
  private readonly current = new Map<string, KeyValue>();
  private readonly liveKeys = new SortedKeys();
  private readonly versions = new Map<string, Version[]>();
  private readonly historyKeys = new SortedKeys();
  private log: WatchEvent[] = [];
  /** key → expiry (ms) and the modRevision the expiry belongs to. */
  private readonly expiries = new Map<string, { at: number; modRevision: number }>();

  constructor(options: MemoryBackendOptions = {}) {
    super(options);
    this.startTtlSweep();
  }

  async get(key: string, options: RangeOptions = {}): Promise<GetResult> {
    this.ensureOpen();
    const revision = this.readRevision(options.revision);
    if (revision === this.revision) return { kv: this.current.get(key) ?? null, revision };
    return { kv: this.versionAt(key, revision), revision };
  }

  async range(start: string, end: string, options: RangeOptions = {}): Promise<RangeResult> {
    this.ensureOpen();
    const revision = this.readRevision(options.revision);
    const limit = options.limit && options.limit > 0 ? options.limit : Infinity;
    const kvs: KeyValue[] = [];
    let count = 0;
    // Without a count, the first key past the limit settles `more`.
    const stopAt = options.count === false ? limit + 1 : Infinity;
    if (revision === this.revision) {
      for (const key of this.liveKeys.between(start, end)) {
        if (++count >= stopAt) break;
        if (kvs.length < limit) kvs.push(this.current.get(key)!);
      }
    } else {
      for (const key of this.historyKeys.between(start, end)) {
        const kv = this.versionAt(key, revision);
        if (!kv) continue;
        if (++count >= stopAt) break;
        if (kvs.length < limit) kvs.push(kv);
      }
    }
    return { kvs, revision, more: count > kvs.length, count };
  }

  async create(key: string, value: string, options: WriteOptions = {}): Promise<KeyValue> {
    this.ensureOpen();
    if (this.current.has(key)) throw new StorageError('KeyExists', `key already exists: ${key}`, key);
    const revision = this.revision + 1;
    const kv: KeyValue = Object.freeze({ key, value, createRevision: revision, modRevision: revision });
    this.commit({ type: 'put', kv }, options.ttlSeconds);
    return kv;
  }

  async update(key: string, value: string, expectedModRevision?: number, options: WriteOptions = {}): Promise<KeyValue> {
    this.ensureOpen();
    const prevKv = this.checkGuard(key, expectedModRevision);
    const revision = this.revision + 1;
    const kv: KeyValue = Object.freeze({ key, value, createRevision: prevKv.createRevision, modRevision: revision });
    this.commit({ type: 'put', kv, prevKv }, options.ttlSeconds);
    return kv;
  }

  async delete(key: string, expectedModRevision?: number): Promise<{ prevKv: KeyValue; revision: number }> {
    this.ensureOpen();
    const prevKv = this.checkGuard(key, expectedModRevision);
    const revision = this.revision + 1;
    this.commit({ type: 'delete', key, revision, prevKv });
    return { prevKv, revision };
  }

  async compact(revision: number): Promise<void> {
    if (!this.shouldCompact(revision)) return;
    this.compacted = revision;
    // Per key, keep the newest version at or below the compaction point (unless
    // it is a deletion) and everything after it.
    const emptied: string[] = [];
    for (const [key, list] of this.versions) {
      let last = -1;
      while (last + 1 < list.length && list[last + 1].revision <= revision) last++;
      if (last < 0) continue;
      const dropThrough = list[last].kv === null ? last : last - 1;
      if (dropThrough >= 0) list.splice(0, dropThrough + 1);
      if (list.length === 0) emptied.push(key);
    }
    for (const key of emptied) this.versions.delete(key);
    if (emptied.length > 0) this.historyKeys.retain((key) => this.versions.has(key));
    // Watches must start at or after the compaction point, so older events can go.
    this.log = this.log.slice(this.firstLogIndexAfter(revision));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closeLocal();
  }

  /** Deletes every key whose TTL has passed, through the normal delete path. Returns how many. */
  async sweepExpired(): Promise<number> {
    if (this.closed) return 0;
    const now = this.now();
    let deleted = 0;
    for (const [key, expiry] of [...this.expiries]) {
      if (expiry.at > now) continue;
      try {
        await this.delete(key, expiry.modRevision);
        deleted++;
      } catch (err) {
        // Rewritten or deleted since: the newer write decides.
        if (!(err instanceof StorageError)) throw err;
      }
    }
    return deleted;
  }

  private commit(event: WatchEvent, ttlSeconds?: number): void {
    const revision = eventRevision(event);
    this.revision = revision;
    const key = event.type === 'put' ? event.kv.key : event.key;
    let list = this.versions.get(key);
    if (!list) {
      list = [];
      this.versions.set(key, list);
      this.historyKeys.insert(key);
    }
    if (event.type === 'put') {
      list.push({ revision, kv: event.kv });
      if (!this.current.has(key)) this.liveKeys.insert(key);
      this.current.set(key, event.kv);
    } else {
      list.push({ revision, kv: null });
      this.current.delete(key);
      this.liveKeys.remove(key);
    }
    if (event.type === 'put' && ttlSeconds !== undefined && ttlSeconds > 0) {
      this.expiries.set(key, { at: this.now() + ttlSeconds * 1000, modRevision: revision });
    } else {
      this.expiries.delete(key);
    }
    this.log.push(event);
    this.watchers.publish([event]);
  }

  private checkGuard(key: string, expectedModRevision: number | undefined): KeyValue {
    const stored = this.current.get(key);
    if (!stored) {
      throw new StorageError('KeyNotFound', `key not found: ${key}`, key);
    }
    if (expectedModRevision !== undefined && stored.modRevision !== expectedModRevision) {
      throw new StorageError(
        'Conflict',
        `modRevision of ${key} is ${stored.modRevision}, expected ${expectedModRevision}`,
        key,
        stored,
      );
    }
    return stored;
  }

  private versionAt(key: string, revision: number): KeyValue | null {
    const list = this.versions.get(key);
    if (!list) return null;
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (list[mid].revision <= revision) lo = mid + 1;
      else hi = mid;
    }
    return lo === 0 ? null : list[lo - 1].kv;
  }

  private firstLogIndexAfter(revision: number): number {
    let lo = 0;
    let hi = this.log.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (eventRevision(this.log[mid]) <= revision) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  protected *replay(prefix: string, afterRevision: number): Generator<WatchEvent[]> {
    this.checkReplayable(afterRevision);
    // Read up to the revision current now; later writes reach the watcher via publish().
    const end = this.log.length;
    let batch: WatchEvent[] = [];
    for (let i = this.firstLogIndexAfter(afterRevision); i < end; i++) {
      const event = this.log[i];
      const key = event.type === 'put' ? event.kv.key : event.key;
      if (!key.startsWith(prefix)) continue;
      batch.push(event);
      if (batch.length === REPLAY_BATCH) {
        yield batch;
        batch = [];
      }
    }
    if (batch.length > 0) yield batch;
  }
}
