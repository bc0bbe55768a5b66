// networking.k8s.io/v1 Ingresses: generation 1 on create, bumped by spec
// changes; a status subresource for the load balancer addresses.
import { nameIsDNSSubdomain } from '../../machinery/validation.js';
import { validateIngress, validateIngressCreate, validateIngressStatus } from '../../api/networking/v1/validation.js';
import type { Strategy } from '../strategy.js';
import { keepStatusBumpGeneration, statusSubresource } from '../strategy-helpers.js';

export const ingressStrategy: Strategy = {
  namespaced: true,
  nameValidator: nameIsDNSSubdomain,
  prepareForCreate(obj) {
    delete obj.status;
    obj.metadata.generation = 1;
  },
  prepareForUpdate: keepStatusBumpGeneration,
  validate: validateIngressCreate,
  validateUpdate: (obj) => validateIngress(obj),
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  returnDeletedObject: false,
  subresources: { status: statusSubresource((obj) => validateIngressStatus(obj)) },
};
