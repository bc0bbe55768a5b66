// StatefulSets (upstream pkg/registry/apps/statefulset/strategy.go): generation
// 1 on create and bumped by spec changes, status reset on create and kept on
// spec writes; scale over spec.replicas.
import { nameIsDNSSubdomain } from '../../machinery/validation.js';
import { defaultStatefulSet } from '../../api/apps/v1/defaults.js';
import { validateStatefulSet, validateStatefulSetStatus, validateStatefulSetUpdate } from '../../api/apps/v1/validation.js';
import type { Strategy } from '../strategy.js';
import { keepStatusBumpGeneration, resetStatusAndGeneration, specSelector, specKeepingStatusSubresource } from '../strategy-helpers.js';
import { statefulSetWarnings } from '../../api/core/v1/pod-warnings.js';

export const statefulSetStrategy: Strategy = {
  namespaced: true,
  nameValidator: nameIsDNSSubdomain,
  defaults: defaultStatefulSet,
  prepareForCreate: resetStatusAndGeneration,
  prepareForUpdate: keepStatusBumpGeneration,
  validate: validateStatefulSet,
  validateUpdate: validateStatefulSetUpdate,
  ...statefulSetWarnings,
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  returnDeletedObject: false,
  scale: { selector: specSelector },
  subresources: { status: specKeepingStatusSubresource(validateStatefulSetStatus) },
};
