// The object layer between the registry and a KV Backend, for one resource.
//
// Contract:
// - Keys: `{prefix}/{resource}/{namespace}/{name}` for namespaced resources,
//   `{prefix}/{resource}/{name}` for cluster-scoped ones. The resource segment
//   is upstream's etcd path (`deployments`, `leases`, `events`), so two groups
//   serving one resource name must pass distinct `keyResource`s.
// - Values are JSON; `metadata.resourceVersion` is never stored and is set from
//   the key's modRevision on every read (a list's from its read revision).
// - Every StorageError leaves as a StatusError (upstream's wording): KeyExists →
//   409 AlreadyExists, Conflict → 409 Conflict (optimistic lock), KeyNotFound →
//   404 NotFound, Compacted → 410 Expired, FutureRevision (a read at an exact
//   revision not reached yet) → etcd's error as a plain 500, as upstream. A
//   minimum revision not reached (resourceVersion without Exact) is the 504
//   "Timeout: Too large resource version".
// - watch translates backend puts/deletes into ADDED/MODIFIED/DELETED, seen
//   through an optional predicate: an object that stops matching arrives as
//   DELETED (its last matching state at the event's revision), one that starts
//   matching as ADDED.
//
// ObjectStore is an interface: BackendObjectStore (here) reads and watches the
// backend directly; CachedObjectStore (./cacher/) serves watches and most lists
// from a watch cache and delegates the rest here.
//
// Shared watch events: a store may hand the same StoreWatchEvent object to many
// watchers (the cacher does); consumers must treat event.object as read-only
// and may memoise work per event object (the generic store keys its
// translated event by identity so the HTTP layer encodes it once).

import type { Backend, KeyValue, StorageError, WatchEvent as KVWatchEvent } from './interface.js';
import { DEFAULT_MAX_OBJECT_SIZE_BYTES, StorageError as StorageErrorClass, prefixEnd } from './interface.js';
import type { GroupResource, KubeObject } from '../machinery/meta.js';
import {
  StatusError,
  alreadyExists,
  badRequest,
  internalError,
  notFound,
  resourceExpired,
  staleResourceVersion,
  tooLargeResourceVersion,
  unknownError,
} from '../machinery/errors.js';
import { decodeContinue, encodeContinue } from '../machinery/continue-token.js';
import { decodeStoredValue, encodeStoredValue, servedJSON } from './managed-fields-codec.js';
import { parseResourceVersion } from '../machinery/resource-version.js';
import { deepCopy } from '../machinery/deep-copy.js';
import { omitKeys } from '../machinery/omit-keys.js';
import { type CorruptObjectError, type CorruptValues, corruptValuesOf, decodeStored, isCorruptObjectError, storeReadError, type StoredDecoders } from './corrupt-values.js';

export type { CachedState, Predicate, StoreListOptions, StoreListResult, StoreWatchEventType, StoreWatchEvent, StoreWatchHandlers, StoreWatchOptions, StoreWatchHandle, UpdateFunc, StoredValueEncoder, ObjectStore, ObjectStoreOptions } from './object-store-api.js';
import type { CachedState, Predicate, StoreListOptions, StoreListResult, StoreWatchEventType, StoreWatchEvent, StoreWatchHandlers, StoreWatchOptions, StoreWatchHandle, UpdateFunc, StoredValueEncoder, ObjectStore, ObjectStoreOptions } from './object-store-api.js';

const MAX_CONFLICT_RETRIES = 64;

/** How many written values keep the object they were encoded from until their watch event is decoded. */
const WRITTEN_MAX = 256;

/**
 * A value this store wrote, and the object it is the JSON of (top level and
 * metadata as at the write, no resourceVersion). `object` is cleared when the
 * entry goes (dropWritten): a Map's entries can stay referenced after they
 * are deleted (from an old hash table it has outgrown, in the old
 * generation), and an entry that still held its object kept that object's
 * whole tree alive through every young collection until a full one (with
 * the tree cleared: promoted per create on SQLite 2.95 -> 1.50 KB).
 */
interface Written {
  readonly value: string;
  object: KubeObject | undefined;
}

