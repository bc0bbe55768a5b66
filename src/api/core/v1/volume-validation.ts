// A pod volume's source as kube-apiserver 1.32 validates it
// (validateVolumeSource and the per-plugin checks beneath it): one source per
// volume, the fields each plugin requires, file paths that stay inside the
// volume, known hostPath types and azureDisk modes. Paths are upstream's,
// including its two spellings of its own fields in the "more than 1 volume
// type" errors (cephFS, downwarAPI) and gcePersistentDisk's checks reported
// under persistentDisk.

import { type FieldError, fieldErrors } from '../../../machinery/field-errors.js';
import { isDNS1123Label, isDNS1123Subdomain } from '../../../machinery/validation.js';
import { isObject } from '../../loose.js';
import { localDescendingPath, localNonReservedPath, noBacksteps } from './file-paths.js';

type Source = Record<string, unknown>;
type Check = (source: Source, path: string) => FieldError[];

const empty = (v: unknown): boolean => v === undefined || v === null || v === '' || (Array.isArray(v) && v.length === 0);

/** Required fields, in upstream's order. */
const requires =
  (...fields: string[]): Check =>
  (source, path) =>
    fields.filter((f) => empty(source[f])).map((f) => fieldErrors.required(`${path}.${f}`));



function keyToPaths(items: unknown, path: string): FieldError[] {
  if (!Array.isArray(items)) return [];
  return items.flatMap((item: unknown, i) => {
    const kp = isObject(item) ? item : {};
    const p = `${path}.items[${i}]`;
    const errs = requires('key', 'path')(kp, p);
    return [...errs, ...localNonReservedPath(typeof kp['path'] === 'string' ? kp['path'] : '', `${p}.path`)];
  });
}

const HOST_PATH_TYPES = ['', 'BlockDevice', 'CharDevice', 'Directory', 'DirectoryOrCreate', 'File', 'FileOrCreate', 'Socket'];
const AZURE_CACHING_MODES = ['None', 'ReadOnly', 'ReadWrite'];
const AZURE_DISK_KINDS = ['Dedicated', 'Managed', 'Shared'];

const hostPath: Check = (s, path) => {
  if (empty(s['path'])) return [fieldErrors.required(`${path}.path`)];
  const errs = noBacksteps(String(s['path']), `${path}.path`);
  if (s['type'] !== undefined && s['type'] !== null && !HOST_PATH_TYPES.includes(String(s['type']))) {
    errs.push(fieldErrors.notSupported(`${path}.type`, s['type'], HOST_PATH_TYPES));
  }
  return errs;
};

/** An NFS source (pod volume or PersistentVolume): server and an absolute path. */
export const nfs: Check = (s, path) => {
  const errs = requires('server', 'path')(s, path);
  const target = typeof s['path'] === 'string' ? s['path'] : '';
  if (!target.startsWith('/')) errs.push(fieldErrors.invalid(`${path}.path`, target, 'must be an absolute path'));
  return errs;
};

const iscsi: Check = (s, path) => {
  const errs = requires('targetPortal')(s, path);
  const iqn = typeof s['iqn'] === 'string' ? s['iqn'] : '';
  if (iqn === '') errs.push(fieldErrors.required(`${path}.iqn`));
  else if (!['iqn', 'eui', 'naa'].some((p) => iqn.startsWith(p))) errs.push(fieldErrors.invalid(`${path}.iqn`, iqn, 'must be valid format starting with iqn, eui, or naa'));
  const lun = typeof s['lun'] === 'number' ? s['lun'] : 0;
  if (lun < 0 || lun > 255) errs.push(fieldErrors.invalid(`${path}.lun`, lun, 'must be between 0 and 255, inclusive'));
  return errs;
};

const azureDisk: Check = (s, path) => {
  const errs = requires('diskName', 'diskURI')(s, path);
  if (typeof s['cachingMode'] === 'string' && !AZURE_CACHING_MODES.includes(s['cachingMode'])) {
    errs.push(fieldErrors.notSupported(`${path}.cachingMode`, s['cachingMode'], AZURE_CACHING_MODES));
  }
  const kind = s['kind'];
  if (typeof kind === 'string' && !AZURE_DISK_KINDS.includes(kind)) errs.push(fieldErrors.notSupported(`${path}.kind`, kind, AZURE_DISK_KINDS));
  const uri = typeof s['diskURI'] === 'string' ? s['diskURI'] : '';
  if (kind === 'Managed' && !uri.startsWith('/subscriptions/')) {
    errs.push(fieldErrors.notSupported(`${path}.diskURI`, uri, ['/subscriptions/{sub-id}/resourcegroups/{group-name}/providers/microsoft.compute/disks/{disk-id}']));
  }
  if (typeof kind === 'string' && kind !== 'Managed' && !uri.startsWith('https://')) {
    errs.push(fieldErrors.notSupported(`${path}.diskURI`, uri, ['https://{account-name}.blob.core.windows.net/{container-name}/{disk-name}.vhd']));
  }
  return errs;
};

const storageos: Check = (s, path) => {
  if (empty(s['volumeName'])) return [fieldErrors.required(`${path}.volumeName`)];
  return isDNS1123Label(String(s['volumeName'])).map((m) => fieldErrors.invalid(`${path}.volumeName`, s['volumeName'], m));
};

/** ValidateCSIDriverName: required, at most 63 bytes, a DNS subdomain once lowercased (an empty name fails both). */
export function validateCSIDriverName(driver: string, path: string): FieldError[] {
  const errs = driver === '' ? [fieldErrors.required(path)] : [];
  if (driver.length > 63) errs.push(fieldErrors.tooLong(path, 63));
  return [...errs, ...isDNS1123Subdomain(driver.toLowerCase()).map((m) => fieldErrors.invalid(path, driver, m))];
}

