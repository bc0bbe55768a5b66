// Printers for admissionregistration.k8s.io/v1 webhook configurations, as
// kube-apiserver 1.32 serves them: NAME, WEBHOOKS (how many), AGE.

import { AGE_COLUMN, NAME_COLUMN, column, type Printer } from './printer.js';
import { at, str } from './fields.js';
import { timeSince } from './duration.js';

export const webhookConfigurationPrinter: Printer = {
  columns: [NAME_COLUMN, column('Webhooks', 'integer', 'How many webhooks the configuration holds.'), AGE_COLUMN],
  print: (o, now) => {
    const hooks = at(o, 'webhooks');
    return { cells: [str(at(o, 'metadata', 'name')), Array.isArray(hooks) ? hooks.length : 0, timeSince(at(o, 'metadata', 'creationTimestamp'), now)] };
  },
};
