// events.k8s.io/v1 Events: the core events seen in the new form. The store
// for this API reads and writes core/v1 Events through a converting storage
// (../converting-store.ts, wired by the catalog's `storedAs`), so this strategy
// sees events.k8s.io/v1 objects only: strict validation on create, immutable
// fields on update, the same TTL and create-on-update as core events. Field
// selectors take events.k8s.io/v1 names (upstream's field label conversion:
// regarding.* for involvedObject.*, reportingController for
// reportingComponent; `source` stays).
import { nameIsDNSSubdomain } from '../../machinery/validation.js';
import type { KubeObject } from '../../machinery/meta.js';
import { validateEventsV1Create, validateEventsV1Update } from '../../api/events/v1/validation.js';
import type { Strategy } from '../strategy.js';
import { fieldAt } from '../strategy-helpers.js';
import { EVENT_TTL_SECONDS } from '../core/events.js';

const sourceComponent = fieldAt('deprecatedSource.component');
const reporter = fieldAt('reportingController');
function sourceOf(obj: KubeObject): string {
  const component = sourceComponent(obj);
  return component !== '' ? component : reporter(obj);
}

export const eventsV1Strategy: Strategy = {
  namespaced: true,
  nameValidator: nameIsDNSSubdomain,
  validate: validateEventsV1Create,
  validateUpdate: validateEventsV1Update,
  allowCreateOnUpdate: true,
  allowUnconditionalUpdate: true,
  returnDeletedObject: false,
  ttlSeconds: EVENT_TTL_SECONDS,
  // Events are never owners nor collected: DELETE ignores propagation policies.
  defaultGarbageCollectionPolicy: 'Unsupported',
  invalidGroup: '',
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
    source: sourceOf,
    type: fieldAt('type'),
  },
  // As upstream's events.k8s.io conversion: no "source" label (the field set still has it).
  fieldLabels: [
    'regarding.kind',
    'regarding.namespace',
    'regarding.name',
    'regarding.uid',
    'regarding.apiVersion',
    'regarding.resourceVersion',
    'regarding.fieldPath',
    'reason',
    'reportingController',
    'type',
    'metadata.namespace',
    'metadata.name',
  ],
};
