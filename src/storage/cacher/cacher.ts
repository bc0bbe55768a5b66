// CachedObjectStore: the ObjectStore of one resource served from a watch
// cache (upstream's Cacher), over the direct BackendObjectStore.
//
// Contract:
// - One backend watch per resource feeds a WatchCache (./watch-cache.ts):
//   start() lists the resource (in pages of listPageSize keys at the first
//   page's revision), then watches from the list's revision. When
//   that watch ends with Unavailable (the backend away for longer than its
//   own reconnects last), the cache keeps its state and watchers and watches
//   again from its last revision after a short backoff, until the backend
//   answers. When it fails otherwise (Compacted: the backend no longer has the
//   revisions it missed), every cache watcher is ended cleanly (its client
//   re-watches) and the cache lists again after a short backoff. stop() ends
//   the backend watch and every watcher.
// - Writes, exact lists (resourceVersionMatch Exact, or a legacy
//   resourceVersion with a limit), any list with a limit and a resourceVersion
//   other than "0", and continued lists go to the backend store, as
//   kube-apiserver 1.32 delegates them.
// - Lists at "0" are served from the cache whole (limit ignored, as upstream);
//   NotOlderThan N waits up to `waitTimeoutMs` (3 s) for the cache to reach N,
//   then fails 504 "Too large resource version". A consistent list or GET (no
//   resourceVersion) reads the backend's current revision (one read shared by
//   every concurrent consistent read on the backend: ./revision-check.ts),
//   waits for the cache to reach it (asking etcd for a progress notification,
//   so an idle resource does not wait) and falls back to the backend when it
//   does not in time or the backend's progress cannot be trusted. GET with a
//   resourceVersion reads the cache once it is not older than that version.
// - Watches: from an explicit revision, every history event after it; older
//   than the window → an ERROR event with 410 Expired "too old resource
//   version: X (Y)". Unset or "0" (or sendInitialEvents=true): ADDED for the
//   cache's current state, then onInitialEventsEnd, then changes.
// - Fan-out never blocks writers: backend events are applied to the cache at
//   once and dispatched to watchers on a microtask, one backend batch at a
//   time; from GATHER_MIN_WATCHERS watchers on, a dispatch gathers the
//   backend batches of GATHER_MS instead (a dispatch costs per watcher, so it
//   should carry many events). Watchers without a selector all receive the
//   same event object (CacheEvent.shared), so the layers above can encode it
//   once. Watchers are grouped by key prefix (the whole resource, or one
//   namespace): an event costs nothing for watchers of other namespaces. An
//   unfiltered watcher with an onEvents handler gets one dispatch's events in
//   ONE call, as an array shared by every such watcher of its prefix; others
//   get onEvent per event. A watcher whose handler throws is dropped.
//   Per-watcher buffering is the consumer's (the HTTP layer ends a watch whose
//   socket falls too far behind).

import type { Backend, KeyValue, WatchEvent as KVWatchEvent, WatchHandle } from '../interface.js';
import { StorageError, prefixEnd } from '../interface.js';
import type { GroupResource, KubeObject } from '../../machinery/meta.js';
import { notFound, resourceExpired, tooLargeResourceVersion } from '../../machinery/errors.js';
import { parseResourceVersion } from '../../machinery/resource-version.js';
import {
  BackendObjectStore,
  type ObjectStore,
  type ObjectStoreOptions,
  type Predicate,
  type StoreListOptions,
  type StoreListResult,
  type StoreWatchHandle,
  type StoreWatchHandlers,
  type StoreWatchOptions,
  type UpdateFunc,
} from '../object-store.js';
import { CacheEvent, WatchCache, type CachedObject } from './watch-cache.js';
import { revisionCheckFor, type RevisionCheck } from './revision-check.js';
import { deepFreeze } from './watcher-events.js';
import { CacheWatchers, type CacheWatcher } from './watchers.js';
import { markImmutable } from '../../machinery/json-memo.js';
import { DEFAULT_LIST_MEMO_BYTES, ListMemo, ListMemoBudget } from './list-memo.js';

