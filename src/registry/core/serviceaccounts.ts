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
  // serviceaccounts/token (TokenRequest) is answered by the server's auth routes; listed here for discovery.
  subresources: {
    token: {
      prepareForUpdate: () => {
        throw new Error('serviceaccounts/token takes no updates');
      },
    },
  },
};
