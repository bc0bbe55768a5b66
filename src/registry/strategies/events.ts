// core/v1 Events: kept for an hour (kube-apiserver's --event-ttl), PUT may
// create, selectable by the involved object, reason, source and type.
import { nameIsDNSSubdomain } from '../../machinery/validation.js';
import { validateEvent } from '../../api/core/v1/validation.js';
import type { Strategy } from '../strategy.js';
import { fieldAt } from './common.js';

export const EVENT_TTL_SECONDS = 3600;

export const eventStrategy: Strategy = {
  namespaced: true,
  nameValidator: nameIsDNSSubdomain,
  validate: validateEvent,
  validateUpdate: (obj) => validateEvent(obj),
  allowCreateOnUpdate: true,
  allowUnconditionalUpdate: true,
  returnDeletedObject: false,
  ttlSeconds: EVENT_TTL_SECONDS,
  fields: {
    'involvedObject.kind': fieldAt('involvedObject.kind'),
    'involvedObject.namespace': fieldAt('involvedObject.namespace'),
    'involvedObject.name': fieldAt('involvedObject.name'),
    'involvedObject.uid': fieldAt('involvedObject.uid'),
    'involvedObject.apiVersion': fieldAt('involvedObject.apiVersion'),
    'involvedObject.resourceVersion': fieldAt('involvedObject.resourceVersion'),
    'involvedObject.fieldPath': fieldAt('involvedObject.fieldPath'),
    reason: fieldAt('reason'),
    reportingComponent: fieldAt('reportingComponent'),
    source: fieldAt('source.component'),
    type: fieldAt('type'),
  },
};
