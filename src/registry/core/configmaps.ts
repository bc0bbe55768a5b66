// ConfigMaps: no status, no generation, data keys validated.
import { nameIsDNSSubdomain } from '../../machinery/validation.js';
import { configMapSteps, configMapUpdateSteps, validateConfigMap, validateConfigMapUpdate } from '../../api/core/v1/validation.js';
import type { Strategy } from '../strategy.js';

export const configMapStrategy: Strategy = {
  namespaced: true,
  nameValidator: nameIsDNSSubdomain,
  validate: validateConfigMap,
  validateUpdate: validateConfigMapUpdate,
  validateSteps: configMapSteps,
  validateUpdateSteps: configMapUpdateSteps,
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  returnDeletedObject: false,
};
