// Table printers (kube-apiserver 1.32's columns and cells for `kubectl get`) of
// coordination.k8s.io/v1 Leases.
import { AGE_COLUMN, column, NAME_COLUMN, type Printer } from '../../tables/printer.js';
import { at, str } from '../../tables/fields.js';
import { timeSince } from '../../tables/duration.js';

export const leasePrinter: Printer = {
  columns: [NAME_COLUMN, column('Holder', 'string', 'Identity of the current holder of the lease.'), AGE_COLUMN],
  print: (o, now) => ({
    cells: [str(at(o, 'metadata', 'name')), str(at(o, 'spec', 'holderIdentity')), timeSince(at(o, 'metadata', 'creationTimestamp'), now)],
  }),
};

/** The printers by kind, for api/tables/index.ts. */
export const coordinationPrinters: Record<string, Printer> = {
  Lease: leasePrinter,
};