export interface WatchCacheOptions {
  /** Events kept for resuming watches (default 10,000). */
  historySize?: number;
  /** How long a read waits for the cache to reach a revision (default 3000 ms, upstream's blockTimeout). */
  waitTimeoutMs?: number;
  /** Delay before re-listing after the backend watch failed (default 1000 ms). */
  relistDelayMs?: number;
  /**
   * Serve consistent GET and LIST from the cache on a backend with trusted
   * progress (etcd 3.5.13+), after waiting for its current revision (default
   * true; false: they read the backend, as kube-apiserver 1.32's GET does).
   */
  consistentReads?: boolean;
  /**
   * The stored bytes whose parsed, frozen objects are kept for lists asked
   * with sharedItems and shared GETs (default 16 MiB; 0 keeps none), for this
   * resource alone. Past it the kept objects are dropped and kept again as
   * reads ask for them. Ignored when `listMemo` is given.
   */
  listMemoBytes?: number;
  /** A budget shared with other resources' caches (a server's registry gives every cache the same one). */
  listMemo?: ListMemoBudget;
  /** Keys per page of the initial list from the backend (default LIST_PAGE_SIZE; 0 lists in one read). */
  listPageSize?: number;
  /** A list over more objects than this keeps none of them (default LIST_KEEP_MAX_ITEMS; see list()). */
  listKeepMaxItems?: number;
}

/**
 * Keys per page of a cache's (re)list. Upstream's cacher pages by 10,000; a
 * smaller page keeps one read's buffers (etcd's response, its decoded form in
 * the client thread, the message that carries it to this thread) small. Those
 * are transient, but a process rarely gives back the peak it once reached
 * (malloc's arenas and V8's heap keep their high-water mark), so after a
 * restart on a large store the peak is what RSS shows.
 */
export const LIST_PAGE_SIZE = 500;

/** The most objects a list from the cache may add to the kept objects (see list()). */
export const LIST_KEEP_MAX_ITEMS = 1000;

export { DEFAULT_LIST_MEMO_BYTES };

/** From this many watchers on, a dispatch gathers the backend batches of GATHER_MS. */
const GATHER_MIN_WATCHERS = 128;
const GATHER_MS = 10;
/** After this long without an answer, a progress request may be repeated. */
const PROGRESS_RETRY_MS = 100;

export const DEFAULT_HISTORY_SIZE = 10_000;
export const DEFAULT_WAIT_TIMEOUT_MS = 3_000;

export class CachedObjectStore implements ObjectStore {
  readonly resource: GroupResource;
  private readonly direct: BackendObjectStore;
  private readonly backend: Backend;
  private readonly cache: WatchCache;
  private readonly namespaced: boolean;
  private readonly root: string;
  private readonly waitTimeoutMs: number;
  private readonly relistDelayMs: number;
  private readonly listPageSize: number;
  private readonly listKeepMaxItems: number;
  private readonly watchers: CacheWatchers;
  private backendWatch: (WatchHandle & { requestProgress?(): void }) | undefined;
  /** Readers waiting for the cache to reach a revision: while any do, a backend watch whose progress is pulled pushes it. */
  private revisionWaits = 0;
  /** getCached's parsed objects, by cache entry. */
  private readonly parsed = new WeakMap<CachedObject, KubeObject>();
  /**
   * Lists' shared objects by key, with the entry each was parsed from (a newer
   * revision is a new entry, so an old state is never served), bounded by a
   * budget of stored bytes (./list-memo.ts). Their JSON is kept beside them
   * (json-memo.ts): a list of them is written without parsing or stringifying.
   */
  private readonly listMemo: ListMemo;
  private ready = false;
  private readyWaiters: Array<() => void> = [];
  private stopped = false;
  private relistTimer: NodeJS.Timeout | undefined;
  /** The revision of the last backend event applied (or of the list): where a resumed backend watch starts. */
  private lastEventRevision = 0;
  /** Applied but not yet dispatched events. */
  private pending: CacheEvent[] = [];
  private dispatchScheduled = false;
  /** Set while dispatch() hands out events (see dispatch). */
  private dispatching = false;
  /** The backend revision read shared by concurrent consistent reads (of every resource on this backend). */
  private readonly revisionCheck: RevisionCheck;
  /** When the outstanding progress request was sent (performance.now()); -Infinity when none is. */
  private progressRequestedAt = -Infinity;
  private readonly consistentReads: boolean;

