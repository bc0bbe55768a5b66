// Informer transforms (TransformFunc, delta-fifo.ts): what an informer's
// cache keeps of each object, as kube-controller-manager trims its informers'.
// - stripManagedFields: metadata.managedFields dropped (no controller reads
//   them; an update written from such a copy keeps the stored ones, as the
//   server keeps them when a write carries none).
// - sharedStrings: the strings most objects of a kind repeat (apiVersion,
//   kind, apiGroup, label values) held once rather than once per object
//   (JSON.parse makes a new string for each value longer than 10 characters).

import type { KubeObject } from '../machinery/meta.js';
import type { TransformFunc } from './delta-fifo.js';
import { omitKeys } from '../machinery/omit-keys.js';

/**
 * The object without metadata.managedFields: a new object (deleting a
 * property other than the last would slow the object down), the one given
 * left as it is; the same object when it has none.
 */
export function stripManagedFields<T extends KubeObject>(obj: T): T {
  const metadata = obj.metadata;
  if (metadata === undefined || metadata.managedFields === undefined) return obj;
  return { ...obj, metadata: omitKeys(metadata, 'managedFields') };
}

/** Fields whose values repeat across objects (type names, API groups), wherever they are. */
const SHARED_FIELDS = new Set(['apiVersion', 'kind', 'apiGroup']);
/** Longer strings are rarely repeated (and short ones JSON.parse already shares). */
const MAX_SHARED_LENGTH = 128;

/**
 * A transform that replaces, in place, the value of every apiVersion, kind
 * and apiGroup field (at any depth) and every label value by the first equal
 * string it has seen, so N objects hold one copy. The pool keeps at most
 * `maxStrings` strings (later ones are left as they are): memory stays
 * bounded whatever the values.
 */
export function sharedStrings<T extends KubeObject>(maxStrings = 10_000): TransformFunc<T> {
  const pool = new Map<string, string>();
  const share = (s: string): string => {
    if (s.length > MAX_SHARED_LENGTH) return s;
    const held = pool.get(s);
    if (held !== undefined) return held;
    if (pool.size < maxStrings) pool.set(s, s);
    return s;
  };
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) {
      for (const item of value) if (item !== null && typeof item === 'object') walk(item);
      return;
    }
    const record = value as Record<string, unknown>;
    for (const key in record) {
      const v = record[key];
      if (typeof v === 'string') {
        if (SHARED_FIELDS.has(key)) record[key] = share(v);
      } else if (v !== null && typeof v === 'object') walk(v);
    }
  };
  return (obj) => {
    walk(obj);
    const labels = obj.metadata?.labels;
    if (labels !== undefined && labels !== null) {
      for (const key in labels) {
        const v = labels[key];
        if (typeof v === 'string') labels[key] = share(v);
      }
    }
    return obj;
  };
}
