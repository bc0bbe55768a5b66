// Indexer: the informer's local cache (client-go thread_safe_store.go,
// index.go). A map from key to the latest object plus named secondary
// indices: each IndexFunc maps an object to zero or more index values, and
// the index maps each value to the keys of the objects that produce it.
//
// Invariant: after every add/update/delete/replace, for every index name and
// every stored object, the object's key is in exactly the index buckets its
// IndexFunc returns for the stored version, and in no other bucket; empty
// buckets are removed. The namespace index (NAMESPACE_INDEX) is built in,
// unless the owner asks for none (a cache never read by namespace, such as
// the garbage collector's, saves an index entry per object).
//
// JavaScript runs one call at a time, so the "thread-safe" part of client-go
// is implicit; callers must still treat returned objects as read-only (they
// are the cache's own copies, shared with every other reader).

import type { KubeObject } from '../machinery/meta.js';
import { type KeyFunc, type Store, DeletedFinalStateUnknown, metaNamespaceKeyFunc } from './store.js';

export type IndexFunc<T> = (obj: T) => string[];
export type Indexers<T> = Record<string, IndexFunc<T>>;

export const NAMESPACE_INDEX = 'namespace';

/** Indexes an object by its namespace ("" objects, cluster-scoped, by nothing). */
export function metaNamespaceIndexFunc(obj: KubeObject): string[] {
  const ns = obj.metadata?.namespace;
  return ns ? [ns] : [];
}

export class Indexer<T extends KubeObject = KubeObject> implements Store<T> {
  private readonly items = new Map<string, T>();
  private readonly indexers: Indexers<T> = {};
  /** index name → index value → keys */
  private readonly indices = new Map<string, Map<string, Set<string>>>();

  constructor(
    private readonly keyFunc: KeyFunc<T> = metaNamespaceKeyFunc as KeyFunc<T>,
    indexers: Indexers<T> = {},
    options: { namespaceIndex?: boolean } = {},
  ) {
    this.addIndexers(options.namespaceIndex === false ? indexers : { [NAMESPACE_INDEX]: metaNamespaceIndexFunc, ...indexers });
  }

  keyOf(obj: T | DeletedFinalStateUnknown<T>): string {
    return this.keyFunc(obj);
  }

  /** Adds index functions; indices are built for objects already stored. */
  addIndexers(indexers: Indexers<T>): void {
    for (const [name, fn] of Object.entries(indexers)) {
      if (name in this.indexers) throw new Error(`indexer conflict: ${name}`);
      this.indexers[name] = fn;
      this.indices.set(name, new Map());
      for (const [key, obj] of this.items) this.indexInto(name, fn, key, obj);
    }
  }

  add(obj: T): void {
    this.put(this.keyFunc(obj), obj);
  }

  update(obj: T): void {
    this.put(this.keyFunc(obj), obj);
  }

  delete(obj: T | DeletedFinalStateUnknown<T>): void {
    this.deleteByKey(this.keyFunc(obj));
  }

  deleteByKey(key: string): void {
    const old = this.items.get(key);
    if (old === undefined) return;
    this.unindex(key, old);
    this.items.delete(key);
  }

  get(obj: T | DeletedFinalStateUnknown<T>): T | undefined {
    return this.items.get(this.keyFunc(obj));
  }

  getByKey(key: string): T | undefined {
    return this.items.get(key);
  }

  list(): T[] {
    return [...this.items.values()];
  }

  listKeys(): string[] {
    return [...this.items.keys()];
  }

  replace(list: T[], _resourceVersion: string): void {
    this.items.clear();
    for (const index of this.indices.values()) index.clear();
    for (const obj of list) this.put(this.keyFunc(obj), obj);
  }

  /** The indexer itself has nothing to resync; the DeltaFIFO does it. */
  resync(): void {}

  /** Objects sharing any index value with obj under the named index. */
  index(indexName: string, obj: T): T[] {
    const fn = this.indexFunc(indexName);
    const keys = new Set<string>();
    for (const value of fn(obj)) {
      for (const key of this.indices.get(indexName)?.get(value) ?? []) keys.add(key);
    }
    return this.objectsFor(keys);
  }

  /** Objects whose named index includes value. */
  byIndex(indexName: string, value: string): T[] {
    this.indexFunc(indexName);
    return this.objectsFor(this.indices.get(indexName)?.get(value) ?? []);
  }

  /** Keys of the objects whose named index includes value. */
  indexKeys(indexName: string, value: string): string[] {
    this.indexFunc(indexName);
    return [...(this.indices.get(indexName)?.get(value) ?? [])];
  }

  /** Every value the named index currently holds. */
  listIndexFuncValues(indexName: string): string[] {
    return [...(this.indices.get(indexName)?.keys() ?? [])];
  }

  getIndexers(): Indexers<T> {
    return { ...this.indexers };
  }

  private indexFunc(name: string): IndexFunc<T> {
    const fn = this.indexers[name];
    if (fn === undefined) throw new Error(`Index with name ${name} does not exist`);
    return fn;
  }

  private objectsFor(keys: Iterable<string>): T[] {
    const out: T[] = [];
    for (const key of keys) {
      const obj = this.items.get(key);
      if (obj !== undefined) out.push(obj);
    }
    return out;
  }

  private put(key: string, obj: T): void {
    const old = this.items.get(key);
    if (old !== undefined) this.unindex(key, old);
    this.items.set(key, obj);
    for (const [name, fn] of Object.entries(this.indexers)) this.indexInto(name, fn, key, obj);
  }

  private indexInto(name: string, fn: IndexFunc<T>, key: string, obj: T): void {
    const index = this.indices.get(name) as Map<string, Set<string>>;
    for (const value of fn(obj)) {
      let bucket = index.get(value);
      if (bucket === undefined) index.set(value, (bucket = new Set()));
      bucket.add(key);
    }
  }

  private unindex(key: string, old: T): void {
    for (const [name, fn] of Object.entries(this.indexers)) {
      const index = this.indices.get(name) as Map<string, Set<string>>;
      for (const value of fn(old)) {
        const bucket = index.get(value);
        if (bucket === undefined) continue;
        bucket.delete(key);
        if (bucket.size === 0) index.delete(value);
      }
    }
  }
}
