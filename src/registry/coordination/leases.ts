// Leases: no status; PUT may create (leader election's way).
import { nameIsDNSSubdomain } from '../../machinery/validation.js';
import { validateLease } from '../../api/coordination/v1/validation.js';
import type { Strategy } from '../strategy.js';

export const leaseStrategy: Strategy = {
  namespaced: true,
  nameValidator: nameIsDNSSubdomain,
  validate: validateLease,
  validateUpdate: (obj) => validateLease(obj),
  allowCreateOnUpdate: true,
  allowUnconditionalUpdate: true,
  returnDeletedObject: false,
};
