// StorageObjectInUseProtection admission (upstream plugin/pkg/admission/storage/
// storageobjectinuseprotection): every new PersistentVolumeClaim gets the
// `kubernetes.io/pvc-protection` finalizer, every new PersistentVolume the
// `kubernetes.io/pv-protection` one, appended after the finalizers the client
// set (once). The finalizer keeps a claim that a pod still uses from
// disappearing when it is deleted: it stays Terminating until the
// pvc-protection controller (controllers/pvc-protection.ts) sees no pod using
// it and removes the finalizer.
// CREATE only, main resource only (not /status); updates may remove the
// finalizer like any other. PersistentVolumes get theirs whenever that
// resource is served; nothing here depends on it.

import type { AdmissionAttributes, AdmissionPlugin } from './interface.js';

export const STORAGE_OBJECT_IN_USE_PROTECTION_PLUGIN = 'StorageObjectInUseProtection';
export const PVC_PROTECTION_FINALIZER = 'kubernetes.io/pvc-protection';
export const PV_PROTECTION_FINALIZER = 'kubernetes.io/pv-protection';

export class StorageObjectInUseProtection implements AdmissionPlugin {
  readonly name = STORAGE_OBJECT_IN_USE_PROTECTION_PLUGIN;
  readonly resources: ReadonlySet<string> = new Set(['/persistentvolumeclaims', '/persistentvolumes']);

  async admit(a: AdmissionAttributes): Promise<void> {
    if (a.operation !== 'CREATE' || a.subresource !== '' || a.resource.group !== '' || a.object === undefined) return;
    let finalizer: string;
    if (a.resource.resource === 'persistentvolumeclaims') finalizer = PVC_PROTECTION_FINALIZER;
    else if (a.resource.resource === 'persistentvolumes') finalizer = PV_PROTECTION_FINALIZER;
    else return;
    const meta = a.object.metadata;
    const finalizers = meta.finalizers ?? [];
    if (finalizers.includes(finalizer)) return;
    meta.finalizers = [...finalizers, finalizer];
  }
}
