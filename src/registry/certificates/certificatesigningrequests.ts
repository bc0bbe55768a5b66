// certificates.k8s.io/v1 CertificateSigningRequests (cluster-scoped): the
// requester recorded from the authenticated user; spec fixed after create;
// conditions written through /approval, the certificate through /status, each
// stamping condition times (from the registry's clock) as upstream does.
import { pathSegmentName } from '../../machinery/validation.js';
import { formatTimestamp, type Clock } from '../../machinery/names.js';
import type { KubeObject } from '../../machinery/meta.js';
import {
  validateCertificateSigningRequest,
  validateCertificateSigningRequestApprovalUpdate,
  validateCertificateSigningRequestStatusUpdate,
  validateCertificateSigningRequestUpdate,
} from '../../api/certificates/v1/validation.js';
import type { Loose } from '../../api/loose.js';
import type { Strategy, StrategyContext, SubresourceStrategy } from '../strategy.js';
import { deepCopy } from '../../machinery/deep-copy.js';

/** Conditions without times get the current time; a transition keeps the old time when type and status are unchanged. */
function stampConditions(obj: KubeObject, old: KubeObject, clock: Clock): void {
  const now = formatTimestamp(clock());
  const before: Loose[] = (old as Loose).status?.conditions ?? [];
  for (const c of ((obj as Loose).status?.conditions ?? []) as Loose[]) {
    if (c.lastUpdateTime == null) c.lastUpdateTime = now;
    if (c.lastTransitionTime == null) {
      const same = before.find((o) => o.type === c.type && o.status === c.status && o.lastTransitionTime != null);
      c.lastTransitionTime = same?.lastTransitionTime ?? now;
    }
  }
}

/** Replaces the new object's conditions of a type by the old ones, when there are as many (preserveConditionInstances). */
function preserveConditions(obj: KubeObject, old: KubeObject, type: string): void {
  const next: Loose[] = (obj as Loose).status?.conditions ?? [];
  const prev: Loose[] = (old as Loose).status?.conditions ?? [];
  const newIdx = next.flatMap((c, i) => (c.type === type ? [i] : []));
  const oldIdx = prev.flatMap((c, i) => (c.type === type ? [i] : []));
  if (newIdx.length !== oldIdx.length) return;
  newIdx.forEach((n, i) => (next[n] = deepCopy(prev[oldIdx[i]!]!)));
}

/** The subresources change status only; metadata changes are kept, as upstream's strategies keep them (they reset spec alone). */
function keepSpec(obj: KubeObject, old: KubeObject): void {
  if (old['spec'] === undefined) delete obj['spec'];
  else obj['spec'] = deepCopy(old['spec']);
}

const csrStatus = (clock: Clock): SubresourceStrategy => ({
  prepareForUpdate(obj, old) {
    keepSpec(obj, old);
    preserveConditions(obj, old, 'Approved');
    preserveConditions(obj, old, 'Denied');
    stampConditions(obj, old, clock);
  },
  validateUpdate: validateCertificateSigningRequestStatusUpdate,
  resetFields: [['spec'], ['status', 'conditions']],
});

const csrApproval = (clock: Clock): SubresourceStrategy => ({
  prepareForUpdate(obj, old) {
    stampConditions(obj, old, clock);
    keepSpec(obj, old);
    const conditions = (obj as Loose).status?.conditions;
    const status: Loose = deepCopy((old as Loose).status ?? {});
    if (conditions === undefined) delete status.conditions;
    else status.conditions = conditions;
    obj.status = status;
  },
  validateUpdate: validateCertificateSigningRequestApprovalUpdate,
  resetFields: [['spec'], ['status', 'certificate']],
});

export function certificateSigningRequestStrategy({ clock }: StrategyContext): Strategy {
  return {
    namespaced: false,
    // ValidateCertificateRequestName accepts any name a path can carry.
    nameValidator: pathSegmentName,
    prepareForCreate(obj, user) {
      const spec: Loose = ((obj as Loose).spec ??= {});
      delete spec.username;
      delete spec.uid;
      delete spec.groups;
      delete spec.extra;
      if (user !== undefined) {
        spec.username = user.name;
        if (user.uid !== undefined && user.uid !== '') spec.uid = user.uid;
        spec.groups = [...user.groups];
        if (user.extra !== undefined && Object.keys(user.extra).length > 0) spec.extra = deepCopy(user.extra);
      }
      obj.status = {};
    },
    prepareForUpdate(obj, old) {
      obj['spec'] = deepCopy(old['spec']);
      if (old.status === undefined) delete obj.status;
      else obj.status = deepCopy(old.status);
    },
    validate: validateCertificateSigningRequest,
    validateUpdate: validateCertificateSigningRequestUpdate,
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: true,
    returnDeletedObject: false,
    // kube-apiserver 1.32 answers every CSR write without managedFields (its field manager fails on the kind).
    tracksManagedFields: false,
    fields: { 'spec.signerName': (obj) => String((obj as Loose).spec?.signerName ?? '') },
    fieldLabels: ['metadata.name', 'spec.signerName'],
    subresources: { approval: csrApproval(clock), status: csrStatus(clock) },
  };
}
