// Table printers (kube-apiserver 1.32's columns and cells for `kubectl get`) of
// discovery.k8s.io/v1 EndpointSlices.
import { AGE_COLUMN, column, NAME_COLUMN, objectAge, objectName, type Printer } from '../../tables/printer.js';
import { arr, rec, str } from '../../tables/fields.js';

/** Up to three entries then "+ N more..."; "<unset>" for none (listWithMoreString). */
function listWithMore(items: string[]): string {
  const max = 3;
  if (items.length > max) return `${items.slice(0, max).join(',')} + ${items.length - max} more...`;
  return items.length === 0 ? '<unset>' : items.join(',');
}

export const endpointSlicePrinter: Printer = {
  columns: [
    NAME_COLUMN,
    column('AddressType', 'string', 'The type of the addresses in the slice.'),
    column('Ports', 'string', 'The ports the endpoints expose.'),
    column('Endpoints', 'string', 'The addresses of the endpoints.'),
    AGE_COLUMN,
  ],
  print: (o, now) => {
    const ports = arr(o.ports).map((raw) => {
      const p = rec(raw);
      if (typeof p.port === 'number') return String(p.port);
      if (typeof p.name === 'string') return p.name;
      return '*';
    });
    const addresses = arr(o.endpoints).flatMap((e) => arr(rec(e).addresses).map(String));
    return { cells: [objectName(o), str(o.addressType), listWithMore(ports), listWithMore(addresses), objectAge(o, now)] };
  },
};

/** The printers by kind, for api/tables/index.ts. */
export const discoveryPrinters: Record<string, Printer> = {
  EndpointSlice: endpointSlicePrinter,
};
