// The garbage collector's finalizers on DELETE (upstream's
// deletionFinalizersForGarbageCollection in the generic registry store): the
// propagation policy asked for, else the GC finalizer the object already
// carries, else the resource's default policy decides whether the object gets
// `orphan` (dependents are orphaned before it goes) or `foregroundDeletion`
// (dependents are deleted before it goes). Background adds neither: the object
// goes at once and the collector deletes its dependents afterwards.

import type { KubeObject } from '../machinery/meta.js';
import { FINALIZER_DELETE_DEPENDENTS, FINALIZER_ORPHAN_DEPENDENTS } from '../machinery/validation.js';
import type { DeleteOptions } from './rest.js';
import type { Strategy } from './strategy.js';

type Policy = NonNullable<Strategy['defaultGarbageCollectionPolicy']>;

function shouldOrphan(finalizers: readonly string[], options: DeleteOptions, defaultPolicy: Policy): boolean {
  if (defaultPolicy === 'Unsupported') return false;
  if (options.propagationPolicy !== undefined) return options.propagationPolicy === 'Orphan';
  for (const f of finalizers) {
    if (f === FINALIZER_ORPHAN_DEPENDENTS) return true;
    if (f === FINALIZER_DELETE_DEPENDENTS) return false;
  }
  return defaultPolicy === 'OrphanDependents';
}

function shouldDeleteDependents(finalizers: readonly string[], options: DeleteOptions, defaultPolicy: Policy): boolean {
  if (defaultPolicy === 'Unsupported') return false;
  if (options.propagationPolicy !== undefined) return options.propagationPolicy === 'Foreground';
  for (const f of finalizers) {
    if (f === FINALIZER_DELETE_DEPENDENTS) return true;
    if (f === FINALIZER_ORPHAN_DEPENDENTS) return false;
  }
  return false;
}

/**
 * The finalizers `obj` should carry once this DELETE is accepted, or null when
 * they stay as they are. The two GC finalizers are taken out, then added back
 * (orphan first) as the options, the existing finalizers and the default say;
 * the set is compared, not the order.
 */
export function deletionFinalizers(obj: KubeObject, options: DeleteOptions, strategy: Strategy): string[] | null {
  const policy = strategy.defaultGarbageCollectionPolicy ?? 'DeleteDependents';
  const current = obj.metadata.finalizers ?? [];
  const next = current.filter((f) => f !== FINALIZER_ORPHAN_DEPENDENTS && f !== FINALIZER_DELETE_DEPENDENTS);
  if (shouldOrphan(current, options, policy)) next.push(FINALIZER_ORPHAN_DEPENDENTS);
  if (shouldDeleteDependents(current, options, policy)) next.push(FINALIZER_DELETE_DEPENDENTS);
  const before = new Set(current);
  const after = new Set(next);
  if (before.size === after.size && [...after].every((f) => before.has(f))) return null;
  return next;
}