export class BackendObjectStore implements ObjectStore {
  readonly resource: GroupResource;
  private readonly backend: Backend;
  private readonly namespaced: boolean;
  /** `{prefix}/{resource}/`, ends with a slash. */
  private readonly root: string;
  /** Where values that fail to decode are counted and logged (corrupt-values.ts). */
  readonly corrupt: CorruptValues;
  /** The storage prefix's length: upstream's GET error names the key without it. */
  private readonly prefixLength: number;
  private readonly decoders: StoredDecoders;
  /**
   * Values written lately, by key, with the object each was encoded from: the
   * watch cache decodes a write's own event through decodeEvent, which hands
   * that object back at the event's revision instead of parsing the JSON just
   * made from it. An entry goes at its first use, when the watch cache has
   * handed out its event without decoding it (nobody watches the resource),
   * or when WRITTEN_MAX newer ones push it out.
   */
  private readonly written = new Map<string, Written>();
  /** Set by the watch cache that decodes this store's events (only then is anything kept in `written`). */
  keepWritten = false;

  constructor(options: ObjectStoreOptions) {
    this.decoders = options.decoders ?? {};
    this.backend = options.backend;
    this.corrupt = corruptValuesOf(options.backend);
    this.resource = options.resource;
    this.namespaced = options.namespaced;
    const prefix = (options.prefix ?? '/registry').replace(/\/+$/, '');
    this.root = `${prefix}/${options.keyResource ?? options.resource.resource}/`;
    this.prefixLength = prefix.length;
  }

  keyFor(namespace: string, name: string): string {
    return this.namespaced ? `${this.root}${namespace}/${name}` : `${this.root}${name}`;
  }

  private prefixFor(namespace: string): string {
    return this.namespaced && namespace !== '' ? `${this.root}${namespace}/` : this.root;
  }

  async currentResourceVersion(): Promise<string> {
    return String(await this.backend.currentRevision());
  }

  async get(namespace: string, name: string, options: { resourceVersion?: string } = {}): Promise<KubeObject> {
    const minimum = minimumRevision(options.resourceVersion);
    const res = await this.call(() => this.backend.get(this.keyFor(namespace, name)), name);
    if (minimum > res.revision) throw tooLargeResourceVersion(minimum, res.revision);
    if (res.kv === null) throw notFound(this.resource, name);
    return this.decodeKv(res.kv.key, res.kv.value, res.kv.modRevision);
  }

  /**
   * decodeKv for a watch event: the object this store wrote as `value` (its
   * JSON is exactly `value`, so the two are the same object key for key), or
   * the parse of `value` when this store did not just write it.
   */
  decodeEvent(key: string, value: string, revision: number): KubeObject {
    const written = this.written.get(key);
    const object = written?.value === value ? written.object : undefined;
    if (object === undefined) return this.decodeKv(key, value, revision);
    this.dropWritten(key, written!);
    // The kept copy is used once (its entry is gone): it becomes the event's
    // object, resourceVersion added last (remember left it out), not copied again.
    object.metadata!['resourceVersion'] = String(revision);
    return object;
  }

  private remember(key: string, value: string, obj: KubeObject): void {
    if (!this.keepWritten) return;
    const meta = omitKeys(obj.metadata ?? {}, 'resourceVersion');
    const earlier = this.written.get(key);
    if (earlier !== undefined) this.dropWritten(key, earlier);
    this.written.set(key, { value, object: { ...obj, metadata: meta } });
    if (this.written.size > WRITTEN_MAX) {
      const [oldestKey, oldest] = this.written.entries().next().value!;
      this.dropWritten(oldestKey, oldest);
    }
  }

  /** Lets go of the object kept for `value` (its write failed, or its event went out without anyone decoding it). */
  forget(key: string, value: string): void {
    const written = this.written.get(key);
    if (written?.value === value) this.dropWritten(key, written);
  }

  private dropWritten(key: string, written: Written): void {
    written.object = undefined;
    this.written.delete(key);
  }

  /** A stored value as an object; a CorruptObjectError (500, counted, logged once) when it is none. */
  decodeKv(key: string, value: string, revision: number): KubeObject {
    return decodeStored(value, revision, key, this.resource, this.corrupt, key.slice(this.prefixLength), this.decoders);
  }

