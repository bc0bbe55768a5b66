// storage.k8s.io/v1 CSIStorageCapacities (namespaced); writes need a resourceVersion.
import { nameIsDNSSubdomain } from '../../machinery/validation.js';
import { validateCSIStorageCapacity, validateCSIStorageCapacityUpdate } from '../../api/storage/v1/validation.js';
import type { Strategy } from '../strategy.js';

export const csiStorageCapacityStrategy: Strategy = {
  namespaced: true,
  nameValidator: nameIsDNSSubdomain,
  validate: validateCSIStorageCapacity,
  validateUpdate: (obj, old) => [...validateCSIStorageCapacity(obj), ...validateCSIStorageCapacityUpdate(obj, old)],
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: false,
  returnDeletedObject: false,
};