  constructor(options: ObjectStoreOptions & { cache?: WatchCacheOptions }) {
    this.direct = new BackendObjectStore(options);
    this.direct.keepWritten = true;
    this.backend = options.backend;
    this.resource = options.resource;
    this.namespaced = options.namespaced;
    const prefix = (options.prefix ?? '/registry').replace(/\/+$/, '');
    this.root = `${prefix}/${options.keyResource ?? options.resource.resource}/`;
    this.watchers = new CacheWatchers(this.root, this.namespaced);
    // Values are parsed by the direct store's decoder: a corrupt one fails as a storage read would
    // (and a value the direct store just wrote is the object it wrote: decodeEvent).
    this.cache = new WatchCache(options.cache?.historySize ?? DEFAULT_HISTORY_SIZE, (key, value, revision) =>
      this.direct.decodeEvent(key, value, revision),
    );
    this.waitTimeoutMs = options.cache?.waitTimeoutMs ?? DEFAULT_WAIT_TIMEOUT_MS;
    this.relistDelayMs = options.cache?.relistDelayMs ?? 1000;
    this.listPageSize = options.cache?.listPageSize ?? LIST_PAGE_SIZE;
    this.listKeepMaxItems = options.cache?.listKeepMaxItems ?? LIST_KEEP_MAX_ITEMS;
    this.revisionCheck = revisionCheckFor(this.backend);
    this.consistentReads = options.cache?.consistentReads ?? true;
    this.listMemo = new ListMemo(options.cache?.listMemo ?? new ListMemoBudget(options.cache?.listMemoBytes ?? DEFAULT_LIST_MEMO_BYTES));
  }

  // ---- lifecycle -------------------------------------------------------------

  /** Lists the resource and starts the backend watch; resolves once the cache is filled. */
  async start(): Promise<void> {
    if (this.stopped) return;
    const { kvs, revision } = await this.listAll();
    if (this.stopped) return;
    this.cache.replace(kvs, revision);
    this.listMemo.clear();
    this.lastEventRevision = revision;
    this.watchBackend(revision);
    this.ready = true;
    for (const resolve of this.readyWaiters.splice(0)) resolve();
  }

  /**
   * The whole resource at one revision, read in pages of listPageSize keys
   * (the first page fixes the revision). When that revision is compacted
   * before the last page, the list starts over in one read, as upstream's
   * pager falls back to a full list when a continuation has expired.
   */
  private async listAll(): Promise<{ kvs: KeyValue[]; revision: number }> {
    const end = prefixEnd(this.root);
    if (this.listPageSize <= 0) return this.backend.range(this.root, end);
    const kvs: KeyValue[] = [];
    let revision = 0;
    let start = this.root;
    for (;;) {
      let page;
      try {
        page = await this.backend.range(start, end, { revision, limit: this.listPageSize, count: false });
      } catch (err) {
        if (revision !== 0 && err instanceof StorageError && err.code === 'Compacted') return this.backend.range(this.root, end);
        throw err;
      }
      if (this.stopped) return { kvs, revision };
      revision = page.revision;
      for (const kv of page.kvs) kvs.push(kv);
      const last = page.kvs[page.kvs.length - 1];
      if (!page.more || last === undefined) return { kvs, revision };
      start = `${last.key}\x00`;
    }
  }

  /** Ends the backend watch and every watcher; later reads go to the backend. */
  stop(): void {
    this.stopped = true;
    this.ready = false;
    if (this.relistTimer !== undefined) clearTimeout(this.relistTimer);
    this.backendWatch?.cancel();
    this.backendWatch = undefined;
    this.cache.releaseWaiters();
    for (const resolve of this.readyWaiters.splice(0)) resolve();
    this.closeAllWatchers();
    this.listMemo.clear();
  }

  /** For tests and metrics: watchers currently fed by the cache. */
  get watcherCount(): number {
    return this.watchers.size;
  }