  /**
   * A list's decoding: without AllowUnsafeMalformedObjectDeletion the first
   * corrupt value fails the list (upstream's abortOnFirstError); with it every
   * corrupt value is gathered and the list fails with StoreReadError.
   */
  listDecoder(): { decode(key: string, value: string, revision: number): KubeObject | undefined; finish(): void } {
    const failed: CorruptObjectError[] = [];
    return {
      decode: (key, value, revision) => {
        try {
          return this.decodeKv(key, value, revision);
        } catch (err) {
          if (!isCorruptObjectError(err) || !this.corrupt.unsafeDeletion) throw err;
          failed.push(err);
          return undefined;
        }
      },
      finish: () => {
        if (failed.length > 0) throw storeReadError(this.resource, failed);
      },
    };
  }

  async list(namespace: string, options: StoreListOptions): Promise<StoreListResult> {
    const keyPrefix = this.prefixFor(namespace);
    const end = prefixEnd(keyPrefix);
    const match = options.resourceVersionMatch ?? '';
    const rvText = options.resourceVersion ?? '';
    let limit = options.limit !== undefined && options.limit > 0 ? options.limit : 0;
    let start = keyPrefix;
    let readRevision = 0; // 0 = current
    let minimum = 0;

    if (options.continue !== undefined && options.continue !== '') {
      // The token is read first (upstream's etcd3 store): a malformed one is the error even with a resourceVersion.
      const token = decodeContinueOrThrow(options.continue, keyPrefix);
      if (rvText !== '' && rvText !== '0') {
        throw badRequest('specifying resource version is not allowed when using continue');
      }
      start = token.fromKey;
      // A negative revision (handed out after compaction) continues at the latest one.
      readRevision = token.revision > 0 ? token.revision : 0;
    } else if (rvText !== '') {
      const rv = parseResourceVersion(rvText);
      if (match === 'Exact') {
        if (rv === 0) throw badRequest('resourceVersionMatch "Exact" is forbidden for resourceVersion "0"');
        readRevision = rv;
      } else if (match === 'NotOlderThan') {
        minimum = rv;
      } else if (match === '') {
        // Legacy semantics: a non-zero version with a limit reads exactly there;
        // "0" means any version (served whole, as upstream's watch cache does).
        if (rv === 0) limit = 0;
        else if (limit > 0) readRevision = rv;
        else minimum = rv;
      } else {
        throw badRequest(`unknown resourceVersionMatch "${match}"`);
      }
    } else if (match !== '') {
      throw badRequest(`resourceVersionMatch is forbidden unless resourceVersion is provided`);
    }

    const predicate = options.predicate;
    const items: KubeObject[] = [];
    let revision = readRevision;
    let more = false;
    let lastKey = '';
    const decoder = this.listDecoder();
    // Fetch pages until the limit is filled with matching objects or keys run out.
    for (;;) {
      const want = limit > 0 ? Math.max(limit - items.length, predicate ? 64 : 0) : 0;
      const res = await this.callList(() => this.backend.range(start, end, { revision, limit: want, count: false }), options.continue, keyPrefix);
      if (revision === 0) {
        revision = res.revision;
        if (minimum > revision) throw tooLargeResourceVersion(minimum, revision);
      }
      more = res.more;
      let stoppedEarly = false;
      for (const kv of res.kvs) {
        if (limit > 0 && items.length >= limit) {
          stoppedEarly = true;
          break;
        }
        lastKey = kv.key;
        const obj = decoder.decode(kv.key, kv.value, kv.modRevision);
        if (obj !== undefined && (predicate === undefined || predicate(obj))) items.push(obj);
      }
      if (stoppedEarly) {
        more = true;
        break;
      }
      if (!more || (limit > 0 && items.length >= limit)) break;
      start = `${lastKey}\x00`;
    }

    decoder.finish();
    const result: StoreListResult = { items, resourceVersion: String(revision) };
    if (limit > 0 && more) {
      result.continue = encodeContinue(`${lastKey}\x00`, keyPrefix, revision);
      if (predicate === undefined || options.predicateIsEverything === true) {
        // The count of keys after the last one returned, at the list's revision.
        const rest = await this.callList(
          () => this.backend.range(`${lastKey}\x00`, end, { revision, limit: 1 }),
          options.continue,
          keyPrefix,
        );
        result.remainingItemCount = rest.count;
      }
    }
    return result;
  }

