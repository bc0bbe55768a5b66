// What an object store is (the contract is in ./object-store.ts, beside its
// backend implementation; ./cacher/ is the other): the interface the registry
// calls, its options, lists, watches and their events.

import type { Backend, KeyValue } from './interface.js';
import type { GroupResource, KubeObject } from '../machinery/meta.js';
import type { StoredDecoders } from './corrupt-values.js';
import type { StatusError } from '../machinery/errors.js';

/**
 * An object's stored state as a cache holds it: its value and the revision
 * that wrote it; `current` when the cache had seen every write of the backend
 * as it was taken (so it is what a read of storage would have given).
 */
export type CachedState = Pick<KeyValue, 'value' | 'modRevision'> & { current?: boolean };

/** Decides whether an object belongs in a list or watch (label and field selectors). */
export type Predicate = (obj: KubeObject) => boolean;

export interface StoreListOptions {
  resourceVersion?: string;
  resourceVersionMatch?: string;
  limit?: number;
  continue?: string;
  predicate?: Predicate;
  /** True when the predicate selects everything (enables remainingItemCount). */
  predicateIsEverything?: boolean;
  /** The caller never changes the items: the watch cache may answer with its shared, frozen objects. */
  sharedItems?: boolean;
}

export interface StoreListResult {
  items: KubeObject[];
  resourceVersion: string;
  continue?: string;
  remainingItemCount?: number;
}

export type StoreWatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface StoreWatchEvent {
  type: StoreWatchEventType;
  object: KubeObject;
  /**
   * A memo of the layer above (the registry store's typed WatchEvent for this
   * event, registry/store/reads.ts), kept on the event so that it lives as
   * long as the event does. A WeakMap keyed by the event did the same, but
   * V8 (11.3) kept each young key of a long-lived WeakMap, and the write's
   * whole object with it, through the young collections: every watched
   * create was promoted to die in the old generation.
   */
  memo?: { readonly owner: object; readonly value: unknown };
}

export interface StoreWatchHandlers {
  onEvent(event: StoreWatchEvent): void;
  /**
   * Optional: several events at once, in order, instead of onEvent for each (a
   * watch cache hands each watcher one dispatch's events together). The array
   * may be shared with other watchers: read it, never change it.
   */
  onEvents?(events: readonly StoreWatchEvent[]): void;
  /** After the initial ADDED events (when sent), with the revision they were read at. */
  onInitialEventsEnd?(resourceVersion: string): void;
  /** The backend reached this revision with nothing pending (for bookmarks). */
  onProgress?(resourceVersion: string): void;
  /** The watch ended with this error; nothing follows. */
  onError(err: StatusError): void;
  /**
   * The store ended the watch cleanly (a watch cache re-initialising, a
   * watcher that could not keep up); nothing follows. The client re-watches
   * from the last resourceVersion it saw. Without this handler such watches
   * end through onError with a 410 Expired.
   */
  onClose?(): void;
}

export interface StoreWatchOptions {
  resourceVersion?: string;
  predicate?: Predicate;
  /** Overrides the rule "unset or 0 sends the current state first". */
  sendInitialEvents?: boolean;
}

export interface StoreWatchHandle {
  stop(): void;
  /**
   * Optional: tells onProgress now of progress the store has not pushed yet
   * (a watch cache on a local backend pulls it, backend-watchers.ts); called
   * before a bookmark names the watch's newest resourceVersion.
   */
  refresh?(): void;
}

/**
 * A transform for guaranteedUpdate: receives the current object (null when
 * absent) and returns the object to write, or throws a StatusError. Returning
 * the same JSON as the stored value writes nothing.
 */
export type UpdateFunc = (current: KubeObject | null) => KubeObject | Promise<KubeObject>;

/**
 * How a large write's stored value may be encoded: off the event loop (the
 * registry hands the server's worker thread in for a large request:
 * server/large-requests.ts). It must give encode(obj)'s text exactly.
 */
export type StoredValueEncoder = (obj: KubeObject) => Promise<string>;

export interface ObjectStore {
  readonly resource: GroupResource;
  keyFor(namespace: string, name: string): string;
  /**
   * A dry-run create writes nothing: what a write would add to the object (a service's cluster IP)
   * is filled in here instead, and what it would refuse is refused.
   */
  previewCreate?(obj: KubeObject): Promise<void>;
  /** Current revision of the whole store, as a resourceVersion. */
  currentResourceVersion(): Promise<string>;
  /** With `shared`, the caller never changes the object: the watch cache may answer with its shared, frozen one. */
  get(namespace: string, name: string, options?: { resourceVersion?: string; shared?: boolean }): Promise<KubeObject>;
  /**
   * Stores with a watch cache: the object as the cache holds it now, without
   * waiting (upstream's listers). Undefined when the cache does not hold it or
   * is not filled yet. The object is shared by every caller and frozen.
   */
  getCached?(namespace: string, name: string): Readonly<KubeObject> | undefined;
  /** Stores with a watch cache: a namespace's objects as getCached gives them; undefined until the cache is filled. */
  listCached?(namespace: string): Readonly<KubeObject>[] | undefined;
  /** namespace '' reads every namespace (and cluster-scoped resources). */
  list(namespace: string, options: StoreListOptions): Promise<StoreListResult>;
  /** Resolves with the created object; it may share nested values with `obj`, which the caller must not change afterwards. */
  create(namespace: string, name: string, obj: KubeObject, options?: { ttlSeconds?: number; encode?: StoredValueEncoder }): Promise<KubeObject>;
  /**
   * Read-modify-write guarded by the read's modRevision; a conflicting write
   * re-reads and calls update again. update(null) is called when the object is
   * absent; it may then create it (create-on-update) or throw.
   */
  guaranteedUpdate(
    namespace: string,
    name: string,
    update: UpdateFunc,
    options?: { ttlSeconds?: number; dryRun?: boolean; encode?: StoredValueEncoder },
  ): Promise<{ object: KubeObject; created: boolean }>;
  /**
   * Deletes the object; `check` sees the current one first and may throw
   * (preconditions). Retried when the object changed between read and delete.
   * Resolves with the deleted object, its resourceVersion the deletion's.
   */
  delete(namespace: string, name: string, check?: (current: KubeObject) => void): Promise<KubeObject>;
  watch(namespace: string, options: StoreWatchOptions, handlers: StoreWatchHandlers): Promise<StoreWatchHandle>;
}

export interface ObjectStoreOptions {
  backend: Backend;
  /** Group and plural resource, for error messages. */
  resource: GroupResource;
  namespaced: boolean;
  /** Key prefix, default "/registry". */
  prefix?: string;
  /** The key path segment; defaults to resource.resource. */
  keyResource?: string;
  /** Type checks and the protobuf decoder (corrupt-values.ts); none: any JSON object is taken. */
  decoders?: StoredDecoders;
}
