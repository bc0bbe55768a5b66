// networking.k8s.io/v1 NetworkPolicies: generation 1 on create, bumped by spec changes.
import { nameIsDNSSubdomain } from '../../machinery/validation.js';
import { defaultNetworkPolicy } from '../../api/networking/v1/defaults.js';
import { validateNetworkPolicy } from '../../api/networking/v1/validation.js';
import type { Strategy } from '../strategy.js';
import { bumpGenerationOnSpecChange, generationOne } from '../strategy-helpers.js';

export const networkPolicyStrategy: Strategy = {
  namespaced: true,
  nameValidator: nameIsDNSSubdomain,
  defaults: defaultNetworkPolicy,
  prepareForCreate: generationOne,
  prepareForUpdate: (obj, old) => bumpGenerationOnSpecChange(obj, old),
  validate: validateNetworkPolicy,
  validateUpdate: (obj) => validateNetworkPolicy(obj),
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  returnDeletedObject: false,
};
