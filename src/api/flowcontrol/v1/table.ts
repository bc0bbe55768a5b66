// Table columns of FlowSchema and PriorityLevelConfiguration, as kube-apiserver
// 1.32 prints them (pkg/printers/internalversion: printFlowSchema,
// printPriorityLevelConfiguration). Descriptions are our own words.

import { AGE_COLUMN, NAME_COLUMN, column, type Printer } from '../../tables/printer.js';
import { arr, at, str, type Obj } from '../../tables/fields.js';
import { timeSince } from '../../tables/duration.js';

const name = (o: Obj): string => str(at(o, 'metadata', 'name'));
const age = (o: Obj, now: Date): string => timeSince(at(o, 'metadata', 'creationTimestamp'), now);
const intOr = (v: unknown): number | string => (typeof v === 'number' ? v : '<none>');

export const flowSchemaPrinter: Printer = {
  columns: [
    NAME_COLUMN,
    column('PriorityLevel', 'string', 'The priority level requests of this schema are served at.'),
    column('MatchingPrecedence', 'string', 'Lower values are matched first.'),
    column('DistinguisherMethod', 'string', 'How requests of this schema are split into flows.'),
    AGE_COLUMN,
    column('MissingPL', 'string', 'Whether the referenced priority level is missing or broken.'),
  ],
  print: (o, now) => {
    const method = at(o, 'spec', 'distinguisherMethod', 'type');
    let dangling = '?';
    for (const c of arr(at(o, 'status', 'conditions'))) {
      const cond = (c ?? {}) as Obj;
      if (cond.type === 'Dangling') {
        dangling = str(cond.status);
        break;
      }
    }
    const precedence = at(o, 'spec', 'matchingPrecedence');
    return {
      cells: [name(o), str(at(o, 'spec', 'priorityLevelConfiguration', 'name')), typeof precedence === 'number' ? precedence : 0, typeof method === 'string' ? method : '<none>', age(o, now), dangling],
    };
  },
  listOrder: (a, b) => {
    const pa = at(a, 'spec', 'matchingPrecedence');
    const pb = at(b, 'spec', 'matchingPrecedence');
    const byPrecedence = (typeof pa === 'number' ? pa : 0) - (typeof pb === 'number' ? pb : 0);
    if (byPrecedence !== 0) return byPrecedence;
    return name(a) < name(b) ? -1 : name(a) > name(b) ? 1 : 0;
  },
};

export const priorityLevelConfigurationPrinter: Printer = {
  columns: [
    NAME_COLUMN,
    column('Type', 'string', 'Exempt or Limited.'),
    column('NominalConcurrencyShares', 'string', 'The share of the server concurrency limit this level gets.'),
    column('Queues', 'string', 'Number of queues of this level.'),
    column('HandSize', 'string', 'Queues a flow is dealt when enqueuing.'),
    column('QueueLengthLimit', 'string', 'Requests a queue may hold.'),
    AGE_COLUMN,
  ],
  print: (o, now) => {
    const limited = at(o, 'spec', 'limited') as Obj | undefined;
    let shares: number | string = '<none>';
    let queues: number | string = '<none>';
    let handSize: number | string = '<none>';
    let qll: number | string = '<none>';
    if (limited !== undefined && limited !== null && typeof limited === 'object') {
      shares = intOr(limited.nominalConcurrencyShares);
      const q = at(limited, 'limitResponse', 'queuing') as Obj | undefined;
      if (q !== undefined && q !== null && typeof q === 'object') {
        queues = intOr(q.queues);
        handSize = intOr(q.handSize);
        qll = intOr(q.queueLengthLimit);
      }
    }
    return { cells: [name(o), str(at(o, 'spec', 'type')), shares, queues, handSize, qll, age(o, now)] };
  },
};

/** The group's printers, by kind (api/tables/index.ts lists every group's). */
export const flowcontrolPrinters: Record<string, Printer> = {
  FlowSchema: flowSchemaPrinter,
  PriorityLevelConfiguration: priorityLevelConfigurationPrinter,
};
