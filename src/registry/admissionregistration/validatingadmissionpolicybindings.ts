// admissionregistration.k8s.io/v1 ValidatingAdmissionPolicyBindings
// (cluster-scoped, no status): generation 1 on create, bumped by spec changes.
import { nameIsDNSSubdomain } from '../../machinery/validation.js';
import { defaultValidatingAdmissionPolicyBinding } from '../../api/admissionregistration/v1/policy-defaults.js';
import { validateValidatingAdmissionPolicyBinding } from '../../api/admissionregistration/v1/policy-validation.js';
import type { Strategy } from '../strategy.js';
import { bumpGenerationOnSpecChange, generationOne } from '../strategy-helpers.js';

export const validatingAdmissionPolicyBindingStrategy: Strategy = {
  namespaced: false,
  nameValidator: nameIsDNSSubdomain,
  defaults: defaultValidatingAdmissionPolicyBinding,
  prepareForCreate: generationOne,
  prepareForUpdate: (obj, old) => bumpGenerationOnSpecChange(obj, old),
  validate: validateValidatingAdmissionPolicyBinding,
  validateUpdate: (obj) => validateValidatingAdmissionPolicyBinding(obj),
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  returnDeletedObject: false,
};
