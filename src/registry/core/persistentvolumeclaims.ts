// PersistentVolumeClaims: status starts Pending (no provisioner binds it here)
// and is kept on spec writes; /status writes it.
import { nameIsDNSSubdomain } from '../../machinery/validation.js';
import {
  defaultPersistentVolumeClaim,
  validatePersistentVolumeClaim,
  validatePersistentVolumeClaimUpdate,
} from '../../api/core/v1/pvc-validation.js';
import type { PersistentVolumeClaim } from '../../api/core/v1/types.js';
import type { Strategy } from '../strategy.js';
import { keepStatus, statusSubresource } from '../strategy-helpers.js';

export const persistentVolumeClaimStrategy: Strategy = {
  namespaced: true,
  nameValidator: nameIsDNSSubdomain,
  defaults: defaultPersistentVolumeClaim,
  prepareForCreate(obj) {
    // Upstream clears status, then the decoder's defaults set phase Pending.
    (obj as PersistentVolumeClaim).status = { phase: 'Pending' };
  },
  prepareForUpdate: keepStatus,
  validate: validatePersistentVolumeClaim,
  validateUpdate: validatePersistentVolumeClaimUpdate,
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  returnDeletedObject: true,
  subresources: { status: statusSubresource() },
};
