// ReplicationControllers: generation 1 on create and bumped by spec changes;
// status reset on create and kept on spec writes; PUT may create.
import { nameIsDNSSubdomain } from '../../machinery/validation.js';
import { defaultReplicationController } from '../../api/core/v1/defaults.js';
import { validateReplicationController, validateReplicationControllerStatus } from '../../api/core/v1/validation.js';
import type { Strategy } from '../strategy.js';
import { formatLabelSelector } from '../../api/tables/labels.js';
import { fieldAt, keepStatusBumpGeneration, resetStatusAndGeneration, statusSubresource } from '../strategy-helpers.js';
import { replicationControllerWarnings } from '../../api/core/v1/pod-warnings.js';

export const replicationControllerStrategy: Strategy = {
  namespaced: true,
  nameValidator: nameIsDNSSubdomain,
  defaults: defaultReplicationController,
  prepareForCreate: resetStatusAndGeneration,
  prepareForUpdate: keepStatusBumpGeneration,
  validate: validateReplicationController,
  validateUpdate: (obj) => validateReplicationController(obj),
  ...replicationControllerWarnings,
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  returnDeletedObject: false,
  // core/v1 keeps its pre-GC default: a DELETE without a policy orphans the pods.
  defaultGarbageCollectionPolicy: 'OrphanDependents',
  fields: { 'status.replicas': fieldAt('status.replicas') },
  fieldLabels: ['metadata.name', 'metadata.namespace', 'status.replicas'],
  scale: { selector: (obj) => formatLabelSelector({ matchLabels: (obj['spec'] as { selector?: unknown } | undefined)?.selector }) },
  subresources: { status: statusSubresource((obj) => validateReplicationControllerStatus(obj)) },
};