  /** For diagnostics (a test that waited in vain): how far the cache has got, and what waits to go out. */
  describe(): { ready: boolean; revision: number; backendProgress: number | undefined; pending: number; dispatchScheduled: boolean; watchers: number; objects: number } {
    return {
      ready: this.ready,
      revision: this.cache.revision,
      backendProgress: this.backendWatch?.progress?.(),
      pending: this.pending.length,
      dispatchScheduled: this.dispatchScheduled,
      watchers: this.watchers.size,
      objects: this.cache.objectCount,
    };
  }

  /** Opens the backend watch after `revision` (the cache holds everything up to it). */
  private watchBackend(revision: number): void {
    this.backendWatch = this.backend.watch(this.root, revision, {
      onEvents: (events) => this.onBackendEvents(events),
      onProgress: (progress) => {
        this.progressRequestedAt = -Infinity;
        this.cache.progress(progress);
        this.progressWatchers();
      },
      onError: (err) => this.onBackendError(err),
    });
    if (this.revisionWaits > 0) this.backendWatch.pushProgress?.(true);
  }

  /**
   * Brings the cache up to the progress a backend watch tells when asked (the
   * local backends' watches: backend-watchers.ts) and tells the watchers, as a
   * pushed progress notification would have. Called wherever the cache's
   * revision is read: it is then what it would have been had every batch
   * written elsewhere been pushed.
   */
  private catchUp(): void {
    const progress = this.backendWatch?.progress?.();
    if (progress === undefined || progress <= this.cache.revision) return;
    this.cache.progress(progress);
    this.progressWatchers();
  }

  /** cache.waitFor, with the backend watch pushing its progress meanwhile (the revision may come from writes elsewhere). */
  private async waitForRevision(revision: number): Promise<boolean> {
    this.catchUp();
    if (this.cache.revision >= revision) return true;
    if (this.revisionWaits++ === 0) this.backendWatch?.pushProgress?.(true);
    try {
      return await this.cache.waitFor(revision, this.waitTimeoutMs);
    } finally {
      if (--this.revisionWaits === 0) this.backendWatch?.pushProgress?.(false);
    }
  }

  private onBackendEvents(events: KVWatchEvent[]): void {
    const last = events[events.length - 1];
    if (last !== undefined) this.lastEventRevision = last.type === 'put' ? last.kv.modRevision : last.revision;
    const applied = this.cache.apply(events);
    for (const e of applied) {
      this.pending.push(e);
      // A changed key's kept object is of an older revision: let it go now.
      this.listMemo.delete(e.key);
    }
    this.scheduleDispatch();
  }

  private onBackendError(err: StorageError): void {
    this.backendWatch = undefined;
    if (err.code === 'Unavailable' && !this.stopped) {
      // The backend is away (etcd stopped, no quorum): the cache keeps what it
      // has and its watchers stay open; the backend watch resumes from the last
      // revision the cache applied once the backend answers, so nobody sees a
      // 410 for history the backend still has. Compaction meanwhile fails that
      // resume with Compacted, which re-lists below.
      this.resumeLater();
      return;
    }
    // The cache can no longer tell what changed: end its watchers (clients
    // re-watch, possibly getting 410) and list again.
    this.ready = false;
    this.backendWatch = undefined;
    this.dispatch();
    this.closeAllWatchers();
    this.restartLater();
  }

  /** Watches the backend again from where the cache is, after relistDelayMs. */
  private resumeLater(): void {
    if (this.stopped || this.relistTimer !== undefined) return;
    this.relistTimer = setTimeout(() => {
      this.relistTimer = undefined;
      if (this.stopped) return;
      // Progress notifications are safe resume points only where the backend vouches for them.
      try {
        this.watchBackend(this.backend.consistentProgress ? this.cache.revision : this.lastEventRevision);
      } catch {
        // A backend that refuses at once (closed, or compacted past us): list again, as after any other failure.
        this.onBackendError(new StorageError('Internal', 'the backend watch could not be resumed'));
      }
    }, this.relistDelayMs);
    this.relistTimer.unref();
  }

  /** Lists again after relistDelayMs (used after a failed start or backend watch). */
  restartLater(): void {
    if (this.stopped || this.relistTimer !== undefined) return;
    this.relistTimer = setTimeout(() => {
      this.relistTimer = undefined;
      this.start().catch(() => this.restartLater());
    }, this.relistDelayMs);
    this.relistTimer.unref();
  }

