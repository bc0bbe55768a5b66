// events.k8s.io/v1 Event ⇄ core/v1 Event: one stored object, two wire forms
// (upstream pkg/apis/events/v1/conversion.go through the internal type).
//
// Contract:
// - Renamed fields: regarding ⇄ involvedObject, note ⇄ message,
//   deprecatedSource ⇄ source, deprecatedFirstTimestamp ⇄ firstTimestamp,
//   deprecatedLastTimestamp ⇄ lastTimestamp, deprecatedCount ⇄ count,
//   reportingController ⇄ reportingComponent (core/v1's JSON name of the
//   internal ReportingController).
// - Shared fields keep their names: eventTime, series, reportingInstance,
//   action, reason, related, type.
// - metadata is carried over (shallowly copied); apiVersion/kind are set to the
//   target form. Fields neither form knows are dropped; the result then gets
//   the zero values Go's encode prints for the target form (zero-values.ts:
//   `deprecatedSource: {}`, `reportingComponent: ""`, null times) and loses
//   the omitempty scalars it leaves out (`reportingController: ""`). The input
//   is never changed; nested values are shared (stored events already carry
//   their nested zero values, so filling adds nothing inside them).
// - Fields appear in upstream's struct order, so encoded objects read the same.

import type { KubeObject } from '../../../machinery/meta.js';
import type { Event as CoreEvent } from '../../core/v1/types.js';
import type { Event } from './types.js';
import { fillZeroValues } from '../../schema/zero-values.js';

/** [core/v1 name, events.k8s.io/v1 name], in core/v1's field order. */
const CORE_TO_V1: readonly (readonly [string, string])[] = [
  ['involvedObject', 'regarding'],
  ['reason', 'reason'],
  ['message', 'note'],
  ['source', 'deprecatedSource'],
  ['firstTimestamp', 'deprecatedFirstTimestamp'],
  ['lastTimestamp', 'deprecatedLastTimestamp'],
  ['count', 'deprecatedCount'],
  ['type', 'type'],
  ['eventTime', 'eventTime'],
  ['series', 'series'],
  ['action', 'action'],
  ['related', 'related'],
  ['reportingComponent', 'reportingController'],
  ['reportingInstance', 'reportingInstance'],
];

/** events.k8s.io/v1's field order. */
const V1_ORDER = [
  'eventTime',
  'series',
  'reportingController',
  'reportingInstance',
  'action',
  'reason',
  'regarding',
  'related',
  'note',
  'type',
  'deprecatedSource',
  'deprecatedFirstTimestamp',
  'deprecatedLastTimestamp',
  'deprecatedCount',
] as const;

const V1_TO_CORE = new Map(CORE_TO_V1.map(([core, v1]) => [v1, core]));

/** The core/v1 form of an events.k8s.io/v1 Event. */
export function eventToCore(input: KubeObject): CoreEvent {
  const out: CoreEvent = { apiVersion: 'v1', kind: 'Event', metadata: { ...input.metadata } };
  for (const [core, v1] of CORE_TO_V1) {
    const value = input[v1];
    if (value !== undefined) out[core] = value;
  }
  fillZeroValues('', 'v1', 'Event', out, { dropZeroScalars: true });
  return out;
}

/** The events.k8s.io/v1 form of a core/v1 Event. */
export function eventFromCore(input: KubeObject): Event {
  const out: KubeObject = { apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { ...input.metadata } };
  for (const v1 of V1_ORDER) {
    const value = input[V1_TO_CORE.get(v1)!];
    if (value !== undefined) out[v1] = value;
  }
  fillZeroValues('events.k8s.io', 'v1', 'Event', out, { dropZeroScalars: true });
  return out as Event;
}
