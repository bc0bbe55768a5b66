// hnc.x-k8s.io/v1alpha2 HNCConfigurations, served as HNC's CRD declares them.
import { nameIsDNSSubdomain } from '../../machinery/validation.js';
import { validateHNCConfiguration } from '../../api/hnc/v1alpha2/validation.js';
import type { Strategy } from '../strategy.js';
import { bumpGenerationOnChange, generationOne } from './common.js';

export const hncConfigurationStrategy: Strategy = {
  namespaced: false,
  nameValidator: nameIsDNSSubdomain,
  prepareForCreate: generationOne,
  prepareForUpdate: bumpGenerationOnChange,
  validate: validateHNCConfiguration,
  validateUpdate: (obj) => validateHNCConfiguration(obj),
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  returnDeletedObject: false,
};
