// PersistentVolumeClaimResize admission (upstream plugin/pkg/admission/
// storage/persistentvolume/resize), in kube-apiserver's default plugin set.
//
// Contract (validate, UPDATE of a claim, not its subresources): a claim whose
// `spec.resources.requests.storage` grows must be Bound (403 `Only bound
// persistent volume claims can be expanded`) and keep a non-empty class
// (`spec.storageClassName` or the beta annotation) whose StorageClass has
// `allowVolumeExpansion: true` (403 `only dynamically provisioned pvc can be
// resized and the storageclass that provisions the pvc must support resize`).
// Shrinking or keeping the size is not this plugin's concern (validation's).

import type { KubeObject } from '../machinery/meta.js';
import { forbidden } from '../machinery/errors.js';
import { parseQuantity, type Quantity } from '../machinery/quantity.js';
import type { RESTStore } from '../registry/rest.js';
import type { AdmissionAttributes, AdmissionPlugin } from './interface.js';
import { BETA_CLAIM_CLASS_ANNOTATION } from './default-storage-class.js';
import { nameForErrors } from './resource-quota-check.js';

export const PVC_RESIZE_PLUGIN = 'PersistentVolumeClaimResize';

type Claim = KubeObject & {
  spec?: { storageClassName?: string | null; resources?: { requests?: Record<string, string> } };
  status?: { phase?: string };
};

export class PersistentVolumeClaimResize implements AdmissionPlugin {
  readonly name = PVC_RESIZE_PLUGIN;
  readonly resources: ReadonlySet<string> = new Set(['/persistentvolumeclaims']);

  constructor(private readonly classes: () => RESTStore | undefined) {}

  async validate(a: AdmissionAttributes): Promise<void> {
    if (a.operation !== 'UPDATE' || a.subresource !== '' || a.resource.group !== '' || a.resource.resource !== 'persistentvolumeclaims') return;
    const pvc = a.object as Claim | undefined;
    const old = a.oldObject as Claim | undefined;
    if (pvc === undefined || old === undefined) return;
    if (storage(pvc).cmp(storage(old)) <= 0) return;
    if (old.status?.phase !== 'Bound') throw forbid(a, 'Only bound persistent volume claims can be expanded');
    if (!(await this.allowResize(claimClass(pvc), claimClass(old)))) {
      throw forbid(a, 'only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize');
    }
  }

  private async allowResize(cls: string, oldCls: string): Promise<boolean> {
    if (cls === '' || cls !== oldCls) return false;
    const sc = this.classes()?.getCached('', cls) as (KubeObject & { allowVolumeExpansion?: boolean }) | undefined;
    return sc?.allowVolumeExpansion === true;
  }
}

function storage(c: Claim): Quantity {
  const s = c.spec?.resources?.requests?.storage;
  try {
    return parseQuantity(s === undefined ? '0' : String(s));
  } catch {
    return parseQuantity('0');
  }
}

/** The claim's class: the beta annotation first, as upstream's helper reads it. */
function claimClass(c: Claim): string {
  const beta = c.metadata.annotations?.[BETA_CLAIM_CLASS_ANNOTATION];
  if (beta !== undefined) return beta;
  return c.spec?.storageClassName ?? '';
}

function forbid(a: AdmissionAttributes, reason: string): Error {
  return forbidden({ group: a.resource.group, resource: a.resource.resource }, nameForErrors(a), reason);
}
