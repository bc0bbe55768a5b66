// Event validation by request version (upstream pkg/apis/core/validation/events.go).
//
// Both API versions store one object (the core/v1 form, see ./conversion.ts),
// and upstream validates that internal form, so errors name core/v1 field paths
// (involvedObject.namespace, message, firstTimestamp) whichever API was used:
// - legacyValidateEvent: every write, both APIs (core/v1 adds nothing more).
// - validateEventsV1Create / validateEventsV1Update: events.k8s.io/v1 writes,
//   given the events.k8s.io/v1 form: legacy rules plus the strict ones (a
//   required eventTime, type Normal|Warning, deprecated fields unset; on update,
//   every field but series and metadata immutable).
// ObjectMeta rules run in the generic store, not here.

import type { KubeObject } from '../../../machinery/meta.js';
import { type FieldError, fieldErrors } from '../../../machinery/field-errors.js';
import { FIELD_IMMUTABLE_ERROR_MSG, isDNS1123Subdomain, isQualifiedName } from '../../../machinery/validation.js';
import type { Event as CoreEvent } from '../../core/v1/types.js';
import { eventToCore } from './conversion.js';

const REPORTING_INSTANCE_MAX = 128;
const ACTION_MAX = 128;
const REASON_MAX = 128;
const NOTE_MAX = 1024;

const isZeroTime = (t: string | null | undefined): boolean => t === undefined || t === null || t === '';

/** The rules every Event passes, on its core/v1 form. */
export function legacyValidateEvent(obj: KubeObject): FieldError[] {
  const ev = obj as CoreEvent;
  const errs: FieldError[] = [];
  const ns = ev.metadata.namespace ?? '';
  const involvedNs = ev.involvedObject?.namespace ?? '';
  const mismatch = (): FieldError => fieldErrors.invalid('involvedObject.namespace', involvedNs, 'does not match event.namespace');
  if (isZeroTime(ev.eventTime)) {
    // An old-style event: its namespace follows the involved object's ("default" for cluster-scoped ones).
    if (involvedNs === '') {
      if (ns !== '' && ns !== 'default') errs.push(mismatch());
    } else if (ns !== involvedNs) {
      errs.push(mismatch());
    }
  } else {
    if (involvedNs === '' && ns !== 'default' && ns !== 'kube-system') errs.push(mismatch());
    const controller = ev.reportingComponent ?? '';
    if (controller === '') errs.push(fieldErrors.required('reportingController'));
    for (const m of isQualifiedName(controller)) errs.push(fieldErrors.invalid('reportingController', controller, m));
    const instance = ev.reportingInstance ?? '';
    if (instance === '') errs.push(fieldErrors.required('reportingInstance'));
    if (instance.length > REPORTING_INSTANCE_MAX) {
      errs.push(fieldErrors.invalid('reportingInstance', '', `can have at most ${REPORTING_INSTANCE_MAX} characters`));
    }
    const action = ev.action ?? '';
    if (action === '') errs.push(fieldErrors.required('action'));
    if (action.length > ACTION_MAX) errs.push(fieldErrors.invalid('action', '', `can have at most ${ACTION_MAX} characters`));
    const reason = ev.reason ?? '';
    if (reason === '') errs.push(fieldErrors.required('reason'));
    if (reason.length > REASON_MAX) errs.push(fieldErrors.invalid('reason', '', `can have at most ${REASON_MAX} characters`));
    if ((ev.message ?? '').length > NOTE_MAX) errs.push(fieldErrors.invalid('message', '', `can have at most ${NOTE_MAX} characters`));
  }
  if (ns !== '') for (const m of isDNS1123Subdomain(ns)) errs.push(fieldErrors.invalid('namespace', ns, m));
  return errs;
}

function validateSeries(ev: CoreEvent): FieldError[] {
  if (ev.series === undefined || ev.series === null) return [];
  const errs: FieldError[] = [];
  if ((ev.series.count ?? 0) < 2) errs.push(fieldErrors.invalid('series.count', '', 'should be at least 2'));
  if (isZeroTime(ev.series.lastObservedTime)) errs.push(fieldErrors.required('series.lastObservedTime'));
  return errs;
}

/** A create through events.k8s.io/v1 (`obj` in that form). */
export function validateEventsV1Create(obj: KubeObject): FieldError[] {
  const ev = eventToCore(obj);
  const errs = [...legacyValidateEvent(ev), ...validateSeries(ev)];
  if (isZeroTime(ev.eventTime)) errs.push(fieldErrors.required('eventTime'));
  const type = ev.type ?? '';
  if (type !== 'Normal' && type !== 'Warning') errs.push(fieldErrors.invalid('type', '', `has invalid value: ${type}`));
  if (!isZeroTime(ev.firstTimestamp)) errs.push(fieldErrors.invalid('firstTimestamp', '', 'needs to be unset'));
  if (!isZeroTime(ev.lastTimestamp)) errs.push(fieldErrors.invalid('lastTimestamp', '', 'needs to be unset'));
  if ((ev.count ?? 0) !== 0) errs.push(fieldErrors.invalid('count', '', 'needs to be unset'));
  if ((ev.source?.component ?? '') !== '' || (ev.source?.host ?? '') !== '') {
    errs.push(fieldErrors.invalid('source', '', 'needs to be unset'));
  }
  return errs;
}

/** Fields an events.k8s.io/v1 update may not change (core/v1 names), with each one's zero value. */
const IMMUTABLE: readonly (readonly [keyof CoreEvent & string, unknown])[] = [
  ['involvedObject', {}],
  ['reason', ''],
  ['message', ''],
  ['source', {}],
  ['firstTimestamp', null],
  ['lastTimestamp', null],
  ['count', 0],
  ['type', ''],
  ['eventTime', null],
  ['action', ''],
  ['related', null],
  ['reportingComponent', ''],
  ['reportingInstance', ''],
];

/** An update through events.k8s.io/v1 (both objects in that form). */
export function validateEventsV1Update(obj: KubeObject, old: KubeObject): FieldError[] {
  const ev = eventToCore(obj);
  const was = eventToCore(old);
  const errs = legacyValidateEvent(ev);
  if (!sameValue(ev.series, was.series, null)) errs.push(...validateSeries(ev));
  for (const [field, zero] of IMMUTABLE) {
    if (!sameValue(ev[field], was[field], zero)) {
      // The internal field is ReportingController; upstream's path says so.
      const path = field === 'reportingComponent' ? 'reportingController' : field;
      errs.push(fieldErrors.invalid(path, ev[field] ?? zero, FIELD_IMMUTABLE_ERROR_MSG));
    }
  }
  return errs;
}

/** Semantic equality: absent, null, '' and the zero value are one value, as in the Go struct. */
function sameValue(a: unknown, b: unknown, zero: unknown): boolean {
  const norm = (v: unknown): string => canonical(v === undefined || v === null || v === '' ? zero : v);
  return norm(a) === norm(b);
}

function canonical(v: unknown): string {
  return JSON.stringify(v, (_k, value: unknown) => {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
    const sorted: Record<string, unknown> = {};
    for (const key of Object.keys(value as Record<string, unknown>).sort()) {
      const inner = (value as Record<string, unknown>)[key];
      // Omitted and empty fields of a struct are the same value.
      if (inner !== undefined && inner !== '' && inner !== null) sorted[key] = inner;
    }
    return sorted;
  });
}
