// Deployments: generation 1 on create, bumped by spec or annotation changes;
// status reset on create and kept on spec writes; selector immutable.
import { nameIsDNSSubdomain } from '../../machinery/validation.js';
import { defaultDeployment } from '../../api/apps/v1/defaults.js';
import { validateDeployment, validateDeploymentStatusUpdate, validateDeploymentUpdate } from '../../api/apps/v1/validation.js';
import { deepCopy } from '../../machinery/deep-copy.js';
import type { Strategy } from '../strategy.js';
import { bumpGenerationOnSpecChange, keepStatus, resetStatusAndGeneration, specSelector } from '../strategy-helpers.js';
import { templateWarningsHooks } from '../../api/core/v1/pod-warnings.js';

export const deploymentStrategy: Strategy = {
  namespaced: true,
  nameValidator: nameIsDNSSubdomain,
  defaults: defaultDeployment,
  prepareForCreate: resetStatusAndGeneration,
  prepareForUpdate(obj, old) {
    keepStatus(obj, old);
    bumpGenerationOnSpecChange(obj, old, true);
  },
  validate: validateDeployment,
  validateUpdate: validateDeploymentUpdate,
  ...templateWarningsHooks(true),
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  returnDeletedObject: false,
  scale: { selector: specSelector },
  subresources: {
    // Upstream's deploymentStatusStrategy: spec and labels stay as stored; the
    // write's other metadata changes (annotations, …) are kept with its status.
    status: {
      prepareForUpdate(obj, old) {
        obj['spec'] = deepCopy(old['spec']);
        if (old.metadata.labels !== undefined) obj.metadata.labels = deepCopy(old.metadata.labels);
        else delete obj.metadata.labels;
      },
      validateUpdate: validateDeploymentStatusUpdate,
      resetFields: [['spec'], ['metadata', 'labels']],
    },
  },
};
