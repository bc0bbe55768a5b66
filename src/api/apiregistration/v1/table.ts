// Table columns of APIServices as kube-aggregator 1.32 prints them (its
// registry's ConvertToTable): NAME, SERVICE ("Local" or namespace/name),
// AVAILABLE (the condition's status, with its reason when not True), AGE.
// Descriptions are our own words.

import { AGE_COLUMN, NAME_COLUMN, column, type Printer } from '../../tables/printer.js';
import { at, str, type Obj } from '../../tables/fields.js';
import { timeSince } from '../../tables/duration.js';
import { availableCondition } from './types.js';

export const apiServicePrinter: Printer = {
  columns: [
    NAME_COLUMN,
    column('Service', 'string', 'The Service (namespace/name) of the extension server, or Local.'),
    column('Available', 'string', 'The Available condition, with its reason when not True.'),
    AGE_COLUMN,
  ],
  print: (o, now) => {
    const service = at(o, 'spec', 'service') as Obj | null | undefined;
    const where = service === undefined || service === null ? 'Local' : `${str(service['namespace'])}/${str(service['name'])}`;
    const condition = availableCondition(o);
    let available = 'Unknown';
    if (condition !== undefined) {
      available = condition.status !== 'True' && (condition.reason ?? '') !== '' ? `${condition.status} (${condition.reason})` : condition.status;
    }
    return { cells: [str(at(o, 'metadata', 'name')), where, available, timeSince(at(o, 'metadata', 'creationTimestamp'), now)] };
  },
};

export const apiregistrationPrinters: Record<string, Printer> = { APIService: apiServicePrinter };
