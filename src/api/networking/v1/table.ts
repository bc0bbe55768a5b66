// Table printers (kube-apiserver 1.32's columns and cells for `kubectl get`) of
// networking.k8s.io/v1 kinds.
import { AGE_COLUMN, column, NAME_COLUMN, objectAge, objectName, type Printer } from '../../tables/printer.js';
import { arr, at, type Obj, rec, str } from '../../tables/fields.js';
import { formatLabelSelector } from '../../tables/labels.js';

export const networkPolicyPrinter: Printer = {
  columns: [NAME_COLUMN, column('Pod-Selector', 'string', 'The pods the policy applies to.'), AGE_COLUMN],
  // FormatLabelSelector prints an empty selector as "<none>".
  print: (o, now) => ({ cells: [objectName(o), formatLabelSelector(at(o, 'spec', 'podSelector') ?? {}) || '<none>', objectAge(o, now)] }),
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
    return { cells: [objectName(o), className, formatHosts(arr(spec.rules)), ingressAddresses(o), ports, objectAge(o, now)] };
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
    return { cells: [objectName(o), str(at(o, 'spec', 'controller')), parameters, objectAge(o, now)] };
  },
};

/** The printers by kind, for api/tables/index.ts. */
export const networkingPrinters: Record<string, Printer> = {
  NetworkPolicy: networkPolicyPrinter,
  Ingress: ingressPrinter,
  IngressClass: ingressClassPrinter,
};
