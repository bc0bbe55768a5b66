// PersistentVolumeClaim defaults and validation (upstream
// SetDefaults_PersistentVolumeClaim{,Spec}, ValidatePersistentVolumeClaim{,Update}),
// the parts a claim without a storage provisioner needs: access modes,
// spec.resources.requests.storage (required, positive), volumeMode,
// storageClassName; on update the spec is immutable except a bound claim's
// storage request, which may not shrink. (Upstream appends a diff of the
// specs to the immutability message; apiary does not.)

import { type FieldError, fieldErrors } from '../../../machinery/field-errors.js';
import type { KubeObject } from '../../../machinery/meta.js';
import { parseQuantity } from '../../../machinery/quantity.js';
import { isDNS1123Subdomain } from '../../../machinery/validation.js';
import type { PersistentVolumeClaim } from './types.js';
import { sameJSON } from './validation.js';
import { deepCopy } from '../../../machinery/deep-copy.js';

const ACCESS_MODES = ['ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOncePod'];
const VOLUME_MODES = ['Block', 'Filesystem'];

export function defaultPersistentVolumeClaim(obj: KubeObject): void {
  const pvc = obj as PersistentVolumeClaim;
  pvc.spec ??= {};
  pvc.spec.volumeMode ??= 'Filesystem';
}

export function validatePersistentVolumeClaim(obj: KubeObject): FieldError[] {
  const pvc = obj as PersistentVolumeClaim;
  const spec = pvc.spec ?? {};
  const errs: FieldError[] = [];
  const modes = spec.accessModes ?? [];
  if (modes.length === 0) errs.push(fieldErrors.required('spec.accessModes', 'at least 1 access mode is required'));
  for (const m of modes) if (!ACCESS_MODES.includes(m)) errs.push(fieldErrors.notSupported('spec.accessModes', m, ACCESS_MODES));
  if (modes.includes('ReadWriteOncePod') && modes.length > 1) {
    errs.push(fieldErrors.forbidden('spec.accessModes', 'may not use ReadWriteOncePod with other access modes'));
  }
  const storage = spec.resources?.requests?.['storage'];
  if (storage === undefined) errs.push(fieldErrors.required('spec.resources[storage]'));
  else {
    try {
      const q = parseQuantity(String(storage));
      if (q.sign() <= 0) errs.push(fieldErrors.invalid('spec.resources[storage]', q.toString(), 'must be greater than zero'));
    } catch (err) {
      errs.push(fieldErrors.invalid('spec.resources[storage]', String(storage), err instanceof Error ? err.message : String(err)));
    }
  }
  if ((spec.storageClassName ?? '') !== '') {
    for (const m of isDNS1123Subdomain(spec.storageClassName!)) errs.push(fieldErrors.invalid('spec.storageClassName', spec.storageClassName, m));
  }
  if (spec.volumeMode !== undefined && !VOLUME_MODES.includes(spec.volumeMode)) {
    errs.push(fieldErrors.notSupported('spec.volumeMode', spec.volumeMode, VOLUME_MODES));
  }
  return errs;
}

export function validatePersistentVolumeClaimUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const errs = validatePersistentVolumeClaim(obj);
  const a = deepCopy((obj as PersistentVolumeClaim).spec ?? {});
  const b = deepCopy((old as PersistentVolumeClaim).spec ?? {});
  const newStorage = a.resources?.requests?.['storage'];
  const oldStorage = b.resources?.requests?.['storage'];
  // A claim not yet bound may get its volumeName set once.
  if ((b.volumeName ?? '') === '') delete a.volumeName, delete b.volumeName;
  // Only a bound claim may change its storage request (expansion).
  if ((obj as PersistentVolumeClaim).status?.phase === 'Bound' && a.resources?.requests !== undefined) {
    if (oldStorage === undefined) delete a.resources.requests['storage'];
    else a.resources.requests['storage'] = oldStorage;
  }
  if (!sameJSON(a, b)) {
    errs.push(fieldErrors.forbidden('spec', 'spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims'));
  }
  if (newStorage !== undefined && oldStorage !== undefined) {
    try {
      if (parseQuantity(String(newStorage)).cmp(parseQuantity(String(oldStorage))) < 0 && (b.volumeName ?? '') === '') {
        errs.push(fieldErrors.forbidden('spec.resources.requests.storage', 'field can not be less than previous value'));
      }
    } catch {
      // reported by validatePersistentVolumeClaim
    }
  }
  return errs;
}
