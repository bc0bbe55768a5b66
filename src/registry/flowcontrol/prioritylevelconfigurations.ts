// PriorityLevelConfigurations: cluster-scoped, with a status subresource; a
// spec change bumps generation (upstream's prioritylevelconfiguration strategy).

import { nameIsDNSSubdomain } from '../../machinery/validation.js';
import { defaultPriorityLevelConfiguration } from '../../api/flowcontrol/v1/defaults.js';
import { validatePriorityLevelConfiguration, validatePriorityLevelConfigurationStatus } from '../../api/flowcontrol/v1/validation.js';
import type { Strategy } from '../strategy.js';
import { keepStatusBumpGeneration, statusSubresource } from '../strategy-helpers.js';

export const priorityLevelConfigurationStrategy: Strategy = {
  namespaced: false,
  nameValidator: nameIsDNSSubdomain,
  defaults: defaultPriorityLevelConfiguration,
  prepareForCreate(obj) {
    obj.metadata.generation = 1;
    delete obj.status;
  },
  prepareForUpdate: keepStatusBumpGeneration,
  validate: validatePriorityLevelConfiguration,
  validateUpdate: (obj) => validatePriorityLevelConfiguration(obj),
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  returnDeletedObject: false,
  subresources: { status: statusSubresource((obj) => validatePriorityLevelConfigurationStatus(obj)) },
};
