// Printers for networking.k8s.io/v1 (network policies, ingresses, ingress
// classes) and discovery.k8s.io/v1 endpoint slices, as kube-apiserver 1.32
// serves them (pkg/printers/internalversion).

import { AGE_COLUMN, NAME_COLUMN, column, type Printer } from './printer.js';
import { arr, at, rec, str, type Obj } from './fields.js';
import { timeSince } from './duration.js';
import { formatLabelSelector } from './labels.js';

const name = (o: Obj): string => str(at(o, 'metadata', 'name'));
const age = (o: Obj, now: Date): string => timeSince(at(o, 'metadata', 'creationTimestamp'), now);

export const networkPolicyPrinter: Printer = {
  columns: [NAME_COLUMN, column('Pod-Selector', 'string', 'The pods the policy applies to.'), AGE_COLUMN],
  // FormatLabelSelector prints an empty selector as "<none>".
  print: (o, now) => ({ cells: [name(o), formatLabelSelector(at(o, 'spec', 'podSelector') ?? {}) || '<none>', age(o, now)] }),
};

/** Up to three hosts, then "+ N more..."; "*" when no rule names one. */
function formatHosts(rules: unknown[]): string {
  const list: string[] = [];
  let more = false;
  for (const raw of rules) {
    if (list.length === 3) more = true;
    const host = str(rec(raw).host);
    if (!more && host !== '') list.push(host);
  }
  if (list.length === 0) return '*';
  return more ? `${list.join(',')} + ${rules.length - 3} more...` : list.join(',');
}

function ingressAddresses(o: Obj): string {
  const found = new Set<string>();
  for (const raw of arr(at(o, 'status', 'loadBalancer', 'ingress'))) {
    const ingress = rec(raw);
    if (str(ingress.ip) !== '') found.add(str(ingress.ip));
    else if (str(ingress.hostname) !== '') found.add(str(ingress.hostname));
  }
  // The apiserver prints the wide form: never clipped.
  return [...found].sort().join(',');
}

export const ingressPrinter: Printer = {
  columns: [
    NAME_COLUMN,
    column('Class', 'string', 'The name of the IngressClass resource that should be used for additional configuration'),
    column('Hosts', 'string', 'Hosts that incoming requests are matched against before the ingress rule'),
    column('Address', 'string', 'Address is a list containing ingress points for the load-balancer'),
    column('Ports', 'string', 'Ports of TLS configurations that open'),
    AGE_COLUMN,
  ],
  print: (o, now) => {
    const spec = rec(o.spec);
    const className = typeof spec.ingressClassName === 'string' ? spec.ingressClassName : '<none>';
    const ports = arr(spec.tls).length > 0 ? '80, 443' : '80';
    return { cells: [name(o), className, formatHosts(arr(spec.rules)), ingressAddresses(o), ports, age(o, now)] };
  },
};

export const ingressClassPrinter: Printer = {
  columns: [
    NAME_COLUMN,
    column('Controller', 'string', 'Controller that is responsible for handling this class'),
    column('Parameters', 'string', 'A reference to a resource with additional parameters'),
    AGE_COLUMN,
  ],
  print: (o, now) => {
    const p = at(o, 'spec', 'parameters');
    let parameters = '<none>';
    if (p !== undefined && p !== null) {
      const ref = rec(p);
      parameters = str(ref.kind);
      if (typeof ref.apiGroup === 'string') parameters += `.${ref.apiGroup}`;
      parameters += `/${str(ref.name)}`;
    }
    return { cells: [name(o), str(at(o, 'spec', 'controller')), parameters, age(o, now)] };
  },
};

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
    return { cells: [name(o), str(o.addressType), listWithMore(ports), listWithMore(addresses), age(o, now)] };
  },
};
