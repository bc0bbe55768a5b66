// Defaults of volume sources, shared by pod volumes and PersistentVolume
// specs (upstream's declarative `+default` markers on the plugin types and
// SetDefaults_HostPathVolumeSource): an rbd volume's pool, user and keyring,
// an iscsi volume's interface, an azureDisk's caching mode, filesystem,
// read-only flag and kind, a scaleIO volume's storage mode and filesystem,
// a hostPath's type. Only absent fields are set; an explicit "" stays.

import { isObject } from '../../loose.js';
import { VOLUME_SOURCE_FIELDS } from './volume-validation.js';

type Source = Record<string, unknown>;

const PLUGIN_DEFAULTS: Readonly<Record<string, Readonly<Record<string, unknown>>>> = {
  rbd: { pool: 'rbd', user: 'admin', keyring: '/etc/ceph/keyring' },
  iscsi: { iscsiInterface: 'default' },
  azureDisk: { cachingMode: 'ReadWrite', fsType: 'ext4', readOnly: false, kind: 'Shared' },
  scaleIO: { storageMode: 'ThinProvisioned', fsType: 'xfs' },
  hostPath: { type: '' },
};

/** Fills the plugin defaults of whichever sources `holder` (a Volume or a PersistentVolumeSpec) sets. */
export function defaultVolumePlugins(holder: Source): void {
  for (const [plugin, defaults] of Object.entries(PLUGIN_DEFAULTS)) {
    const source = holder[plugin];
    if (!isObject(source)) continue;
    for (const [field, value] of Object.entries(defaults)) if (source[field] === undefined || source[field] === null) source[field] = value;
  }
}

/** SetDefaults_ObjectFieldSelector: a fieldRef without apiVersion means v1. */
export function defaultFieldRef(holder: unknown): void {
  if (!isObject(holder)) return;
  const ref = holder['fieldRef'];
  if (isObject(ref) && (ref['apiVersion'] === undefined || ref['apiVersion'] === null || ref['apiVersion'] === '')) ref['apiVersion'] = 'v1';
}

function defaultDownwardItems(source: unknown): void {
  if (!isObject(source) || !Array.isArray(source['items'])) return;
  for (const item of source['items']) defaultFieldRef(item);
}

/**
 * What a pod volume's sources get beyond their defaultMode: the plugin
 * defaults, downward API field references, a projected service account
 * token's expirationSeconds (one hour), and an ephemeral volume's claim
 * template's volumeMode (Filesystem, as a claim's).
 */
export function defaultPodVolumeSources(volume: Source): void {
  // SetDefaults_Volume: a volume that names no source is an emptyDir.
  if (!VOLUME_SOURCE_FIELDS.some((field) => isObject(volume[field]))) volume['emptyDir'] = {};
  defaultVolumePlugins(volume);
  defaultDownwardItems(volume['downwardAPI']);
  const projected = volume['projected'];
  if (isObject(projected) && Array.isArray(projected['sources'])) {
    for (const source of projected['sources']) {
      if (!isObject(source)) continue;
      defaultDownwardItems(source['downwardAPI']);
      const token = source['serviceAccountToken'];
      if (isObject(token) && (token['expirationSeconds'] === undefined || token['expirationSeconds'] === null)) token['expirationSeconds'] = 3600;
    }
  }
  const ephemeral = volume['ephemeral'];
  const template = isObject(ephemeral) ? ephemeral['volumeClaimTemplate'] : undefined;
  const spec = isObject(template) ? template['spec'] : undefined;
  if (isObject(spec) && (spec['volumeMode'] === undefined || spec['volumeMode'] === null || spec['volumeMode'] === '')) spec['volumeMode'] = 'Filesystem';
}
