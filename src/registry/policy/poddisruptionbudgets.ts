// PodDisruptionBudgets (upstream pkg/registry/policy/poddisruptionbudget):
// generation 1 on create and bumped by spec changes, status reset on create and
// kept on spec writes; /status is where evictions take from the budget.
import { nameIsDNSSubdomain } from '../../machinery/validation.js';
import { validatePodDisruptionBudget, validatePodDisruptionBudgetStatus } from '../../api/policy/v1/validation.js';
import type { Strategy } from '../strategy.js';
import { keepStatusBumpGeneration, resetStatusAndGeneration, statusSubresource } from '../strategy-helpers.js';

export const podDisruptionBudgetStrategy: Strategy = {
  namespaced: true,
  nameValidator: nameIsDNSSubdomain,
  prepareForCreate: resetStatusAndGeneration,
  prepareForUpdate: keepStatusBumpGeneration,
  validate: validatePodDisruptionBudget,
  validateUpdate: (obj) => validatePodDisruptionBudget(obj),
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  returnDeletedObject: false,
  subresources: { status: statusSubresource((obj) => validatePodDisruptionBudgetStatus(obj)) },
};
