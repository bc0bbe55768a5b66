// ReplicaSets (upstream pkg/registry/apps/replicaset/strategy.go): generation 1
// on create and bumped by spec changes, status reset on create and kept on spec
// writes, selector immutable; scale over spec.replicas.
import { nameIsDNSSubdomain } from '../../machinery/validation.js';
import { defaultReplicaSet } from '../../api/apps/v1/defaults.js';
import { validateReplicaSet, validateReplicaSetStatus, validateReplicaSetUpdate } from '../../api/apps/v1/validation.js';
import type { Strategy } from '../strategy.js';
import { fieldAt, keepStatusBumpGeneration, resetStatusAndGeneration, specSelector, specKeepingStatusSubresource } from '../strategy-helpers.js';
import { templateWarningsHooks } from '../../api/core/v1/pod-warnings.js';

export const replicaSetStrategy: Strategy = {
  namespaced: true,
  nameValidator: nameIsDNSSubdomain,
  defaults: defaultReplicaSet,
  prepareForCreate: resetStatusAndGeneration,
  prepareForUpdate: keepStatusBumpGeneration,
  validate: validateReplicaSet,
  validateUpdate: validateReplicaSetUpdate,
  ...templateWarningsHooks(true),
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  returnDeletedObject: false,
  fields: { 'status.replicas': fieldAt('status.replicas') },
  fieldLabels: ['metadata.name', 'metadata.namespace', 'status.replicas'],
  scale: { selector: specSelector },
  subresources: { status: specKeepingStatusSubresource((obj) => validateReplicaSetStatus(obj)) },
};
