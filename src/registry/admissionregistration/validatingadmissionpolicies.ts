// admissionregistration.k8s.io/v1 ValidatingAdmissionPolicies (cluster-scoped):
// a status subresource written by the type-checking controller; generation 1
// on create, bumped by spec changes.
import { nameIsDNSSubdomain } from '../../machinery/validation.js';
import { defaultValidatingAdmissionPolicy } from '../../api/admissionregistration/v1/policy-defaults.js';
import {
  validateValidatingAdmissionPolicy,
  validateValidatingAdmissionPolicyStatus,
  validateValidatingAdmissionPolicyUpdate,
} from '../../api/admissionregistration/v1/policy-validation.js';
import type { Strategy } from '../strategy.js';
import { keepStatusBumpGeneration, resetStatusAndGeneration, statusSubresource } from '../strategy-helpers.js';

export const validatingAdmissionPolicyStrategy: Strategy = {
  namespaced: false,
  nameValidator: nameIsDNSSubdomain,
  defaults: defaultValidatingAdmissionPolicy,
  prepareForCreate: resetStatusAndGeneration,
  prepareForUpdate: keepStatusBumpGeneration,
  validate: validateValidatingAdmissionPolicy,
  validateUpdate: validateValidatingAdmissionPolicyUpdate,
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  returnDeletedObject: false,
  subresources: { status: statusSubresource((obj) => validateValidatingAdmissionPolicyStatus(obj)) },
};
