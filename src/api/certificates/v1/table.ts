// Table printers (kube-apiserver 1.32's columns and cells for `kubectl get`) of
// certificates.k8s.io/v1 CertificateSigningRequests.
import { AGE_COLUMN, column, NAME_COLUMN, objectAge, objectName, type Printer } from '../../tables/printer.js';
import { arr, at, type Obj, rec, str } from '../../tables/fields.js';
import { humanDuration } from '../../tables/duration.js';

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
    return { cells: [objectName(o), objectAge(o, now), signer, str(spec.username), duration, csrCondition(o)] };
  },
};

/** The printers by kind, for api/tables/index.ts. */
export const certificatesPrinters: Record<string, Printer> = {
  CertificateSigningRequest: certificateSigningRequestPrinter,
};
