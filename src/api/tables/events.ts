// The event printer, shared by core/v1 Event and events.k8s.io/v1 Event
// (upstream prints both from the same internal type, so an events.k8s.io
// event is first read through the core field names: regarding → involvedObject,
// note → message, deprecated* → source/firstTimestamp/lastTimestamp/count).

import { NAME_COLUMN, column, type Printer } from './printer.js';
import { at, int, rec, str, type Obj } from './fields.js';
import { parseTimestamp, timeSince } from './duration.js';

function formatSource(event: Obj): string {
  const source = rec(event.source);
  // core/v1 names the reporter reportingComponent, events.k8s.io/v1 reportingController.
  const component = str(source.component) || str(event.reportingComponent) || str(event.reportingController);
  const host = str(source.host) || str(event.reportingInstance);
  return host === '' ? component : `${component}, ${host}`;
}

export const eventPrinter: Printer = {
  columns: [
    column('Last Seen', 'string', 'Time since the event was last observed.'),
    column('Type', 'string', 'Type of the event (Normal, Warning).'),
    column('Reason', 'string', 'Short machine-readable reason for the event.'),
    column('Object', 'string', 'Object the event is about, as kind/name.'),
    column('Subobject', 'string', 'Part of the object the event is about.', { priority: 1 }),
    column('Source', 'string', 'Component (and host) that reported the event.', { priority: 1 }),
    column('Message', 'string', 'Human-readable description of the event.'),
    column('First Seen', 'string', 'Time since the event was first observed.', { priority: 1 }),
    column('Count', 'string', 'Number of times the event was observed.', { priority: 1 }),
    { ...NAME_COLUMN, priority: 1 },
  ],
  print: (event, now) => {
    let firstSeen = timeSince(event.firstTimestamp, now);
    if (parseTimestamp(event.firstTimestamp) === undefined) firstSeen = timeSince(event.eventTime, now);
    let lastSeen = timeSince(event.lastTimestamp, now);
    if (parseTimestamp(event.lastTimestamp) === undefined) lastSeen = firstSeen;
    let count = int(event.count);
    if (event.series !== undefined && event.series !== null) {
      lastSeen = timeSince(at(event, 'series', 'lastObservedTime'), now);
      count = int(at(event, 'series', 'count'));
    } else if (count === 0) {
      // Events from the new API carry no count when seen once.
      count = 1;
    }
    const involved = rec(event.involvedObject);
    const kind = str(involved.kind).toLowerCase();
    const target = str(involved.name) !== '' ? `${kind}/${str(involved.name)}` : kind;
    return {
      cells: [
        lastSeen,
        str(event.type),
        str(event.reason),
        target,
        str(involved.fieldPath),
        formatSource(event),
        str(event.message).trim(),
        firstSeen,
        count,
        str(at(event, 'metadata', 'name')),
      ],
    };
  },
};

/** Reads an events.k8s.io/v1 Event through the core/v1 field names the printer uses. */
export function eventsV1AsCore(event: Obj): Obj {
  const out: Obj = {
    metadata: event.metadata,
    involvedObject: event.regarding,
    reason: event.reason,
    message: event.note,
    source: event.deprecatedSource,
    firstTimestamp: event.deprecatedFirstTimestamp,
    lastTimestamp: event.deprecatedLastTimestamp,
    count: event.deprecatedCount,
    type: event.type,
    eventTime: event.eventTime,
    reportingController: event.reportingController,
    reportingInstance: event.reportingInstance,
  };
  if (event.series !== undefined && event.series !== null) {
    out.series = { count: at(event, 'series', 'count'), lastObservedTime: at(event, 'series', 'lastObservedTime') };
  }
  return out;
}

export const eventsV1Printer: Printer = {
  columns: eventPrinter.columns,
  print: (event, now) => eventPrinter.print(eventsV1AsCore(event), now),
};
