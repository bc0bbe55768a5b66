// Secrets: type defaults to Opaque and is selectable; type-specific keys required.
import { nameIsDNSSubdomain } from '../../machinery/validation.js';
import { defaultSecret } from '../../api/core/v1/defaults.js';
import { secretSteps, secretUpdateSteps, validateSecret, validateSecretUpdate } from '../../api/core/v1/validation.js';
import { secretWarnings } from '../../api/core/v1/secret-warnings.js';
import type { Strategy } from '../strategy.js';
import { fieldAt } from '../strategy-helpers.js';

export const secretStrategy: Strategy = {
  namespaced: true,
  nameValidator: nameIsDNSSubdomain,
  defaults: defaultSecret,
  validate: validateSecret,
  validateUpdate: validateSecretUpdate,
  validateSteps: secretSteps,
  validateUpdateSteps: secretUpdateSteps,
  warningsOnCreate: secretWarnings,
  warningsOnUpdate: (obj) => secretWarnings(obj),
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  returnDeletedObject: false,
  fields: { type: fieldAt('type') },
  fieldLabels: ['type', 'metadata.namespace', 'metadata.name'],
};
