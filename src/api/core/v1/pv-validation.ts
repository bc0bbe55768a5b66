// PersistentVolume and PodTemplate defaults and validation (upstream
// SetDefaults_PersistentVolume, ValidatePersistentVolume{,Update},
// ValidatePodTemplate{,Update}): access modes, capacity (storage only,
// positive), reclaim policy, exactly one volume source (hostPath, nfs, local
// and csi checked in detail), storage class and volume mode; the volume
// source and mode are immutable. (Upstream appends a diff of the sources to
// the immutability message; apiary does not.)

import { type FieldError, fieldErrors, GoValue } from '../../../machinery/field-errors.js';
import type { KubeObject } from '../../../machinery/meta.js';
import { parseQuantity } from '../../../machinery/quantity.js';
import { FIELD_IMMUTABLE_ERROR_MSG, isDNS1123Subdomain } from '../../../machinery/validation.js';
import type { Loose } from '../../loose.js';
import { defaultPodSpec } from './defaults.js';
import { defaultVolumePlugins } from './volume-defaults.js';
import { nfs, validateCSIDriverName } from './volume-validation.js';
import type { PodTemplateSpec } from './types.js';
import { sameJSON, validatePodTemplateSpec } from './validation.js';
import { deepCopy } from '../../../machinery/deep-copy.js';

const ACCESS_MODES = ['ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOncePod'];
const RECLAIM_POLICIES = ['Delete', 'Recycle', 'Retain'];
const VOLUME_MODES = ['Block', 'Filesystem'];
/** The PersistentVolumeSource members, by JSON name, with the path name upstream's Forbidden uses. */
const SOURCES: [string, string][] = [
  ['hostPath', 'hostPath'], ['gcePersistentDisk', 'gcePersistentDisk'], ['awsElasticBlockStore', 'awsElasticBlockStore'],
  ['glusterfs', 'glusterfs'], ['flocker', 'flocker'], ['nfs', 'nfs'], ['rbd', 'rbd'], ['quobyte', 'quobyte'],
  ['cephfs', 'cephFS'], ['iscsi', 'iscsi'], ['cinder', 'cinder'], ['fc', 'fc'], ['flexVolume', 'flexVolume'],
  ['azureFile', 'azureFile'], ['vsphereVolume', 'vsphereVolume'], ['photonPersistentDisk', 'photonPersistentDisk'],
  ['portworxVolume', 'portworxVolume'], ['azureDisk', 'azureDisk'], ['scaleIO', 'scaleIO'], ['local', 'local'],
  ['storageos', 'storageos'], ['csi', 'csi'],
];

export function defaultPersistentVolume(obj: KubeObject): void {
  const pv = obj as Loose;
  pv.spec ??= {};
  pv.status ??= {};
  if ((pv.status.phase ?? '') === '') pv.status.phase = 'Pending';
  if ((pv.spec.persistentVolumeReclaimPolicy ?? '') === '') pv.spec.persistentVolumeReclaimPolicy = 'Retain';
  pv.spec.volumeMode ??= 'Filesystem';
  // The sources' defaults (a hostPath's type, rbd's pool, …), as a pod volume's.
  defaultVolumePlugins(pv.spec);
}

function validateSource(key: string, src: Loose, path: string, spec: Loose): FieldError[] {
  const errs: FieldError[] = [];
  switch (key) {
    case 'hostPath':
      if ((src.path ?? '') === '') errs.push(fieldErrors.required(`${path}.path`));
      else if ((src.path as string).split(/[\\/]/).includes('..')) errs.push(fieldErrors.invalid(`${path}.path`, src.path, "must not contain '..'"));
      break;
    case 'nfs':
      errs.push(...nfs(src, path));
      break;
    case 'local':
      if ((src.path ?? '') === '') errs.push(fieldErrors.required(`${path}.path`));
      if (spec.nodeAffinity == null) errs.push(fieldErrors.required('spec.nodeAffinity', 'Local volume requires node affinity'));
      break;
    case 'csi':
      errs.push(...validateCSIDriverName(src.driver ?? '', `${path}.driver`));
      if ((src.volumeHandle ?? '') === '') errs.push(fieldErrors.required(`${path}.volumeHandle`));
      break;
  }
  return errs;
}

