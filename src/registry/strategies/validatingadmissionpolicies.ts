// admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy (cluster-scoped,
// status subresource written by the type-checking controller; generation 1 on
// create, bumped by spec changes) and ValidatingAdmissionPolicyBinding.
import { nameIsDNSSubdomain } from '../../machinery/validation.js';
import { defaultValidatingAdmissionPolicy, defaultValidatingAdmissionPolicyBinding } from '../../api/admissionregistration/v1/policy-defaults.js';
import {
  validateValidatingAdmissionPolicy,
  validateValidatingAdmissionPolicyBinding,
  validateValidatingAdmissionPolicyStatus,
  validateValidatingAdmissionPolicyUpdate,
} from '../../api/admissionregistration/v1/policy-validation.js';
import type { Strategy } from '../strategy.js';
import { bumpGenerationOnSpecChange, keepStatus, statusSubresource } from './common.js';

export const validatingAdmissionPolicyStrategy: Strategy = {
  namespaced: false,
  nameValidator: nameIsDNSSubdomain,
  defaults: defaultValidatingAdmissionPolicy,
  prepareForCreate(obj) {
    obj.status = {};
    obj.metadata.generation = 1;
  },
  prepareForUpdate(obj, old) {
    keepStatus(obj, old);
    bumpGenerationOnSpecChange(obj, old);
  },
  validate: validateValidatingAdmissionPolicy,
  validateUpdate: validateValidatingAdmissionPolicyUpdate,
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  returnDeletedObject: false,
  subresources: { status: statusSubresource((obj) => validateValidatingAdmissionPolicyStatus(obj)) },
};

export const validatingAdmissionPolicyBindingStrategy: Strategy = {
  namespaced: false,
  nameValidator: nameIsDNSSubdomain,
  defaults: defaultValidatingAdmissionPolicyBinding,
  prepareForCreate(obj) {
    obj.metadata.generation = 1;
  },
  prepareForUpdate(obj, old) {
    bumpGenerationOnSpecChange(obj, old);
  },
  validate: validateValidatingAdmissionPolicyBinding,
  validateUpdate: (obj) => validateValidatingAdmissionPolicyBinding(obj),
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  returnDeletedObject: false,
};
