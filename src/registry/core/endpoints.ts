// Endpoints: no status; PUT may create (the endpoints controller's way).
import { nameIsDNSSubdomain } from '../../machinery/validation.js';
import { defaultEndpoints } from '../../api/core/v1/defaults.js';
import { validateEndpoints } from '../../api/core/v1/validation.js';
import type { Strategy } from '../strategy.js';

export const endpointsStrategy: Strategy = {
  namespaced: true,
  nameValidator: nameIsDNSSubdomain,
  defaults: defaultEndpoints,
  validate: validateEndpoints,
  validateUpdate: (obj) => validateEndpoints(obj),
  allowCreateOnUpdate: true,
  allowUnconditionalUpdate: true,
  returnDeletedObject: false,
};
