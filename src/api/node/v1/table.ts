// Table printers (kube-apiserver 1.32's columns and cells for `kubectl get`) of
// node.k8s.io/v1 RuntimeClasses.
import { AGE_COLUMN, column, NAME_COLUMN, objectAge, objectName, type Printer } from '../../tables/printer.js';
import { str } from '../../tables/fields.js';

export const runtimeClassPrinter: Printer = {
  columns: [NAME_COLUMN, column('Handler', 'string', 'The CRI handler of the class.'), AGE_COLUMN],
  print: (o, now) => ({ cells: [objectName(o), str(o.handler), objectAge(o, now)] }),
};

/** The printers by kind, for api/tables/index.ts. */
export const nodePrinters: Record<string, Printer> = {
  RuntimeClass: runtimeClassPrinter,
};
