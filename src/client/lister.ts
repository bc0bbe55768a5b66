// Lister: read-only queries over an informer's indexer (client-go listers).
// list() returns every cached object, optionally filtered; namespace(ns)
// scopes list/get to one namespace through the built-in namespace index, so a
// namespaced list costs the objects of that namespace, not of the cache.
// Returned objects are the cache's own: never mutate them.

import type { KubeObject } from '../machinery/meta.js';
import { type Indexer, NAMESPACE_INDEX } from './indexer.js';

export type ObjectFilter<T> = (obj: T) => boolean;

/** Matches objects whose labels include every given label (equality selector). */
export function labelsMatch<T extends KubeObject>(selector: Record<string, string>): ObjectFilter<T> {
  const wanted = Object.entries(selector);
  return (obj) => wanted.every(([k, v]) => obj.metadata.labels?.[k] === v);
}

export class Lister<T extends KubeObject = KubeObject> {
  constructor(private readonly indexer: Indexer<T>) {}

  list(filter?: ObjectFilter<T>): T[] {
    const all = this.indexer.list();
    return filter ? all.filter(filter) : all;
  }

  /** A cluster-scoped object by name (or any object by its full key). */
  get(name: string): T | undefined {
    return this.indexer.getByKey(name);
  }

  namespace(namespace: string): NamespaceLister<T> {
    return new NamespaceLister(this.indexer, namespace);
  }
}

export class NamespaceLister<T extends KubeObject = KubeObject> {
  constructor(
    private readonly indexer: Indexer<T>,
    readonly namespaceName: string,
  ) {}

  list(filter?: ObjectFilter<T>): T[] {
    const inNs = this.indexer.byIndex(NAMESPACE_INDEX, this.namespaceName);
    return filter ? inNs.filter(filter) : inNs;
  }

  get(name: string): T | undefined {
    return this.indexer.getByKey(`${this.namespaceName}/${name}`);
  }
}
