// hnc.x-k8s.io/v1alpha2 HierarchyConfigurations, served as HNC's CRD declares them.
import { nameIsDNSSubdomain } from '../../machinery/validation.js';
import { validateHierarchyConfiguration } from '../../api/hnc/v1alpha2/validation.js';
import type { Strategy } from '../strategy.js';
import { bumpGenerationOnChange, generationOne } from './common.js';

export const hierarchyConfigurationStrategy: Strategy = {
  namespaced: true,
  nameValidator: nameIsDNSSubdomain,
  prepareForCreate: generationOne,
  prepareForUpdate: bumpGenerationOnChange,
  validate: validateHierarchyConfiguration,
  validateUpdate: (obj) => validateHierarchyConfiguration(obj),
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  returnDeletedObject: false,
};