  private closeAllWatchers(): void {
    this.watchers.endAll();
  }

  /**
   * Hands the pending events to the watchers (watchers.ts). A handler may read
   * this resource while a dispatch runs (the CRD controller writes a status
   * from its event), and that read pulls progress (catchUp): telling every
   * watcher the new revision then would make the watchers not yet handed this
   * dispatch's events skip them. A dispatch asked for meanwhile runs after.
   */
  private dispatch(): void {
    if (this.dispatching) {
      this.scheduleDispatch();
      return;
    }
    const batch = this.pending;
    this.pending = [];
    this.dispatching = true;
    try {
      this.watchers.dispatch(batch, this.cache.revision);
    } finally {
      this.dispatching = false;
      // An event no watcher decoded leaves its write's object in the direct
      // store's `written`, kept until 256 newer writes push it out: at a few
      // thousand creates a second that outlives a young collection, and every
      // created object was promoted to die in the old generation.
      for (const e of batch) if (e.type !== 'DELETED') this.direct.forget(e.key, e.object.value);
    }
  }

  private async whenReady(): Promise<boolean> {
    if (this.ready) return true;
    if (this.stopped) return false;
    let timer: NodeJS.Timeout | undefined;
    const ok = await new Promise<boolean>((resolve) => {
      this.readyWaiters.push(() => resolve(this.ready));
      timer = setTimeout(() => resolve(false), this.waitTimeoutMs);
    });
    clearTimeout(timer);
    return ok;
  }

  // ---- delegated -------------------------------------------------------------

  keyFor(namespace: string, name: string): string {
    return this.direct.keyFor(namespace, name);
  }

  currentResourceVersion(): Promise<string> {
    return this.direct.currentResourceVersion();
  }

  create(namespace: string, name: string, obj: KubeObject, options?: { ttlSeconds?: number }): Promise<KubeObject> {
    return this.direct.create(namespace, name, obj, options);
  }

  guaranteedUpdate(
    namespace: string,
    name: string,
    update: UpdateFunc,
    options: { ttlSeconds?: number; dryRun?: boolean } = {},
  ): Promise<{ object: KubeObject; created: boolean }> {
    // The cached state goes first (BackendObjectStore checks it against storage
    // by compare-and-swap). When the cache has seen the backend's every write
    // (a backend in this process says its revision, as for get), the state is
    // the stored one, and what it decides needs no second read.
    const entry = this.ready ? this.cache.get(this.keyFor(namespace, name)) : undefined;
    if (entry === undefined) return this.direct.guaranteedUpdate(namespace, name, update, options);
    const cached = { value: entry.value, modRevision: entry.revision, current: this.holdsLatest() };
    return this.direct.guaranteedUpdate(namespace, name, update, { ...options, cached });
  }

  delete(namespace: string, name: string, check?: (current: KubeObject) => void): Promise<KubeObject> {
    return this.direct.delete(namespace, name, check);
  }

  deleteUnreadable(namespace: string, name: string): Promise<boolean> {
    return this.direct.deleteUnreadable(namespace, name);
  }

  // ---- reads -----------------------------------------------------------------

  async get(namespace: string, name: string, options: { resourceVersion?: string; shared?: boolean } = {}): Promise<KubeObject> {
    const rvText = options.resourceVersion ?? '';
    if (rvText === '') {
      // A consistent read. A backend in this process tells its revision without
      // a round trip: when the cache already reflects it, the cache's object is
      // the stored one (the read storage would give), and the read is spared.
      // Otherwise (etcd) the cache serves once it has seen the backend's
      // current revision (see consistentFromCache); storage when it cannot.
      if (!this.holdsLatest() && !(await this.consistentFromCache())) return this.direct.get(namespace, name, options);
      const obj = this.cache.get(this.keyFor(namespace, name));
      if (obj === undefined) throw notFound(this.resource, name);
      return this.cachedObject(obj, options.shared === true);
    }
    const minimum = parseResourceVersion(rvText);
    if (!(await this.whenReady())) return this.direct.get(namespace, name, options);
    await this.waitFresh(minimum);
    const obj = this.cache.get(this.keyFor(namespace, name));
    if (obj === undefined) throw notFound(this.resource, name);
    return this.cachedObject(obj, options.shared === true);
  }

