// events.k8s.io/v1 Events: new-style validation, same TTL and create-on-update
// as core events.
import { nameIsDNSSubdomain } from '../../machinery/validation.js';
import { validateEventsV1Event } from '../../api/events/v1/validation.js';
import type { Strategy } from '../strategy.js';
import { fieldAt } from './common.js';
import { EVENT_TTL_SECONDS } from './events.js';

export const eventsV1Strategy: Strategy = {
  namespaced: true,
  nameValidator: nameIsDNSSubdomain,
  validate: validateEventsV1Event,
  validateUpdate: (obj) => validateEventsV1Event(obj),
  allowCreateOnUpdate: true,
  allowUnconditionalUpdate: true,
  returnDeletedObject: false,
  ttlSeconds: EVENT_TTL_SECONDS,
  fields: {
    'regarding.kind': fieldAt('regarding.kind'),
    'regarding.namespace': fieldAt('regarding.namespace'),
    'regarding.name': fieldAt('regarding.name'),
    'regarding.uid': fieldAt('regarding.uid'),
    'regarding.apiVersion': fieldAt('regarding.apiVersion'),
    'regarding.resourceVersion': fieldAt('regarding.resourceVersion'),
    'regarding.fieldPath': fieldAt('regarding.fieldPath'),
    reason: fieldAt('reason'),
    reportingController: fieldAt('reportingController'),
    type: fieldAt('type'),
  },
};
