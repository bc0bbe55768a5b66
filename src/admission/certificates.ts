// The certificate plugins of kube-apiserver's default set (upstream
// plugin/pkg/admission/certificates/{approval,signing,subjectrestriction}).
//
// Contract (all validating):
// - CertificateApproval: an UPDATE of certificatesigningrequests/approval
//   needs the `approve` verb on `signers` (certificates.k8s.io) named by the
//   stored request's signerName, or by its domain with `/*`
//   (`kubernetes.io/*`): else 403 `user not permitted to approve requests
//   with signerName "x"`.
// - CertificateSigning: an UPDATE of certificatesigningrequests/status that
//   changes `status.certificate` or `status.conditions` needs `sign` the same
//   way (403 `user not permitted to sign requests with signerName "x"`).
// - CertificateSubjectRestriction: a CREATE of a request for the
//   kubernetes.io/kube-apiserver-client signer whose subject has the
//   organization system:masters is refused (403 `use of
//   kubernetes.io/kube-apiserver-client signer with system:masters group is
//   not allowed`).
// The authorizer is the server's (RBAC, or AlwaysAllow); writes without a
// user (in-process) and servers without authorization are not checked.

import { Buffer } from 'node:buffer';
import { subjectOrganizations } from '../api/certificates/v1/csr-parse.js';
import type { KubeObject } from '../machinery/meta.js';
import { forbidden } from '../machinery/errors.js';
import type { UserInfo } from '../machinery/user.js';
import type { AuthorizeFunction } from '../machinery/cel/library-authz.js';
import type { AdmissionAttributes, AdmissionPlugin } from './interface.js';
import { nameForErrors } from './resource-quota-check.js';


const GROUP = 'certificates.k8s.io';
const KUBE_APISERVER_CLIENT_SIGNER = 'kubernetes.io/kube-apiserver-client';

type Csr = KubeObject & { spec?: { signerName?: string; request?: string }; status?: { certificate?: string; conditions?: unknown[] } };

/** The store whose writes these plugins judge (AdmissionPlugin.resources). */
const CSR_RESOURCES: ReadonlySet<string> = new Set([`${GROUP}/certificatesigningrequests`]);

function isCsr(a: AdmissionAttributes, subresource: string): boolean {
  return a.resource.group === GROUP && a.resource.resource === 'certificatesigningrequests' && a.subresource === subresource;
}

function forbid(a: AdmissionAttributes, reason: string): Error {
  return forbidden({ group: a.resource.group, resource: a.resource.resource }, nameForErrors(a), reason);
}

/** Upstream's IsAuthorizedForSignerName: `verb` on certificates.k8s.io `signers`, named the signer itself, then `<domain>/*`. */
function authorizedForSigner(authorize: AuthorizeFunction, user: UserInfo, verb: string, signerName: string): boolean {
  const allowed = (name: string) =>
    authorize({ user, verb, isResourceRequest: true, path: '', namespace: '', apiGroup: GROUP, apiVersion: '*', resource: 'signers', subresource: '', name }).allowed;
  return allowed(signerName) || allowed(`${signerName.split('/')[0] ?? ''}/*`);
}

abstract class SignerVerbPlugin implements AdmissionPlugin {
  abstract readonly name: string;
  protected abstract readonly verb: string;
  protected abstract readonly subresource: string;

  constructor(private readonly authorizer: () => AuthorizeFunction | undefined) {}

  protected applies(_a: AdmissionAttributes): boolean {
    return true;
  }

  async validate(a: AdmissionAttributes): Promise<void> {
    if (a.operation !== 'UPDATE' || !isCsr(a, this.subresource) || !this.applies(a)) return;
    const authorize = this.authorizer();
    const user = a.request?.user;
    if (authorize === undefined || user === undefined) return;
    // The stored request's signer: a change of signerName through this subresource is validation's to refuse.
    const signerName = (a.oldObject as Csr | undefined)?.spec?.signerName ?? '';
    if (!authorizedForSigner(authorize, user, this.verb, signerName)) {
      throw forbid(a, `user not permitted to ${this.verb} requests with signerName ${JSON.stringify(signerName)}`);
    }
  }
}

export class CertificateApproval extends SignerVerbPlugin {
  readonly name = 'CertificateApproval';
  readonly resources: ReadonlySet<string> = CSR_RESOURCES;
  protected readonly verb = 'approve';
  protected readonly subresource = 'approval';
}

export class CertificateSigning extends SignerVerbPlugin {
  readonly name = 'CertificateSigning';
  readonly resources: ReadonlySet<string> = CSR_RESOURCES;
  protected readonly verb = 'sign';
  protected readonly subresource = 'status';

  /** Only a change of the certificate or the conditions is signing. */
  protected override applies(a: AdmissionAttributes): boolean {
    const now = (a.object as Csr | undefined)?.status;
    const old = (a.oldObject as Csr | undefined)?.status;
    return (now?.certificate ?? '') !== (old?.certificate ?? '') || JSON.stringify(now?.conditions ?? []) !== JSON.stringify(old?.conditions ?? []);
  }
}

export class CertificateSubjectRestriction implements AdmissionPlugin {
  readonly name = 'CertificateSubjectRestriction';
  readonly resources: ReadonlySet<string> = CSR_RESOURCES;

  async validate(a: AdmissionAttributes): Promise<void> {
    if (a.operation !== 'CREATE' || !isCsr(a, '')) return;
    const spec = (a.object as Csr | undefined)?.spec;
    if (spec?.signerName !== KUBE_APISERVER_CLIENT_SIGNER) return;
    const orgs = subjectOrganizations(Buffer.from(spec.request ?? '', 'base64'));
    if (orgs === undefined) throw forbid(a, 'failed to parse CSR: PEM block type must be CERTIFICATE REQUEST');
    if (orgs.includes('system:masters')) {
      throw forbid(a, `use of ${KUBE_APISERVER_CLIENT_SIGNER} signer with system:masters group is not allowed`);
    }
  }
}
