// Store: the key/object cache contract shared by the indexer and the
// DeltaFIFO (client-go tools/cache store.go). Objects are identified by a key
// computed by a KeyFunc; for Kubernetes objects that is metaNamespaceKeyFunc:
// "namespace/name" for namespaced objects, "name" for cluster-scoped ones.
//
// DeletedFinalStateUnknown is the tombstone a relist produces for an object
// that disappeared while the watch was down: we know it was deleted but not
// its final state, only the last state we saw. Handlers' onDelete receives
// either the object or such a tombstone.

import type { KubeObject } from '../machinery/meta.js';

export type KeyFunc<T> = (obj: T | DeletedFinalStateUnknown<T>) => string;

/** A delete observed only by its absence from a relist (client-go's DeletedFinalStateUnknown). */
export class DeletedFinalStateUnknown<T = KubeObject> {
  constructor(
    /** The store key of the deleted object. */
    readonly key: string,
    /** The last state we saw; it may be stale. */
    readonly obj: T | undefined,
  ) {}
}

/**
 * "namespace/" per namespace, made once: a key is then one string joining
 * the prefix and the name (a cache keeps a key per object; a prefix made per
 * key cost 24 bytes more). Emptied if it ever holds very many namespaces.
 */
const NAMESPACE_PREFIXES = new Map<string, string>();
const MAX_NAMESPACE_PREFIXES = 50_000;

function namespacePrefix(namespace: string): string {
  let prefix = NAMESPACE_PREFIXES.get(namespace);
  if (prefix === undefined) {
    if (NAMESPACE_PREFIXES.size >= MAX_NAMESPACE_PREFIXES) NAMESPACE_PREFIXES.clear();
    NAMESPACE_PREFIXES.set(namespace, (prefix = `${namespace}/`));
  }
  return prefix;
}

/** "namespace/name", or "name" for cluster-scoped objects. */
export function metaNamespaceKeyFunc(obj: KubeObject | DeletedFinalStateUnknown<KubeObject>): string {
  if (obj instanceof DeletedFinalStateUnknown) return obj.key;
  const meta = obj.metadata;
  if (meta === undefined || typeof meta.name !== 'string') {
    throw new Error('object has no metadata.name: cannot compute its key');
  }
  return meta.namespace ? namespacePrefix(meta.namespace) + meta.name : meta.name;
}

/** Alias kept for readers of client-go: the key func already handles tombstones. */
export const deletionHandlingMetaNamespaceKeyFunc = metaNamespaceKeyFunc;

/** Splits a "namespace/name" or "name" key. */
export function splitMetaNamespaceKey(key: string): { namespace: string; name: string } {
  const parts = key.split('/');
  if (parts.length === 1) return { namespace: '', name: parts[0] as string };
  if (parts.length === 2) return { namespace: parts[0] as string, name: parts[1] as string };
  throw new Error(`unexpected key format: ${JSON.stringify(key)}`);
}

/** The operations a Reflector drives (client-go's ReflectorStore). */
export interface ReflectorStore<T> {
  add(obj: T): void;
  update(obj: T): void;
  delete(obj: T | DeletedFinalStateUnknown<T>): void;
  /** Replaces the whole content with a fresh list taken at resourceVersion. */
  replace(list: T[], resourceVersion: string): void;
  /** Re-delivers every known object (periodic resync). */
  resync(): void;
}

/** A read view of cached objects by key (client-go's KeyListerGetter). */
export interface KeyListerGetter<T> {
  listKeys(): string[];
  getByKey(key: string): T | undefined;
}

/** A full cache: what the indexer implements. */
export interface Store<T> extends ReflectorStore<T>, KeyListerGetter<T> {
  list(): T[];
  get(obj: T | DeletedFinalStateUnknown<T>): T | undefined;
}