  /** An entry's object for a GET: the shared, frozen one (kept, see listMemo) when the caller never changes it, else a fresh parse. */
  private cachedObject(entry: CachedObject, shared: boolean): KubeObject {
    const decode = (e: CachedObject): KubeObject => this.direct.decodeKv(e.key, e.value, e.revision);
    return shared && this.listMemo.enabled ? this.sharedObject(entry, decode)! : decode(entry);
  }

  /**
   * Whether the cache has applied every write of the backend, known without a
   * round trip (a backend in this process): its state is then storage's.
   */
  private holdsLatest(): boolean {
    const local = this.backend.localRevision?.();
    if (local === undefined || !this.ready) return false;
    this.catchUp();
    return this.cache.revision >= local;
  }

  getCached(namespace: string, name: string): Readonly<KubeObject> | undefined {
    if (!this.ready) return undefined;
    const entry = this.cache.get(this.keyFor(namespace, name));
    return entry === undefined ? undefined : this.parsedEntry(entry);
  }

  /** Entries whose value failed to decode: skipped by getCached and listCached without parsing again. */
  private readonly corruptEntries = new WeakSet<CachedObject>();

  listCached(namespace: string): Readonly<KubeObject>[] | undefined {
    if (!this.ready) return undefined;
    const prefix = this.prefixFor(namespace);
    // Nothing there (a namespace without quotas, asked on every create): no scan.
    if (!this.cache.hasRange(prefix, prefixEnd(prefix))) return [];
    const out: Readonly<KubeObject>[] = [];
    for (const entry of this.cache.range(prefix, prefixEnd(prefix))) {
      const obj = this.parsedEntry(entry);
      if (obj !== undefined) out.push(obj);
    }
    return out;
  }

  /** The entry's object, or undefined when its value is corrupt (in-process listers skip it). */
  private parsedEntry(entry: CachedObject): Readonly<KubeObject> | undefined {
    // Parsed once per revision: a new revision is a new entry, so the memo
    // never serves an old state and goes with the entry it was made for.
    let obj = this.parsed.get(entry);
    if (obj === undefined) {
      if (this.corruptEntries.has(entry)) return undefined;
      const decoded = this.direct.decodeOrSkip(entry.key, entry.value, entry.revision);
      if (decoded === undefined) {
        this.corruptEntries.add(entry);
        return undefined;
      }
      obj = markImmutable(deepFreeze(decoded));
      this.parsed.set(entry, obj);
    }
    return obj;
  }

  async list(namespace: string, options: StoreListOptions): Promise<StoreListResult> {
    const rvText = options.resourceVersion ?? '';
    const match = options.resourceVersionMatch ?? '';
    const limit = options.limit ?? 0;
    const hasContinue = options.continue !== undefined && options.continue !== '';
    // Upstream 1.32's shouldDelegateList: continuations, limits (except at "0") and Exact go to storage.
    const delegate = hasContinue || (limit > 0 && rvText !== '0') || (match !== '' && match !== 'NotOlderThan');
    if (delegate || rvText === '' && match !== '') return this.direct.list(namespace, options);
    // A consistent read from the cache needs progress the backend vouches for.
    if (rvText === '' && !this.backend.consistentProgress) return this.direct.list(namespace, options);

    let minimum = 0;
    if (rvText === '') {
      // Consistent read: the cache must reflect every write acknowledged before now.
      if (!this.holdsLatest() && !(await this.consistentFromCache())) return this.direct.list(namespace, options);
    } else {
      minimum = parseResourceVersion(rvText);
      if (!(await this.whenReady())) return this.direct.list(namespace, options);
      await this.waitFresh(minimum);
    }

    this.catchUp();
    const prefix = this.prefixFor(namespace);
    const predicate = options.predicate;
    const items: KubeObject[] = [];
    // A consistent list fails on a corrupt value as storage's would (upstream
    // reads it from etcd); one at "0" or NotOlderThan serves the rest, as
    // upstream's watch cache, which never holds what it could not decode.
    const decoder = rvText === '' ? this.direct.listDecoder() : undefined;
    const decode = (obj: CachedObject): KubeObject | undefined =>
      decoder !== undefined ? decoder.decode(obj.key, obj.value, obj.revision) : this.direct.decodeOrSkip(obj.key, obj.value, obj.revision);
    const entries = [...this.cache.range(prefix, prefixEnd(prefix))];
    const shared = options.sharedItems === true && this.listMemo.enabled;
    // A list of more than listKeepMaxItems keeps nothing new (it still
    // serves what is kept): such lists are an informer's first list, made
    // once, and keeping them would empty the shared budget for every other
    // resource and hold its bytes after a restart.
    const keepNew = shared && entries.length <= this.listKeepMaxItems;
    const matches = (item: KubeObject): boolean => predicate === undefined || predicate(item);
    for (const obj of entries) {
      const kept = shared ? this.keptObject(obj) : undefined;
      if (kept !== undefined) {
        if (matches(kept)) items.push(kept);
        continue;
      }
      const item = decode(obj);
      if (item === undefined || !matches(item)) continue;
      // Only what the list returns is kept: a selective list does not fill the budget with what it filtered out.
      items.push(keepNew ? this.keep(obj, item) : item);
    }
    decoder?.finish();
    return { items, resourceVersion: String(this.cache.revision) };
  }

