// node.k8s.io/v1 RuntimeClasses (cluster-scoped, no status).
import { nameIsDNSSubdomain } from '../../machinery/validation.js';
import { validateRuntimeClass, validateRuntimeClassUpdate } from '../../api/node/v1/runtime-classes.js';
import type { Strategy } from '../strategy.js';

export const runtimeClassStrategy: Strategy = {
  namespaced: false,
  nameValidator: nameIsDNSSubdomain,
  validate: validateRuntimeClass,
  validateUpdate: (obj, old) => [...validateRuntimeClass(obj), ...validateRuntimeClassUpdate(obj, old)],
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  returnDeletedObject: false,
};
