// scheduling.k8s.io/v1 PriorityClasses (cluster-scoped): the system ones may not be deleted.
import { nameIsDNSSubdomain } from '../../machinery/validation.js';
import { forbidden } from '../../machinery/errors.js';
import {
  defaultPriorityClass,
  isSystemPriorityClass,
  validatePriorityClass,
  validatePriorityClassUpdate,
} from '../../api/scheduling/v1/priority-classes.js';
import type { Strategy } from '../strategy.js';
import { generationOne } from '../strategy-helpers.js';

export const priorityClassStrategy: Strategy = {
  namespaced: false,
  nameValidator: nameIsDNSSubdomain,
  defaults: defaultPriorityClass,
  prepareForCreate: generationOne,
  validate: validatePriorityClass,
  validateUpdate: validatePriorityClassUpdate,
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  returnDeletedObject: false,
  refuseDelete(name) {
    return isSystemPriorityClass(name)
      ? forbidden({ group: 'scheduling.k8s.io', resource: 'priorityclasses' }, name, 'this is a system priority class and cannot be deleted')
      : undefined;
  },
};