  /** The entry's parsed object, frozen and kept for later lists (see listMemo); undefined when it is corrupt (as `decode` decides). */
  private sharedObject(entry: CachedObject, decode: (entry: CachedObject) => KubeObject | undefined): KubeObject | undefined {
    const kept = this.keptObject(entry);
    if (kept !== undefined) return kept;
    const decoded = decode(entry);
    return decoded === undefined ? undefined : this.keep(entry, decoded);
  }

  /** The shared, frozen object already made for exactly this entry (by a list, a GET or an in-process reader), if any. */
  private keptObject(entry: CachedObject): KubeObject | undefined {
    return this.listMemo.get(entry) ?? this.parsed.get(entry);
  }

  /** Freezes a freshly decoded object of the entry and keeps it (within the budget) for later reads. */
  private keep(entry: CachedObject, decoded: KubeObject): KubeObject {
    const object = markImmutable(deepFreeze(decoded));
    this.listMemo.set(entry, object);
    return object;
  }

  /** The backend's current revision, read after this call (shared, see RevisionCheck); errors as the direct store words them (etcd away: 504). */
  private async backendRevision(): Promise<number> {
    try {
      return await this.revisionCheck.current();
    } catch (err) {
      throw this.direct.translate(err, '');
    }
  }

  /**
   * Upstream's ConsistentListFromCache, for GET too: true once the cache holds
   * every write the backend acknowledged before this call (its current
   * revision, read once for all concurrent readers); false when the cache
   * cannot serve it (no trusted progress, not ready, not there in time), and
   * the caller reads storage. A resource with no writes since reaches the
   * revision by a progress notification, asked for at most once at a time.
   */
  private async consistentFromCache(): Promise<boolean> {
    if (!this.consistentReads || !this.backend.consistentProgress || this.stopped) return false;
    const current = await this.backendRevision();
    if (!(await this.whenReady())) return false;
    this.catchUp();
    if (this.cache.revision >= current) return true;
    // etcd drops a request made before the watch is synced (or across a
    // reconnect): ask again while waiting.
    this.requestProgress();
    const retry = setInterval(() => this.requestProgress(), PROGRESS_RETRY_MS / 2);
    try {
      return await this.waitForRevision(current);
    } finally {
      clearInterval(retry);
    }
  }

  /** Asks the backend watch for a progress notification, unless one was asked for in the last PROGRESS_RETRY_MS without an answer. */
  private requestProgress(): void {
    const watch = this.backendWatch;
    const now = performance.now();
    if (now - this.progressRequestedAt < PROGRESS_RETRY_MS || watch?.requestProgress === undefined) return;
    this.progressRequestedAt = now;
    watch.requestProgress();
  }

  /** Waits (bounded) until the cache is not older than `minimum`, else 504 with Retry-After. */
  private async waitFresh(minimum: number): Promise<void> {
    this.catchUp();
    if (minimum <= this.cache.revision) return;
    if (!(await this.waitForRevision(minimum))) {
      throw tooLargeResourceVersion(minimum, this.cache.revision);
    }
  }

