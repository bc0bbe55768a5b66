// The storage contract, in etcd's model (see shared/DESIGN.md):
//
// - One store-wide revision counter. Every successful write (create, update,
//   delete) takes the next revision; a key's modRevision is the revision of its
//   last write, its createRevision the revision that created it.
// - Reads happen at a revision: the current one (revision 0/undefined) or a past
//   one not yet compacted. Every read answers with the revision it was served at.
// - Writes are conditional: create fails when the key exists; update and delete
//   may be guarded by the modRevision the caller last saw.
// - Watches deliver every change under a key prefix after a given revision, in
//   revision order, with no gaps and no duplicates.
// - compact(rev) discards history below rev; a read or watch that needs it fails
//   with StorageError code 'Compacted'.
//
// Values are opaque strings to the backend (the registry stores JSON). Backends:
// memory (tests), sqlite (embedded default), etcd. One conformance suite
// (test/storage/conformance.ts) holds them all to this contract.

export interface KeyValue {
  key: string;
  value: string;
  createRevision: number;
  modRevision: number;
  /** Lease/TTL id where the backend attached one; 0 or absent otherwise. */
  lease?: number;
}

export interface RangeOptions {
  /** Read at this revision; 0 or undefined reads at the current revision. */
  revision?: number;
  /** At most this many keys; 0 or undefined means no limit. */
  limit?: number;
  /**
   * Whether the caller reads RangeResult.count (default true). With false a
   * backend may leave out counting the whole range (SQLite walks it), and
   * count is then a lower bound: kvs.length, plus 1 when more.
   */
  count?: boolean;
}

export interface RangeResult {
  kvs: KeyValue[];
  /** The revision the range was served at (the store's current one when none was asked). */
  revision: number;
  /** True when keys beyond the limit remain in [start, end). */
  more: boolean;
  /** How many keys the whole range [start, end) holds at that revision. */
  count: number;
}

export interface GetResult {
  kv: KeyValue | null;
  revision: number;
}

export interface WriteOptions {
  /** Expire the key after this many seconds (events' TTL). Backends without leases sweep. */
  ttlSeconds?: number;
}

export type WatchEvent =
  | { type: 'put'; kv: KeyValue; prevKv?: KeyValue }
  | { type: 'delete'; key: string; revision: number; prevKv: KeyValue };

export interface WatchHandlers {
  /** A batch of events, in revision order, each strictly after the previous one. */
  onEvents(events: WatchEvent[]): void;
  /**
   * The store has reached `revision` and no event under the prefix up to it is
   * pending (etcd's progress notification). Optional for backends to send.
   */
  onProgress?(revision: number): void;
  /** The watch ended abnormally (compaction, backend failure); no more calls follow. */
  onError(err: StorageError): void;
}

export interface WatchHandle {
  /** Stops delivery; no handler is called after it returns. */
  cancel(): void;
  /**
   * Optional, for backends whose progress is pulled rather than pushed (the
   * local ones, backend-watchers.ts): the newest revision up to which every
   * event under the prefix has been handed to onEvents, undefined when the
   * watch cannot say (not yet live). Without it, or with pushProgress(true),
   * onProgress tells the same as it happens.
   */
  progress?(): number | undefined;
  /** Optional, with progress(): while on, onProgress is called after every batch again (a reader waits for a revision). */
  pushProgress?(on: boolean): void;
}

export type StorageErrorCode =
  | 'KeyExists'
  | 'KeyNotFound'
  /** A guarded write's expected modRevision did not match. `current` carries the stored value. */
  | 'Conflict'
  /** The requested revision was compacted away. */
  | 'Compacted'
  /** The requested revision is newer than the store's current revision. */
  | 'FutureRevision'
  /** The backend cannot be reached or has no quorum. */
  | 'Unavailable'
  /**
   * The backend has no room for the write (etcd's quota alarm, a full disk
   * under SQLite). Nothing of the write was applied; reads still work.
   */
  | 'NoSpace'
  | 'Internal';

export class StorageError extends Error {
  constructor(
    readonly code: StorageErrorCode,
    message: string,
    readonly key?: string,
    /** For Conflict: the stored key-value (null when the key no longer exists). */
    readonly current?: KeyValue | null,
    /** For Compacted: the oldest revision still readable. For FutureRevision: the current revision. */
    readonly revision?: number,
  ) {
    super(message);
    this.name = 'StorageError';
  }
}

export interface Backend {
  /**
   * True when onProgress(revision) promises that every event up to revision was
   * delivered before it (memory, sqlite; etcd from 3.4.31 / 3.5.13, whose
   * earlier releases may notify progress ahead of events a catching-up watch has
   * not sent yet). The watch cache serves consistent reads only from backends
   * that promise it, as kube-apiserver does.
   */
  readonly consistentProgress: boolean;

  /**
   * The largest write (key + value bytes) the object store sends this backend
   * (--max-object-size-bytes; default DEFAULT_MAX_OBJECT_SIZE_BYTES, etcd's
   * default request limit). The server sets it on the backend it hands the stores.
   */
  maxObjectSizeBytes?: number;

  /** The revision of the last write (0 for an empty store). */
  currentRevision(): Promise<number>;
  /**
   * Backends in this process (memory, sqlite): currentRevision() without a
   * round trip, the revision of the last write readers can see. Absent where
   * knowing it takes a request (etcd).
   */
  localRevision?(): number;
  /** The oldest revision that can still be read or watched from (compaction point). */
  compactedRevision(): Promise<number>;

  get(key: string, options?: RangeOptions): Promise<GetResult>;
  /** Keys in [start, end) in byte order. */
  range(start: string, end: string, options?: RangeOptions): Promise<RangeResult>;

  /** Fails with KeyExists when the key is present. Resolves once durable. */
  create(key: string, value: string, options?: WriteOptions): Promise<KeyValue>;
  /**
   * Replaces the value when the key's modRevision equals expectedModRevision
   * (any value when it is undefined). Fails with KeyNotFound or Conflict.
   */
  update(key: string, value: string, expectedModRevision?: number, options?: WriteOptions): Promise<KeyValue>;
  /**
   * Deletes the key when its modRevision equals expectedModRevision (always when
   * undefined). Resolves with the deleted key-value and the deletion's revision.
   */
  delete(key: string, expectedModRevision?: number): Promise<{ prevKv: KeyValue; revision: number }>;

  /** Every change to keys starting with prefix with revision > afterRevision. */
  watch(prefix: string, afterRevision: number, handlers: WatchHandlers): WatchHandle;

  /** Discards history below revision. */
  compact(revision: number): Promise<void>;

  /** Flushes and closes; later calls fail. */
  close(): Promise<void>;
}

/** etcd's default --max-request-bytes (1.5 MiB): kube-apiserver on etcd can store no larger object. */
export const DEFAULT_MAX_OBJECT_SIZE_BYTES = 1.5 * 1024 * 1024;

/** The end of the key range holding every key that starts with prefix (etcd's prefix end). */
export function prefixEnd(prefix: string): string {
  // Keys are ASCII paths; bumping the last character gives the first string past the prefix.
  const last = prefix.charCodeAt(prefix.length - 1);
  return prefix.slice(0, -1) + String.fromCharCode(last + 1);
}
