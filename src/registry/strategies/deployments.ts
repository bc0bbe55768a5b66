// Deployments: generation 1 on create, bumped by spec or annotation changes;
// status reset on create and kept on spec writes; selector immutable.
import { nameIsDNSSubdomain } from '../../machinery/validation.js';
import { defaultDeployment } from '../../api/apps/v1/defaults.js';
import { validateDeployment, validateDeploymentStatus, validateDeploymentUpdate } from '../../api/apps/v1/validation.js';
import type { Strategy } from '../strategy.js';
import { formatLabelSelector } from '../../api/tables/labels.js';
import { bumpGenerationOnSpecChange, keepStatus, statusSubresource } from './common.js';

export const deploymentStrategy: Strategy = {
  namespaced: true,
  nameValidator: nameIsDNSSubdomain,
  defaults: defaultDeployment,
  prepareForCreate(obj) {
    obj.status = {};
    obj.metadata.generation = 1;
  },
  prepareForUpdate(obj, old) {
    keepStatus(obj, old);
    bumpGenerationOnSpecChange(obj, old, true);
  },
  validate: validateDeployment,
  validateUpdate: validateDeploymentUpdate,
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  returnDeletedObject: false,
  scale: { selector: (obj) => formatLabelSelector((obj['spec'] as { selector?: unknown } | undefined)?.selector) },
  subresources: { status: statusSubresource((obj) => validateDeploymentStatus(obj)) },
};
