// core/v1 Events: kept for an hour (kube-apiserver's --event-ttl), PUT may
// create, selectable by the involved object, reason, source and type.
// events.k8s.io/v1 serves the same stored objects (./events-v1.ts).
import { nameIsDNSSubdomain } from '../../machinery/validation.js';
import type { KubeObject } from '../../machinery/meta.js';
import { legacyValidateEvent } from '../../api/events/v1/validation.js';
import type { Strategy } from '../strategy.js';
import { fieldAt } from '../strategy-helpers.js';

export const EVENT_TTL_SECONDS = 3600;

/** The `source` field selector: the old source.component, else the new-style reporter. */
const sourceComponent = fieldAt('source.component');
const reporter = fieldAt('reportingComponent');
function sourceOf(obj: KubeObject): string {
  const component = sourceComponent(obj);
  return component !== '' ? component : reporter(obj);
}

export const eventStrategy: Strategy = {
  namespaced: true,
  nameValidator: nameIsDNSSubdomain,
  validate: legacyValidateEvent,
  validateUpdate: (obj) => legacyValidateEvent(obj),
  allowCreateOnUpdate: true,
  allowUnconditionalUpdate: true,
  returnDeletedObject: false,
  ttlSeconds: EVENT_TTL_SECONDS,
  // Events are never owners nor collected: DELETE ignores propagation policies.
  defaultGarbageCollectionPolicy: 'Unsupported',
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
    source: sourceOf,
    type: fieldAt('type'),
  },
  fieldLabels: [
    'involvedObject.kind',
    'involvedObject.namespace',
    'involvedObject.name',
    'involvedObject.uid',
    'involvedObject.apiVersion',
    'involvedObject.resourceVersion',
    'involvedObject.fieldPath',
    'reason',
    'reportingComponent',
    'source',
    'type',
    'metadata.namespace',
    'metadata.name',
  ],
};
