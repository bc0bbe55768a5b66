// storage.k8s.io/v1: storage classes, CSI drivers (generation bumped by spec
// changes), CSI nodes (named as nodes), volume attachments (status
// subresource; writes need a resourceVersion, as upstream) and CSI storage
// capacities (namespaced).
import { nameIsDNSSubdomain } from '../../machinery/validation.js';
import {
  defaultCSIDriver,
  defaultStorageClass,
  validateCSIDriver,
  validateCSIDriverUpdate,
  validateCSINode,
  validateCSINodeUpdate,
  validateCSIStorageCapacity,
  validateCSIStorageCapacityUpdate,
  validateStorageClass,
  validateStorageClassUpdate,
  validateVolumeAttachment,
  validateVolumeAttachmentCreate,
  validateVolumeAttachmentUpdate,
} from '../../api/storage/v1/validation.js';
import type { Strategy } from '../strategy.js';
import { bumpGenerationOnSpecChange, keepStatus, statusSubresource } from './common.js';

const clusterScoped = { namespaced: false, nameValidator: nameIsDNSSubdomain, allowCreateOnUpdate: false } as const;

export const storageClassStrategy: Strategy = {
  ...clusterScoped,
  defaults: defaultStorageClass,
  validate: validateStorageClass,
  validateUpdate: (obj, old) => [...validateStorageClass(obj), ...validateStorageClassUpdate(obj, old)],
  allowUnconditionalUpdate: true,
  returnDeletedObject: true,
};

export const csiDriverStrategy: Strategy = {
  ...clusterScoped,
  defaults: defaultCSIDriver,
  prepareForUpdate: (obj, old) => bumpGenerationOnSpecChange(obj, old),
  validate: validateCSIDriver,
  validateUpdate: validateCSIDriverUpdate,
  allowUnconditionalUpdate: false,
  returnDeletedObject: true,
};

export const csiNodeStrategy: Strategy = {
  ...clusterScoped,
  validate: validateCSINode,
  validateUpdate: validateCSINodeUpdate,
  allowUnconditionalUpdate: false,
  returnDeletedObject: true,
};

export const volumeAttachmentStrategy: Strategy = {
  ...clusterScoped,
  prepareForCreate(obj) {
    delete obj.status;
  },
  prepareForUpdate: keepStatus,
  validate: validateVolumeAttachmentCreate,
  validateUpdate: validateVolumeAttachmentUpdate,
  allowUnconditionalUpdate: false,
  returnDeletedObject: true,
  subresources: { status: statusSubresource((obj) => validateVolumeAttachment(obj)) },
};

export const csiStorageCapacityStrategy: Strategy = {
  namespaced: true,
  nameValidator: nameIsDNSSubdomain,
  validate: validateCSIStorageCapacity,
  validateUpdate: (obj, old) => [...validateCSIStorageCapacity(obj), ...validateCSIStorageCapacityUpdate(obj, old)],
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: false,
  returnDeletedObject: false,
};
