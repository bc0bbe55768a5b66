// storage.k8s.io/v1 StorageClasses (cluster-scoped; DELETE answers the object).
import { nameIsDNSSubdomain } from '../../machinery/validation.js';
import { defaultStorageClass, validateStorageClass, validateStorageClassUpdate } from '../../api/storage/v1/validation.js';
import type { Strategy } from '../strategy.js';

export const storageClassStrategy: Strategy = {
  namespaced: false,
  nameValidator: nameIsDNSSubdomain,
  defaults: defaultStorageClass,
  validate: validateStorageClass,
  validateUpdate: (obj, old) => [...validateStorageClass(obj), ...validateStorageClassUpdate(obj, old)],
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  returnDeletedObject: true,
};
