// LimitRanges: no status; PUT may create.
import { nameIsDNSSubdomain } from '../../machinery/validation.js';
import { defaultLimitRange } from '../../api/core/v1/defaults.js';
import { validateLimitRange } from '../../api/core/v1/validation.js';
import type { Strategy } from '../strategy.js';

export const limitRangeStrategy: Strategy = {
  namespaced: true,
  nameValidator: nameIsDNSSubdomain,
  defaults: defaultLimitRange,
  validate: validateLimitRange,
  validateUpdate: (obj) => validateLimitRange(obj),
  allowCreateOnUpdate: true,
  allowUnconditionalUpdate: true,
  returnDeletedObject: false,
};
