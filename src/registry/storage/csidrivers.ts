// storage.k8s.io/v1 CSIDrivers (cluster-scoped): generation bumped by spec
// changes; writes need a resourceVersion, as upstream.
import { nameIsDNSSubdomain } from '../../machinery/validation.js';
import { defaultCSIDriver, validateCSIDriver, validateCSIDriverUpdate } from '../../api/storage/v1/validation.js';
import type { Strategy } from '../strategy.js';
import { bumpGenerationOnSpecChange } from '../strategy-helpers.js';

export const csiDriverStrategy: Strategy = {
  namespaced: false,
  nameValidator: nameIsDNSSubdomain,
  defaults: defaultCSIDriver,
  prepareForUpdate: (obj, old) => bumpGenerationOnSpecChange(obj, old),
  validate: validateCSIDriver,
  validateUpdate: validateCSIDriverUpdate,
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: false,
  returnDeletedObject: true,
};
