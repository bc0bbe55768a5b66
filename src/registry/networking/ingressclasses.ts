// networking.k8s.io/v1 IngressClasses (cluster-scoped): generation 1 on create, bumped by spec changes.
import { nameIsDNSSubdomain } from '../../machinery/validation.js';
import { defaultIngressClass } from '../../api/networking/v1/defaults.js';
import { validateIngressClass, validateIngressClassUpdate } from '../../api/networking/v1/validation.js';
import type { Strategy } from '../strategy.js';
import { bumpGenerationOnSpecChange, generationOne } from '../strategy-helpers.js';

export const ingressClassStrategy: Strategy = {
  namespaced: false,
  nameValidator: nameIsDNSSubdomain,
  defaults: defaultIngressClass,
  prepareForCreate: generationOne,
  prepareForUpdate: (obj, old) => bumpGenerationOnSpecChange(obj, old),
  validate: validateIngressClass,
  validateUpdate: validateIngressClassUpdate,
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  returnDeletedObject: false,
};
