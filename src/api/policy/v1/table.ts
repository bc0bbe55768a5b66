// Table printers (kube-apiserver 1.32's columns and cells for `kubectl get`) of
// policy/v1 PodDisruptionBudgets.
import { AGE_COLUMN, column, NAME_COLUMN, objectAge, objectName, type Printer } from '../../tables/printer.js';
import { at, int } from '../../tables/fields.js';

function intOrPercent(value: unknown): string {
  return value === undefined || value === null ? 'N/A' : String(value);
}

export const podDisruptionBudgetPrinter: Printer = {
  columns: [
    NAME_COLUMN,
    column('Min Available', 'string', 'Pods that must stay available.'),
    column('Max Unavailable', 'string', 'Pods that may be unavailable.'),
    column('Allowed Disruptions', 'integer', 'Disruptions allowed now.'),
    AGE_COLUMN,
  ],
  print: (o, now) => ({
    cells: [objectName(o), intOrPercent(at(o, 'spec', 'minAvailable')), intOrPercent(at(o, 'spec', 'maxUnavailable')), int(at(o, 'status', 'disruptionsAllowed')), objectAge(o, now)],
  }),
};

/** The printers by kind, for api/tables/index.ts. */
export const policyPrinters: Record<string, Printer> = {
  PodDisruptionBudget: podDisruptionBudgetPrinter,
};
