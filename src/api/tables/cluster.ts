// Printers for pod templates, scheduling.k8s.io priority classes, node.k8s.io
// runtime classes and certificates.k8s.io signing requests, as kube-apiserver
// 1.32 serves them (pkg/printers/internalversion).

import { AGE_COLUMN, NAME_COLUMN, column, containerCells, type Printer } from './printer.js';
import { arr, at, int, rec, str, type Obj } from './fields.js';
import { humanDuration, timeSince } from './duration.js';
import { formatLabels } from './labels.js';

const name = (o: Obj): string => str(at(o, 'metadata', 'name'));
const age = (o: Obj, now: Date): string => timeSince(at(o, 'metadata', 'creationTimestamp'), now);

export const podTemplatePrinter: Printer = {
  columns: [
    NAME_COLUMN,
    column('Containers', 'string', 'Names of each container in the template.'),
    column('Images', 'string', 'Images referenced by each container in the template.'),
    column('Pod Labels', 'string', 'The labels for the pod template.'),
  ],
  print: (o) => {
    const [containers, images] = containerCells(at(o, 'template', 'spec', 'containers'));
    return { cells: [name(o), containers, images, formatLabels(at(o, 'template', 'metadata', 'labels'))] };
  },
};

export const priorityClassPrinter: Printer = {
  columns: [
    NAME_COLUMN,
    column('Value', 'integer', 'The priority pods of the class get.'),
    column('Global-Default', 'boolean', 'Whether the class is the default for pods without one.'),
    AGE_COLUMN,
    column('PreemptionPolicy', 'string', 'Whether pods of the class may preempt others.'),
  ],
  print: (o, now) => ({ cells: [name(o), int(o.value), o.globalDefault === true, age(o, now), str(o.preemptionPolicy)] }),
};

export const runtimeClassPrinter: Printer = {
  columns: [NAME_COLUMN, column('Handler', 'string', 'The CRI handler of the class.'), AGE_COLUMN],
  print: (o, now) => ({ cells: [name(o), str(o.handler), age(o, now)] }),
};

/** Denied, else Approved, else Pending; then ",Failed" and ",Issued" (extractCSRStatus). */
function csrCondition(o: Obj): string {
  const types = new Set(arr(at(o, 'status', 'conditions')).map((c) => str(rec(c).type)));
  let status = types.has('Denied') ? 'Denied' : types.has('Approved') ? 'Approved' : 'Pending';
  if (types.has('Failed')) status += ',Failed';
  if (str(at(o, 'status', 'certificate')) !== '') status += ',Issued';
  return status;
}

export const certificateSigningRequestPrinter: Printer = {
  columns: [
    NAME_COLUMN,
    AGE_COLUMN,
    column('SignerName', 'string', 'The signer asked to sign the certificate.'),
    column('Requestor', 'string', 'The user who created the request.'),
    column('RequestedDuration', 'string', 'The validity duration asked for.'),
    column('Condition', 'string', 'Approval and issuance state of the request.'),
  ],
  print: (o, now) => {
    const spec = rec(o.spec);
    const signer = str(spec.signerName) || '<none>';
    const duration = typeof spec.expirationSeconds === 'number' ? humanDuration(spec.expirationSeconds * 1000) : '<none>';
    return { cells: [name(o), age(o, now), signer, str(spec.username), duration, csrCondition(o)] };
  },
};
