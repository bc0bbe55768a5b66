// Table printers (kube-apiserver 1.32's columns and cells for `kubectl get`) of
// scheduling.k8s.io/v1 PriorityClasses.
import { AGE_COLUMN, column, NAME_COLUMN, objectAge, objectName, type Printer } from '../../tables/printer.js';
import { int, str } from '../../tables/fields.js';

export const priorityClassPrinter: Printer = {
  columns: [
    NAME_COLUMN,
    column('Value', 'integer', 'The priority pods of the class get.'),
    column('Global-Default', 'boolean', 'Whether the class is the default for pods without one.'),
    AGE_COLUMN,
    column('PreemptionPolicy', 'string', 'Whether pods of the class may preempt others.'),
  ],
  print: (o, now) => ({ cells: [objectName(o), int(o.value), o.globalDefault === true, objectAge(o, now), str(o.preemptionPolicy)] }),
};

/** The printers by kind, for api/tables/index.ts. */
export const schedulingPrinters: Record<string, Printer> = {
  PriorityClass: priorityClassPrinter,
};