const csiDriver: Check = (s, path) => validateCSIDriverName(typeof s['driver'] === 'string' ? s['driver'] : '', `${path}.driver`);

const downwardAPIItems = (items: unknown, path: string): FieldError[] => {
  if (!Array.isArray(items)) return [];
  return items.flatMap((item: unknown) => {
    const file = isObject(item) ? item : {};
    const errs = empty(file['path']) ? [fieldErrors.required(`${path}.path`)] : [];
    errs.push(...localNonReservedPath(typeof file['path'] === 'string' ? file['path'] : '', `${path}.path`));
    if (file['fieldRef'] == null && file['resourceFieldRef'] == null) errs.push(fieldErrors.required(path, 'one of fieldRef and resourceFieldRef is required'));
    return errs;
  });
};

/** The sources in upstream's order: [field, name in the "more than 1" error, name its own checks report under, checks]. */
const SOURCES: ReadonlyArray<readonly [string, string, string, Check]> = [
  ['emptyDir', 'emptyDir', 'emptyDir', () => []],
  ['hostPath', 'hostPath', 'hostPath', hostPath],
  ['gitRepo', 'gitRepo', 'gitRepo', (s, p) => [...requires('repository')(s, p), ...(typeof s['directory'] === 'string' ? localDescendingPath(s['directory'], `${p}.directory`) : [])]],
  ['gcePersistentDisk', 'gcePersistentDisk', 'persistentDisk', requires('pdName')],
  ['awsElasticBlockStore', 'awsElasticBlockStore', 'awsElasticBlockStore', requires('volumeID')],
  ['secret', 'secret', 'secret', (s, p) => [...requires('secretName')(s, p), ...keyToPaths(s['items'], p)]],
  ['nfs', 'nfs', 'nfs', nfs],
  ['iscsi', 'iscsi', 'iscsi', iscsi],
  ['glusterfs', 'glusterfs', 'glusterfs', requires('endpoints', 'path')],
  ['flocker', 'flocker', 'flocker', (s, p) => (empty(s['datasetName']) && empty(s['datasetUUID']) ? [fieldErrors.required(p, 'one of datasetName and datasetUUID is required')] : [])],
  ['persistentVolumeClaim', 'persistentVolumeClaim', 'persistentVolumeClaim', requires('claimName')],
  ['rbd', 'rbd', 'rbd', requires('monitors', 'image')],
  ['cinder', 'cinder', 'cinder', requires('volumeID')],
  ['cephfs', 'cephFS', 'cephfs', requires('monitors')],
  ['quobyte', 'quobyte', 'quobyte', (s, p) => [...(empty(s['registry']) ? [fieldErrors.required(`${p}.registry`, 'must be a host:port pair or multiple pairs separated by commas')] : []), ...requires('volume')(s, p)]],
  ['downwardAPI', 'downwarAPI', 'downwardAPI', (s, p) => downwardAPIItems(s['items'], p)],
  ['fc', 'fc', 'fc', (s, p) => (empty(s['targetWWNs']) && empty(s['wwids']) ? [fieldErrors.required(`${p}.targetWWNs`, 'must specify either targetWWNs or wwids, but not both')] : [])],
  ['flexVolume', 'flexVolume', 'flexVolume', requires('driver')],
  ['configMap', 'configMap', 'configMap', (s, p) => [...requires('name')(s, p), ...keyToPaths(s['items'], p)]],
  ['azureFile', 'azureFile', 'azureFile', requires('secretName', 'shareName')],
  ['vsphereVolume', 'vsphereVolume', 'vsphereVolume', requires('volumePath')],
  ['photonPersistentDisk', 'photonPersistentDisk', 'photonPersistentDisk', requires('pdID')],
  ['portworxVolume', 'portworxVolume', 'portworxVolume', requires('volumeID')],
  ['azureDisk', 'azureDisk', 'azureDisk', azureDisk],
  ['storageos', 'storageos', 'storageos', storageos],
  ['projected', 'projected', 'projected', () => []],
  ['scaleIO', 'scaleIO', 'scaleIO', requires('gateway', 'system', 'volumeName')],
  ['csi', 'csi', 'csi', csiDriver],
  ['ephemeral', 'ephemeral', 'ephemeral', (s, p) => (s['volumeClaimTemplate'] == null ? [fieldErrors.required(`${p}.volumeClaimTemplate`)] : [])],
];


/** The checks of one pod volume (path: spec.volumes[i]); a volume with no source was given emptyDir by the defaults. */
export function validateVolumeSource(volume: Source, path: string): FieldError[] {
  const errs: FieldError[] = [];
  let sources = 0;
  for (const [field, forbiddenName, checkName, check] of SOURCES) {
    const source = volume[field];
    if (!isObject(source)) continue;
    if (sources > 0) {
      errs.push(fieldErrors.forbidden(`${path}.${forbiddenName}`, 'may not specify more than 1 volume type'));
      continue;
    }
    sources++;
    errs.push(...check(source, `${path}.${checkName}`));
  }
  if (sources === 0) errs.push(fieldErrors.required(path, 'must specify a volume type'));
  return errs;
}

/** Every source field of a pod Volume (v1.VolumeSource), the alpha image source included. */
export const VOLUME_SOURCE_FIELDS: readonly string[] = [...SOURCES.map(([field]) => field), 'image'];
