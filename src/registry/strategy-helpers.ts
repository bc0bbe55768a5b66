// Building blocks shared by the per-resource strategies (registry/<group>/*.ts):
// the status subresource rules, the "status plus generation" prepare pair,
// generation bumps and field getters.

import type { KubeObject } from '../machinery/meta.js';
import type { FieldError } from '../machinery/field-errors.js';
import { sameJSON } from '../api/core/v1/validation.js';
import type { SubresourceStrategy } from './strategy.js';
import { deepCopy } from '../machinery/deep-copy.js';
import { formatLabelSelector } from '../api/tables/labels.js';

/** Main-resource writes keep the stored status (kinds with a status subresource). */
export function keepStatus(obj: KubeObject, old: KubeObject): void {
  if (old.status === undefined) delete obj.status;
  else obj.status = deepCopy(old.status);
}

/** Spec changes bump metadata.generation (kinds that track it). */
export function bumpGenerationOnSpecChange(obj: KubeObject, old: KubeObject, alsoAnnotations = false): void {
  const changed =
    !sameJSON(obj.spec ?? null, old.spec ?? null) ||
    (alsoAnnotations && !sameJSON(obj.metadata.annotations ?? {}, old.metadata.annotations ?? {}));
  if (changed) obj.metadata.generation = (old.metadata.generation ?? 0) + 1;
}

/** Create of a kind with a status subresource that tracks generation: status starts empty, generation at 1. */
export function resetStatusAndGeneration(obj: KubeObject): void {
  obj.status = {};
  obj.metadata.generation = 1;
}

/** Main-resource writes of such a kind: the stored status stays, spec changes bump generation. */
export function keepStatusBumpGeneration(obj: KubeObject, old: KubeObject): void {
  keepStatus(obj, old);
  bumpGenerationOnSpecChange(obj, old);
}

/** Create of a kind that tracks generation but has no status. */
export function generationOne(obj: KubeObject): void {
  obj.metadata.generation = 1;
}

/**
 * `/status` writes: everything but status comes from the stored object
 * (metadata too, except the resourceVersion that guards the write), in the
 * stored object's key order (status where it was, else last): an unchanged
 * write then stores the same bytes, which is how storage sees that nothing
 * changed (no new resourceVersion, no watch event).
 */
export function statusSubresource(validate?: (obj: KubeObject, old: KubeObject) => FieldError[]): SubresourceStrategy {
  const sub: SubresourceStrategy = {
    prepareForUpdate(obj: KubeObject, old: KubeObject): void {
      const status = obj.status;
      const rv = obj.metadata.resourceVersion;
      for (const key of Object.keys(obj)) delete obj[key];
      for (const [key, value] of Object.entries(deepCopy(old))) {
        if (key !== 'status') obj[key] = value;
        else if (status !== undefined) obj.status = status;
      }
      if (status !== undefined && !('status' in obj)) obj.status = status;
      obj.metadata.resourceVersion = rv;
    },
  };
  if (validate !== undefined) sub.validateUpdate = validate;
  return sub;
}

/**
 * The status subresource of the workloads whose upstream status strategy only
 * puts the stored spec back (`new.Spec = old.Spec`: jobs, cron jobs, replica
 * sets, stateful sets, daemon sets): the write's status and its metadata
 * changes (annotations, labels, …) are kept. Keys stay in the stored object's
 * order, so an unchanged write stores the same bytes.
 */
export function specKeepingStatusSubresource(validate?: (obj: KubeObject, old: KubeObject) => FieldError[]): SubresourceStrategy {
  const sub: SubresourceStrategy = {
    prepareForUpdate(obj: KubeObject, old: KubeObject): void {
      const written: Record<string, unknown> = { ...obj };
      for (const key of Object.keys(obj)) delete obj[key];
      for (const key of Object.keys(old)) {
        if (key === 'spec') obj[key] = deepCopy(old[key]);
        else if (written[key] !== undefined) obj[key] = written[key];
      }
      for (const [key, value] of Object.entries(written)) if (key !== 'spec' && !(key in obj)) obj[key] = value;
    },
  };
  if (validate !== undefined) sub.validateUpdate = validate;
  return sub;
}

/** spec.selector as a label-selector string (what Scale reports for workloads). */
export function specSelector(obj: KubeObject): string {
  return formatLabelSelector((obj['spec'] as { selector?: unknown } | undefined)?.selector);
}

/** A getter for a dotted path into the object, rendered as field selectors see it. */
export function fieldAt(path: string): (obj: KubeObject) => string {
  const parts = path.split('.');
  return (obj) => {
    let v: unknown = obj;
    for (const p of parts) {
      if (v === null || typeof v !== 'object') return '';
      v = (v as Record<string, unknown>)[p];
    }
    if (v === undefined || v === null) return '';
    return String(v);
  };
}