  async create(namespace: string, name: string, obj: KubeObject, options: { ttlSeconds?: number; encode?: StoredValueEncoder } = {}): Promise<KubeObject> {
    const offThread = options.encode;
    const key = this.keyFor(namespace, name);
    let value = offThread === undefined ? encode(obj) : await offThread(obj);
    if (this.tooLarge(key, value)) {
      obj = withoutManagedFields(obj);
      value = this.sized(key, offThread === undefined ? encode(obj) : await offThread(obj));
    }
    let kv: KeyValue;
    this.remember(key, value, obj);
    try {
      kv = await this.backend.create(key, value, ttlOptions(options.ttlSeconds));
    } catch (err) {
      this.forget(key, value);
      throw this.translate(err, name, true);
    }
    // The stored value is `obj` as JSON: hand `obj` back (new top level and
    // metadata, nested values shared) instead of parsing that JSON again.
    const created = atRevision(obj, kv.modRevision);
    // A large object's too (its value came from the worker thread, the same text): its answer is then never stringified here.
    storedValues.set(created, value);
    return created;
  }

  async guaranteedUpdate(
    namespace: string,
    name: string,
    update: UpdateFunc,
    options: { ttlSeconds?: number; dryRun?: boolean; cached?: CachedState; encode?: StoredValueEncoder } = {},
  ): Promise<{ object: KubeObject; created: boolean }> {
    const key = this.keyFor(namespace, name);
    const offThread = options.encode;
    const read = async (): Promise<KeyValue | null> => (await this.call(() => this.backend.get(key), name)).kv;
    // Upstream's cachedExistingObject: a state the watch cache holds is tried
    // first, sparing the read; the compare-and-swap catches a stale one. What
    // a stale state could decide wrongly (the update refused, or nothing to
    // write) is decided again on a fresh read, unless the cache was current.
    let fresh = options.cached === undefined || options.cached.current === true;
    let current: CachedState | null = options.cached ?? (await read());
    for (let attempt = 0; ; attempt++) {
      const currentObj = current === null ? null : this.decodeKv(key, current.value, current.modRevision);
      let next: KubeObject;
      try {
        next = await update(currentObj === null ? null : deepCopy(currentObj));
      } catch (err) {
        if (fresh) throw err;
        current = await read();
        fresh = true;
        continue;
      }
      let value = offThread === undefined ? encode(next) : await offThread(next);
      if (this.tooLarge(key, value)) {
        next = withoutManagedFields(next);
        value = this.sized(key, offThread === undefined ? encode(next) : await offThread(next));
      }
      if (!fresh && ((current !== null && value === current.value) || options.dryRun === true)) {
        current = await read();
        fresh = true;
        continue;
      }
      if (current !== null && value === current.value) {
        // Nothing changed: no write, the resourceVersion stays.
        return { object: currentObj!, created: false };
      }
      if (options.dryRun === true) {
        const out = deepCopy(next);
        if (currentObj !== null) out.metadata.resourceVersion = currentObj.metadata.resourceVersion;
        else delete out.metadata.resourceVersion;
        return { object: out, created: current === null };
      }
      this.remember(key, value, next);
      try {
        // The stored value is `next` as JSON: hand `next` back at its new
        // revision (as decode would place it) instead of parsing that JSON again.
        if (current === null) {
          const kv = await this.backend.create(key, value, ttlOptions(options.ttlSeconds));
          return { object: atRevision(next, kv.modRevision), created: true };
        }
        const kv = await this.backend.update(key, value, current.modRevision, ttlOptions(options.ttlSeconds));
        return { object: atRevision(next, kv.modRevision), created: false };
      } catch (err) {
        this.forget(key, value);
        if (!isStorageError(err) || attempt >= MAX_CONFLICT_RETRIES) throw this.translate(err, name, true);
        if (err.code === 'Conflict') current = err.current ?? null;
        else if (err.code === 'KeyExists' || err.code === 'KeyNotFound') current = await read();
        else throw this.translate(err, name, true);
        fresh = true;
      }
    }
  }

