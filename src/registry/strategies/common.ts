// Building blocks shared by the per-resource strategies: the status
// subresource rules, generation bumps and field getters.

import type { KubeObject } from '../../machinery/meta.js';
import type { FieldError } from '../../machinery/field-errors.js';
import { sameJSON } from '../../api/core/v1/validation.js';
import type { SubresourceStrategy } from '../strategy.js';
import { deepCopy } from '../../machinery/deep-copy.js';

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