  private prefixFor(namespace: string): string {
    return this.namespaced && namespace !== '' ? `${this.root}${namespace}/` : this.root;
  }

  // ---- watch -----------------------------------------------------------------

  async watch(namespace: string, options: StoreWatchOptions, handlers: StoreWatchHandlers): Promise<StoreWatchHandle> {
    const rvText = options.resourceVersion ?? '';
    const requested = parseResourceVersion(rvText);
    if (!(await this.whenReady())) return this.direct.watch(namespace, options, handlers);
    const initial = options.sendInitialEvents ?? requested === 0;

    if (initial && options.sendInitialEvents === true) {
      // The streaming list: "" is a consistent start, N not older than N.
      if (rvText === '' && !this.backend.consistentProgress) return this.direct.watch(namespace, options, handlers);
      if (rvText === '') {
        const current = await this.backendRevision();
        this.catchUp();
        if (this.cache.revision < current) {
          this.requestProgress();
          await this.waitFresh(current);
        }
      } else await this.waitFresh(requested);
    }
    if (!this.ready) return this.direct.watch(namespace, options, handlers);

    const watcher: CacheWatcher = {
      prefix: this.prefixFor(namespace),
      predicate: options.predicate,
      handlers,
      lastRevision: 0,
      stopped: false,
    };
    const handle: StoreWatchHandle = {
      stop: () => {
        watcher.stopped = true;
        this.watchers.unregister(watcher);
      },
      refresh: () => this.catchUp(),
    };

    // Everything below runs synchronously: no event can slip between the
    // snapshot (or the history replay) and the registration.
    this.catchUp();
    if (initial) {
      const revision = this.cache.revision;
      for (const obj of this.cache.range(watcher.prefix, prefixEnd(watcher.prefix))) {
        // A corrupt value is left out of the stream (counted and logged once); the rest is served.
        const item = this.direct.decodeOrSkip(obj.key, obj.value, obj.revision);
        if (item === undefined) continue;
        if (watcher.predicate === undefined || watcher.predicate(item)) {
          if (!this.watchers.call(watcher, () => handlers.onEvent({ type: 'ADDED', object: item }))) return handle;
        }
      }
      watcher.lastRevision = revision;
      if (!this.watchers.call(watcher, () => handlers.onInitialEventsEnd?.(String(revision)))) return handle;
    } else {
      const from = rvText === '' || rvText === '0' ? this.cache.revision : requested;
      const oldest = this.cache.oldestResumable();
      if (from < oldest) {
        watcher.stopped = true;
        handlers.onError(resourceExpired(`too old resource version: ${from} (${oldest})`));
        return handle;
      }
      watcher.lastRevision = from;
      if (from < this.cache.revision) {
        // Replay the window; events still waiting for dispatch are included.
        const replayed = this.cache.eventsAfter(from);
        this.watchers.deliver(watcher, replayed);
        for (const e of replayed) e.release();
        if (watcher.stopped) return handle;
      }
    }
    this.watchers.register(watcher);
    return handle;
  }

  /**
   * Tells the watchers how far the cache has got after a progress
   * notification (the backend sends one per batch written elsewhere: a
   * dispatch of no events). With no events waiting to go out it can be told
   * now, without a microtask per resource per batch; with none it is nobody's
   * to hear.
   */
  private progressWatchers(): void {
    if (this.dispatchScheduled || this.pending.length > 0 || this.watchers.size >= GATHER_MIN_WATCHERS) return this.scheduleDispatch();
    if (this.watchers.size > 0) this.dispatch();
  }

  private scheduleDispatch(): void {
    if (this.dispatchScheduled) return;
    this.dispatchScheduled = true;
    const run = (): void => {
      this.dispatchScheduled = false;
      this.dispatch();
    };
    // A microtask: watchers hear of a write before its caller continues, and
    // every event of one backend batch (a group commit) goes out together.
    // With many watchers, handing out costs per watcher per dispatch: gather
    // the backend batches of a few ms into one dispatch instead.
    if (this.watchers.size >= GATHER_MIN_WATCHERS) setTimeout(run, GATHER_MS);
    else queueMicrotask(run);
  }
}