  async delete(namespace: string, name: string, check?: (current: KubeObject) => void): Promise<KubeObject> {
    const key = this.keyFor(namespace, name);
    let current = (await this.call(() => this.backend.get(key), name)).kv;
    for (let attempt = 0; ; attempt++) {
      if (current === null) throw notFound(this.resource, name);
      check?.(this.decodeKv(key, current.value, current.modRevision));
      try {
        const res = await this.backend.delete(key, current.modRevision);
        return this.decodeKv(key, res.prevKv.value, res.revision);
      } catch (err) {
        if (!isStorageError(err) || attempt >= MAX_CONFLICT_RETRIES) throw this.translate(err, name);
        if (err.code === 'Conflict') current = err.current ?? null;
        else if (err.code === 'KeyNotFound') current = null;
        else throw this.translate(err, name);
      }
    }
  }

  async watch(namespace: string, options: StoreWatchOptions, handlers: StoreWatchHandlers): Promise<StoreWatchHandle> {
    const keyPrefix = this.prefixFor(namespace);
    const predicate = options.predicate;
    const rvText = options.resourceVersion ?? '';
    const requested = rvText === '' ? 0 : parseResourceVersion(rvText);
    const initial = options.sendInitialEvents ?? requested === 0;
    let from = requested;
    let stopped = false;
    const initialEvents: StoreWatchEvent[] = [];

    if (initial) {
      // The current state (or the state at the requested revision) as ADDED events.
      const res = await this.call(
        () => this.backend.range(keyPrefix, prefixEnd(keyPrefix), requested > 0 ? { revision: requested } : {}),
        '',
      );
      for (const kv of res.kvs) {
        // A corrupt value is left out of the stream (counted and logged); the rest is served.
        const obj = this.decodeOrSkip(kv.key, kv.value, kv.modRevision);
        if (obj !== undefined && (predicate === undefined || predicate(obj))) initialEvents.push({ type: 'ADDED', object: obj });
      }
      from = res.revision;
    } else {
      const current = await this.call(() => this.backend.currentRevision(), '');
      if (from > current) throw tooLargeResourceVersion(from, current);
    }

    for (const e of initialEvents) handlers.onEvent(e);
    if (initial) handlers.onInitialEventsEnd?.(String(from));

    const handle = this.backend.watch(keyPrefix, from, {
      onEvents: (events: KVWatchEvent[]) => {
        for (const e of events) {
          if (stopped) return;
          let out: StoreWatchEvent | null;
          try {
            out = translateEvent(e, predicate, (key, value, revision) => this.decodeKv(key, value, revision));
          } catch (err) {
            // An event whose value cannot be decoded is skipped (counted and logged).
            if (isCorruptObjectError(err)) continue;
            throw err;
          }
          if (out !== null) handlers.onEvent(out);
        }
      },
      onProgress: (revision: number) => {
        if (!stopped) handlers.onProgress?.(String(revision));
      },
      onError: (err: StorageError) => {
        if (stopped) return;
        stopped = true;
        handlers.onError(
          err.code === 'Compacted'
            ? resourceExpired(`too old resource version: ${from} (${err.revision ?? 0})`)
            : this.translate(err, ''),
        );
      },
    });
    // A local backend's progress is pulled (backend-watchers.ts): a direct watch has it pushed, as etcd's is.
    handle.pushProgress?.(true);
    return {
      stop: () => {
        stopped = true;
        handle.cancel();
      },
    };
  }

  /** The object of a stored value, or undefined (counted and logged) when it is corrupt: for watch streams. */
  decodeOrSkip(key: string, value: string, revision: number): KubeObject | undefined {
    try {
      return this.decodeKv(key, value, revision);
    } catch (err) {
      if (isCorruptObjectError(err)) return undefined;
      throw err;
    }
  }

