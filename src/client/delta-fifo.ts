// DeltaFIFO: the queue between a Reflector and an informer's processing loop
// (client-go tools/cache delta_fifo.go).
//
// For every object key it accumulates the list of changes ("deltas") seen
// since the key was last popped, oldest first: Added, Updated, Deleted,
// Replaced (from a relist) and Sync (from a periodic resync). Keys are popped
// in the order they first became pending; a pop hands over all of the key's
// deltas at once, so a consumer sees every intermediate state, in order,
// without a key ever being processed twice concurrently.
//
// Invariants:
// - A key is in `queue` exactly when it has a non-empty entry in `items`.
// - Two consecutive Deleted deltas collapse into one (the newer, unless the
//   newer is a tombstone and the older is not: the real final state wins).
// - replace(list): a Replaced delta for every listed object; then, for every
//   key pending here or known to `knownObjects` (the indexer) but absent from
//   the list, a Deleted delta carrying a DeletedFinalStateUnknown tombstone
//   with the last state we had. That is how deletes missed while the watch
//   was down reach handlers.
// - delete(obj) of an object neither pending nor known is ignored.
// - hasSynced(): true once the first replace() (or any add/update/delete
//   before it) has happened and every key of that initial population has
//   been popped and processed.
// - transformer (client-go's TransformFunc): every object that enters the
//   queue goes through it once, before it is stored as a delta, except
//   tombstones and Sync deltas (those come from the indexer, already
//   transformed). The key is computed from the object as received.

import { type KeyFunc, type KeyListerGetter, type ReflectorStore, DeletedFinalStateUnknown, metaNamespaceKeyFunc } from './store.js';

export type DeltaType = 'Added' | 'Updated' | 'Deleted' | 'Replaced' | 'Sync';

export interface Delta<T> {
  type: DeltaType;
  object: T | DeletedFinalStateUnknown<T>;
}

/** Processes one key's deltas; isInInitialList is true for the first relist's items. */
export type PopProcessFunc<T> = (deltas: Delta<T>[], isInInitialList: boolean) => void | Promise<void>;

/** Thrown by pop() when the FIFO is closed and empty. */
export class FIFOClosedError extends Error {
  constructor() {
    super('DeltaFIFO: manipulating with closed queue');
    this.name = 'FIFOClosedError';
  }
}

export interface DeltaFIFOOptions<T> {
  keyFunction?: KeyFunc<T>;
  /** The indexer the popped deltas are applied to; used for deletes and resyncs. */
  knownObjects?: KeyListerGetter<T>;
  /** Applied to each object as it enters the queue (see the header); it must not throw. */
  transformer?: TransformFunc<T>;
}

/**
 * What an informer keeps of each object it receives (client-go's
 * TransformFunc): typically the object less fields no handler reads, such as
 * metadata.managedFields (transforms.ts). It must keep the name, namespace
 * and resourceVersion. The object it is given is the informer's own (its
 * ListerWatcher decoded it; in-process reads hand a copy): it may change it
 * in place or return a new one.
 */
export type TransformFunc<T> = (obj: T) => T;

export class DeltaFIFO<T> implements ReflectorStore<T> {
  private readonly items = new Map<string, Delta<T>[]>();
  // queue[head..] are the pending keys in order. Taken by index, not shift():
  // on a list of 100,000 keys shift() copies the rest of the array every pop
  // (V8 cannot trim an array that large in place), which made filling an
  // informer quadratic. Compacted once the taken part is the larger.
  private queue: string[] = [];
  private head = 0;
  private readonly keyFunc: KeyFunc<T>;
  private readonly knownObjects: KeyListerGetter<T> | undefined;
  private readonly transformer: TransformFunc<T> | undefined;
  private populated = false;
  private initialPopulationCount = 0;
  private closed = false;
  private waiters: Array<() => void> = [];

  constructor(options: DeltaFIFOOptions<T> = {}) {
    this.keyFunc = options.keyFunction ?? (metaNamespaceKeyFunc as unknown as KeyFunc<T>);
    this.knownObjects = options.knownObjects;
    this.transformer = options.transformer;
  }

  keyOf(obj: T | DeletedFinalStateUnknown<T>): string {
    return this.keyFunc(obj);
  }

  add(obj: T): void {
    this.populated = true;
    this.queueAction('Added', obj);
  }

  update(obj: T): void {
    this.populated = true;
    this.queueAction('Updated', obj);
  }

