// networking.k8s.io/v1: network policies and ingress classes (generation 1
// on create, bumped by spec changes) and ingresses (the same, plus a status
// subresource for the load balancer addresses).
import { nameIsDNSSubdomain } from '../../machinery/validation.js';
import type { KubeObject } from '../../machinery/meta.js';
import { defaultIngressClass, defaultNetworkPolicy } from '../../api/networking/v1/defaults.js';
import {
  validateIngress,
  validateIngressClass,
  validateIngressClassUpdate,
  validateIngressCreate,
  validateIngressStatus,
  validateNetworkPolicy,
} from '../../api/networking/v1/validation.js';
import type { Strategy } from '../strategy.js';
import { bumpGenerationOnSpecChange, keepStatus, statusSubresource } from './common.js';

const generationOne = (obj: KubeObject): void => {
  obj.metadata.generation = 1;
};

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

export const ingressStrategy: Strategy = {
  namespaced: true,
  nameValidator: nameIsDNSSubdomain,
  prepareForCreate(obj) {
    delete obj.status;
    obj.metadata.generation = 1;
  },
  prepareForUpdate(obj, old) {
    keepStatus(obj, old);
    bumpGenerationOnSpecChange(obj, old);
  },
  validate: validateIngressCreate,
  validateUpdate: (obj) => validateIngress(obj),
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  returnDeletedObject: false,
  subresources: { status: statusSubresource((obj) => validateIngressStatus(obj)) },
};

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