  /**
   * upstream's unsafe deletion of a corrupt object
   * (ignoreStoreReadErrorWithClusterBreakingPotential): the key is deleted at
   * the revision it was read at, its value never decoded. Resolves false when
   * the key was gone already.
   */
  async deleteUnreadable(namespace: string, name: string): Promise<boolean> {
    const key = this.keyFor(namespace, name);
    for (let attempt = 0; ; attempt++) {
      const current = (await this.call(() => this.backend.get(key), name)).kv;
      if (current === null) return false;
      try {
        await this.backend.delete(key, current.modRevision);
        return true;
      } catch (err) {
        if (isStorageError(err) && err.code === 'KeyNotFound') return false;
        if (!isStorageError(err) || err.code !== 'Conflict' || attempt >= MAX_CONFLICT_RETRIES) throw this.translate(err, name);
      }
    }
  }

  /** Runs a backend call, turning StorageErrors into StatusErrors. */
  /**
   * Refuses a write etcd would refuse (its request size limit; kube-apiserver
   * passes etcd's "request is too large" on), on every backend alike so an
   * object stored here can move to etcd. Upstream answers it as a 500 (an
   * error that is not a Status); we answer 413 RequestEntityTooLarge with the
   * same message: the request, not the server, is at fault, and clients must
   * not retry it. Checked on the encoded value, so status and finalizer
   * updates (every guaranteedUpdate) are bounded too. As upstream's create,
   * update and patch handlers, a write too large with its managedFields is
   * tried once more without them (they can be large: one entry per key).
   */
  private tooLarge(key: string, value: string): boolean {
    const limit = this.backend.maxObjectSizeBytes ?? DEFAULT_MAX_OBJECT_SIZE_BYTES;
    // A UTF-16 unit is at most 3 UTF-8 bytes: most values need no count.
    if ((key.length + value.length) * 3 <= limit) return false;
    return Buffer.byteLength(key) + Buffer.byteLength(value) > limit;
  }

  /** `value`, or the 413 when it is too large to store. */
  private sized(key: string, value: string): string {
    if (this.tooLarge(key, value)) throw new StatusError(413, 'RequestEntityTooLarge', 'etcdserver: request is too large');
    return value;
  }

  private async call<T>(fn: () => Promise<T>, name: string): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      throw this.translate(err, name);
    }
  }

  /**
   * A list read: compaction is 410 Expired with the list wording; for a
   * continued list the Status also carries a token that continues at the
   * latest revision (revision -1), as upstream's etcd3 store hands out.
   */
  private async callList<T>(fn: () => Promise<T>, continueToken: string | undefined, keyPrefix: string): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (isStorageError(err) && err.code === 'Compacted') {
        if (continueToken === undefined || continueToken === '') {
          throw resourceExpired('The resourceVersion for the provided list is too old.');
        }
        const { fromKey } = decodeContinue(continueToken, keyPrefix);
        const expired = resourceExpired(
          'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue value from the response to get an inconsistent list.',
        );
        expired.status.metadata.continue = encodeContinue(fromKey, keyPrefix, -1);
        throw expired;
      }
      throw this.translate(err, '');
    }
  }

  /** StorageError → StatusError with upstream's reasons and messages. */
  translate(err: unknown, name: string, write = false): StatusError {
    if (err instanceof StatusError) return err;
    if (!isStorageError(err)) return internalError(err);
    switch (err.code) {
      case 'KeyExists':
        return alreadyExists(this.resource, name);
      case 'KeyNotFound':
        return notFound(this.resource, name);
      case 'Conflict':
        return staleResourceVersion(this.resource, name);
      case 'Compacted':
        return resourceExpired(`The resourceVersion for the provided watch is too old.`);
      case 'FutureRevision':
        // A read at an exact revision past the store's (list with resourceVersionMatch=Exact, or a
        // limit): kube-apiserver passes etcd's error through as a plain 500.
        return unknownError('etcdserver: mvcc: required revision is a future revision');
      case 'NoSpace':
        // etcd's quota alarm as kube-apiserver 1.32 passes it on: a plain 500 with etcd's message.
        // SQLite's full disk answers the same, so clients and runbooks meet one error.
        return unknownError('etcdserver: mvcc: database space exceeded');
      case 'Unavailable':
        // etcd away (stopped, no quorum): kube-apiserver 1.32 answers such a
        // request, once its deadline passes, with the 504 of its timeout filter.
        return storageTimeout(write);
      default:
        return internalError(err);
    }
  }
}