  delete(obj: T | DeletedFinalStateUnknown<T>): void {
    const key = this.keyFunc(obj);
    this.populated = true;
    const pending = this.items.has(key);
    const known = this.knownObjects?.getByKey(key) !== undefined;
    if (!pending && !known) return; // already gone: nothing to tell anyone
    this.queueAction('Deleted', obj);
  }

  replace(list: T[], _resourceVersion: string): void {
    const keys = new Set<string>();
    for (const obj of list) {
      const key = this.keyFunc(obj);
      keys.add(key);
      this.queueAction('Replaced', obj);
    }

    // Pending keys that vanished: their newest pending state becomes the tombstone's.
    let queuedDeletions = 0;
    for (const [key, deltas] of [...this.items]) {
      if (keys.has(key)) continue;
      const newest = deltas[deltas.length - 1]?.object;
      const last: T | undefined = newest instanceof DeletedFinalStateUnknown ? newest.obj : newest;
      queuedDeletions++;
      this.queueAction('Deleted', new DeletedFinalStateUnknown<T>(key, last));
    }

    // Known (already processed) keys that vanished.
    if (this.knownObjects !== undefined) {
      for (const key of this.knownObjects.listKeys()) {
        if (keys.has(key) || (this.items.get(key)?.length ?? 0) > 0) continue;
        queuedDeletions++;
        this.queueAction('Deleted', new DeletedFinalStateUnknown<T>(key, this.knownObjects.getByKey(key)));
      }
    }

    if (!this.populated) {
      this.populated = true;
      this.initialPopulationCount = keys.size + queuedDeletions;
    }
  }

  /** Queues a Sync delta for every known object that has nothing pending. */
  resync(): void {
    if (this.knownObjects === undefined) return;
    for (const key of this.knownObjects.listKeys()) {
      if ((this.items.get(key)?.length ?? 0) > 0) continue;
      const obj = this.knownObjects.getByKey(key);
      if (obj !== undefined) this.queueAction('Sync', obj);
    }
  }

  /**
   * Waits for a pending key, removes it with all its deltas and runs process
   * on them. If process throws, the deltas are dropped (client-go requeues
   * only on an explicit ErrRequeue; the informer's handlers never throw).
   * Rejects with FIFOClosedError once the FIFO is closed.
   */
  async pop(process: PopProcessFunc<T>): Promise<void> {
    while (this.queue.length === this.head) {
      if (this.closed) throw new FIFOClosedError();
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
    const key = this.queue[this.head++]!;
    if (this.head === this.queue.length) {
      this.queue = [];
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
    const deltas = this.items.get(key) ?? [];
    this.items.delete(key);
    const isInInitialList = this.initialPopulationCount > 0;
    try {
      await process(deltas, isInInitialList);
    } finally {
      // Decremented after processing so hasSynced() implies "in the cache".
      if (this.initialPopulationCount > 0) this.initialPopulationCount--;
    }
  }

  hasSynced(): boolean {
    return this.populated && this.initialPopulationCount === 0;
  }

  close(): void {
    this.closed = true;
    for (const wake of this.waiters.splice(0)) wake();
  }

  isClosed(): boolean {
    return this.closed;
  }

  /** Keys with pending deltas, in pop order. */
  listKeys(): string[] {
    return this.queue.slice(this.head);
  }

  /** The pending deltas of a key (a copy), or undefined. */
  getDeltas(key: string): Delta<T>[] | undefined {
    const d = this.items.get(key);
    return d === undefined ? undefined : [...d];
  }

  private queueAction(type: DeltaType, obj: T | DeletedFinalStateUnknown<T>): void {
    const key = this.keyFunc(obj);
    if (this.transformer !== undefined && type !== 'Sync' && !(obj instanceof DeletedFinalStateUnknown)) obj = this.transformer(obj);
    const old = this.items.get(key);
    const deltas = dedupDeltas([...(old ?? []), { type, object: obj }]);
    if (old === undefined) {
      this.queue.push(key);
      const wake = this.waiters.shift();
      if (wake) wake();
    }
    this.items.set(key, deltas);
  }
}

/** Collapses the last two deltas when both are deletions. */
function dedupDeltas<T>(deltas: Delta<T>[]): Delta<T>[] {
  const n = deltas.length;
  if (n < 2) return deltas;
  const a = deltas[n - 2] as Delta<T>;
  const b = deltas[n - 1] as Delta<T>;
  if (a.type !== 'Deleted' || b.type !== 'Deleted') return deltas;
  // Keep the one that knows the real final state.
  const keep = b.object instanceof DeletedFinalStateUnknown ? a : b;
  return [...deltas.slice(0, n - 2), keep];
}
