// Table printers (kube-apiserver 1.32's columns and cells for `kubectl get`) of
// events.k8s.io/v1 Events, printed as the core Events they are.
import type { Printer } from '../../tables/printer.js';
import { at, type Obj } from '../../tables/fields.js';
import { eventPrinter } from '../../core/v1/table.js';

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

/** The printers by kind, for api/tables/index.ts. */
export const eventsPrinters: Record<string, Printer> = {
  Event: eventsV1Printer,
};