export function validatePersistentVolume(obj: KubeObject): FieldError[] {
  const spec: Loose = (obj as Loose).spec ?? {};
  const errs: FieldError[] = [];
  const modes: string[] = spec.accessModes ?? [];
  if (modes.length === 0) errs.push(fieldErrors.required('spec.accessModes'));
  for (const m of modes) if (!ACCESS_MODES.includes(m)) errs.push(fieldErrors.notSupported('spec.accessModes', m, ACCESS_MODES));
  if (modes.includes('ReadWriteOncePod') && modes.some((m) => m !== 'ReadWriteOncePod' && ACCESS_MODES.includes(m))) {
    errs.push(fieldErrors.forbidden('spec.accessModes', 'may not use ReadWriteOncePod with other access modes'));
  }
  const capacity: Record<string, string> = spec.capacity ?? {};
  const keys = Object.keys(capacity);
  if (keys.length === 0) errs.push(fieldErrors.required('spec.capacity'));
  if (!keys.includes('storage') || keys.length > 1) {
    const shown = keys.length === 0 ? 'core.ResourceList(nil)' : `core.ResourceList{${keys.map((k) => `"${k}":resource.Quantity{...}`).join(', ')}}`;
    errs.push(fieldErrors.notSupported('spec.capacity', new GoValue(shown), ['storage']));
  }
  for (const [name, value] of Object.entries(capacity)) {
    try {
      const q = parseQuantity(String(value));
      if (q.sign() <= 0) errs.push(fieldErrors.invalid(`spec.capacity[${name}]`, q.toString(), 'must be greater than zero'));
    } catch (err) {
      errs.push(fieldErrors.invalid(`spec.capacity[${name}]`, String(value), err instanceof Error ? err.message : String(err)));
    }
  }
  const policy: string = spec.persistentVolumeReclaimPolicy ?? '';
  if (policy !== '' && !RECLAIM_POLICIES.includes(policy)) errs.push(fieldErrors.notSupported('spec.persistentVolumeReclaimPolicy', policy, RECLAIM_POLICIES));
  let count = 0;
  for (const [key, forbiddenName] of SOURCES) {
    const src = spec[key];
    if (src === undefined || src === null) continue;
    if (count > 0) {
      errs.push(fieldErrors.forbidden(`spec.${forbiddenName}`, 'may not specify more than 1 volume type'));
      continue;
    }
    count++;
    errs.push(...validateSource(key, src, `spec.${key}`, spec));
  }
  if (count === 0) errs.push(fieldErrors.required('spec', 'must specify a volume type'));
  if (spec.hostPath != null && policy === 'Recycle' && /^\/+$/.test(String(spec.hostPath.path ?? ''))) {
    errs.push(fieldErrors.forbidden('spec.persistentVolumeReclaimPolicy', "may not be 'recycle' for a hostPath mount of '/'"));
  }
  const className: string = spec.storageClassName ?? '';
  if (className !== '') for (const m of isDNS1123Subdomain(className)) errs.push(fieldErrors.invalid('spec.storageClassName', className, m));
  if (spec.volumeMode != null && !VOLUME_MODES.includes(spec.volumeMode)) errs.push(fieldErrors.notSupported('spec.volumeMode', spec.volumeMode, VOLUME_MODES));
  return errs;
}

function sourceOf(spec: Loose): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key] of SOURCES) if (spec[key] != null) out[key] = spec[key];
  return out;
}

export function validatePersistentVolumeUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const errs = validatePersistentVolume(obj);
  const a: Loose = deepCopy((obj as Loose).spec ?? {});
  const b: Loose = (old as Loose).spec ?? {};
  // A CSI volume may gain a controllerExpandSecretRef.
  if (b.csi != null && b.csi.controllerExpandSecretRef == null && a.csi != null) delete a.csi.controllerExpandSecretRef;
  if (!sameJSON(sourceOf(a), sourceOf(b))) errs.push(fieldErrors.forbidden('spec.persistentvolumesource', 'spec.persistentvolumesource is immutable after creation'));
  if ((a.volumeMode ?? null) !== (b.volumeMode ?? null)) errs.push(fieldErrors.invalid('volumeMode', a.volumeMode ?? null, FIELD_IMMUTABLE_ERROR_MSG));
  return errs;
}

export function defaultPodTemplate(obj: KubeObject): void {
  const spec = (obj as Loose).template?.spec;
  if (spec !== undefined && spec !== null) defaultPodSpec(spec);
}

export function validatePodTemplate(obj: KubeObject): FieldError[] {
  return validatePodTemplateSpec(((obj as Loose).template ?? {}) as PodTemplateSpec, 'template');
}
