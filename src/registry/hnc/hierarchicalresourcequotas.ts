// hnc.x-k8s.io/v1alpha2 HierarchicalResourceQuotas, served as HNC's CRD declares them.
import { nameIsDNSSubdomain } from '../../machinery/validation.js';
import { validateHierarchicalResourceQuota } from '../../api/hnc/v1alpha2/validation.js';
import type { Strategy } from '../strategy.js';
import { bumpGenerationOnChange, generationOne } from './common.js';

export const hierarchicalResourceQuotaStrategy: Strategy = {
  namespaced: true,
  nameValidator: nameIsDNSSubdomain,
  prepareForCreate: generationOne,
  prepareForUpdate: bumpGenerationOnChange,
  validate: validateHierarchicalResourceQuota,
  validateUpdate: (obj) => validateHierarchicalResourceQuota(obj),
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  returnDeletedObject: false,
};
