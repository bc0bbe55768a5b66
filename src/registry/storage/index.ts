// storage.k8s.io/v1: its catalog entries.
import { entry, type CatalogEntry } from '../catalog-entry.js';
import { storageClassStrategy } from './storageclasses.js';
import { csiDriverStrategy } from './csidrivers.js';
import { csiNodeStrategy } from './csinodes.js';
import { volumeAttachmentStrategy } from './volumeattachments.js';
import { csiStorageCapacityStrategy } from './csistoragecapacities.js';

const storage = { group: 'storage.k8s.io', version: 'v1' } as const;

export function storageEntries(): CatalogEntry[] {
  return [
    entry({ ...storage, resource: 'storageclasses', kind: 'StorageClass', singular: 'storageclass', short: ['sc'], strategy: storageClassStrategy }),
    entry({ ...storage, resource: 'csidrivers', kind: 'CSIDriver', singular: 'csidriver', strategy: csiDriverStrategy }),
    entry({ ...storage, resource: 'csinodes', kind: 'CSINode', singular: 'csinode', strategy: csiNodeStrategy }),
    entry({ ...storage, resource: 'volumeattachments', kind: 'VolumeAttachment', singular: 'volumeattachment', strategy: volumeAttachmentStrategy }),
    entry({ ...storage, resource: 'csistoragecapacities', kind: 'CSIStorageCapacity', singular: 'csistoragecapacity', strategy: csiStorageCapacityStrategy }),
  ];
}
