// ServiceAccounts: no status; PUT may create; DELETE answers with the object.
import { nameIsDNSSubdomain } from '../../machinery/validation.js';
import { validateServiceAccount } from '../../api/core/v1/validation.js';
import type { Strategy } from '../strategy.js';

export const serviceAccountStrategy: Strategy = {
  namespaced: true,
  nameValidator: nameIsDNSSubdomain,
  validate: validateServiceAccount,
  validateUpdate: (obj) => validateServiceAccount(obj),
  allowCreateOnUpdate: true,
  allowUnconditionalUpdate: true,
  returnDeletedObject: true,
};
