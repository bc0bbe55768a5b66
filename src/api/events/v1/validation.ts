// events.k8s.io/v1 Event validation (upstream ValidateEventCreate for new-style events).
import type { KubeObject } from '../../../machinery/meta.js';
import { type FieldError, fieldErrors } from '../../../machinery/field-errors.js';
import { isQualifiedName } from '../../../machinery/validation.js';
import type { Event } from './types.js';

const NOTE_MAX = 1024;

export function validateEventsV1Event(obj: KubeObject): FieldError[] {
  const ev = obj as Event;
  const errs: FieldError[] = [];
  if ((ev.eventTime ?? '') === '') errs.push(fieldErrors.required('eventTime'));
  const type = ev.type ?? '';
  if (type !== 'Normal' && type !== 'Warning') errs.push(fieldErrors.invalid('type', type, `has invalid value: ${type}`));
  const controller = ev.reportingController ?? '';
  if (controller === '') errs.push(fieldErrors.required('reportingController'));
  else for (const m of isQualifiedName(controller)) errs.push(fieldErrors.invalid('reportingController', controller, m));
  const instance = ev.reportingInstance ?? '';
  if (instance === '') errs.push(fieldErrors.required('reportingInstance'));
  else if (instance.length > 128) errs.push(fieldErrors.invalid('reportingInstance', '', 'can have at most 128 characters'));
  const action = ev.action ?? '';
  if (action === '') errs.push(fieldErrors.required('action'));
  else if (action.length > 128) errs.push(fieldErrors.invalid('action', '', 'can have at most 128 characters'));
  const reason = ev.reason ?? '';
  if (reason === '') errs.push(fieldErrors.required('reason'));
  else if (reason.length > 128) errs.push(fieldErrors.invalid('reason', '', 'can have at most 128 characters'));
  if ((ev.note ?? '').length > NOTE_MAX) errs.push(fieldErrors.invalid('note', '', `can have at most ${NOTE_MAX} characters`));
  const ns = ev.metadata.namespace ?? '';
  const regardingNs = ev.regarding?.namespace ?? '';
  if (regardingNs !== '' && regardingNs !== ns) {
    errs.push(fieldErrors.invalid('regarding.namespace', regardingNs, 'does not match event.namespace'));
  }
  return errs;
}