/** What kube-apiserver 1.32 answers while etcd does not: a 504 Timeout (measured with etcd stopped). */
function storageTimeout(write: boolean): StatusError {
  const message = write
    ? 'Timeout: request did not complete within requested timeout - context deadline exceeded'
    : 'Timeout: request did not complete within the allotted timeout';
  return new StatusError(504, 'Timeout', message, {});
}

function isStorageError(err: unknown): err is StorageError {
  return err instanceof StorageErrorClass;
}

function parseRevisionFromMessage(err: StorageError): number {
  const m = /(\d+)/.exec(err.message);
  return m ? Number(m[1]) : 0;
}

function minimumRevision(rv: string | undefined): number {
  if (rv === undefined || rv === '') return 0;
  return parseResourceVersion(rv);
}

function decodeContinueOrThrow(token: string, keyPrefix: string): { fromKey: string; revision: number } {
  return decodeContinue(token, keyPrefix);
}

function ttlOptions(ttlSeconds: number | undefined): { ttlSeconds?: number } | undefined {
  return ttlSeconds !== undefined && ttlSeconds > 0 ? { ttlSeconds } : undefined;
}

/**
 * The stored value: JSON without metadata.resourceVersion (the revision is the
 * version), managedFields in their compact stored form (managed-fields-codec.ts).
 */
/** `obj` without metadata.managedFields (a new top level and metadata). */
function withoutManagedFields(obj: KubeObject): KubeObject {
  if (obj.metadata?.managedFields === undefined) return obj;
  return { ...obj, metadata: omitKeys(obj.metadata, 'managedFields') };
}

export function encode(obj: KubeObject): string {
  return encodeStoredValue(obj);
}

/** The stored value of an object create() handed back (while its caller holds it). */
const storedValues = new WeakMap<KubeObject, string>();

/**
 * JSON.stringify of an object create() just handed back, spliced from the
 * value it stored (most of it is that value: managed-fields-codec.ts
 * servedJSON); undefined for any other object. Exact only while the object
 * is as create() returned it: the caller answering with it asks at once.
 */
export function createdJSON(obj: KubeObject): string | undefined {
  const value = storedValues.get(obj);
  return value === undefined ? undefined : servedJSON(obj, value);
}

/** `obj` as decode(encode(obj), revision) gives it: a new top level and metadata, resourceVersion last. */
function atRevision(obj: KubeObject, revision: number): KubeObject {
  const meta = omitKeys(obj.metadata ?? {}, 'resourceVersion');
  meta['resourceVersion'] = String(revision);
  return { ...obj, metadata: meta };
}

/** The object of a stored value (either form) at `revision`. */
export function decode(value: string, revision: number): KubeObject {
  const obj = decodeStoredValue(value);
  obj.metadata ??= {};
  obj.metadata.resourceVersion = String(revision);
  return obj;
}

type KeyDecoder = (key: string, value: string, revision: number) => KubeObject;

function translateEvent(e: KVWatchEvent, predicate: Predicate | undefined, decode: KeyDecoder): StoreWatchEvent | null {
  if (e.type === 'delete') {
    const old = decode(e.key, e.prevKv.value, e.revision);
    if (predicate !== undefined && !predicate(old)) return null;
    return { type: 'DELETED', object: old };
  }
  const cur = decode(e.kv.key, e.kv.value, e.kv.modRevision);
  const created = e.prevKv === undefined && e.kv.createRevision === e.kv.modRevision;
  if (created) {
    if (predicate !== undefined && !predicate(cur)) return null;
    return { type: 'ADDED', object: cur };
  }
  if (predicate === undefined) return { type: 'MODIFIED', object: cur };
  const curMatches = predicate(cur);
  const oldMatches = e.prevKv !== undefined ? predicate(decode(e.kv.key, e.prevKv.value, e.kv.modRevision)) : curMatches;
  if (curMatches && oldMatches) return { type: 'MODIFIED', object: cur };
  if (curMatches) return { type: 'ADDED', object: cur };
  if (oldMatches) return { type: 'DELETED', object: decode(e.kv.key, e.prevKv!.value, e.kv.modRevision) };
  return null;
}
