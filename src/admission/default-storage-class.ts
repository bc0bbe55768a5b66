// DefaultStorageClass admission (upstream plugin/pkg/admission/storage/
// storageclass/setdefault), in kube-apiserver's default plugin set.
//
// Contract: CREATE of a PersistentVolumeClaim that asks for no class (neither
// `spec.storageClassName`, even "", nor the beta annotation
// volume.beta.kubernetes.io/storage-class) gets the default StorageClass's
// name. A class is default when its annotation
// storageclass.kubernetes.io/is-default-class (or the beta one) is "true";
// when several are, the newest wins (then the first by name), as 1.32 picks.
// No default: the claim is left as sent. Classes are read from the watch cache.

import type { KubeObject } from '../machinery/meta.js';
import type { RESTStore } from '../registry/rest.js';
import type { AdmissionAttributes, AdmissionPlugin } from './interface.js';

export const DEFAULT_STORAGE_CLASS_PLUGIN = 'DefaultStorageClass';
const DEFAULT_ANNOTATION = 'storageclass.kubernetes.io/is-default-class';
const BETA_DEFAULT_ANNOTATION = 'storageclass.beta.kubernetes.io/is-default-class';
export const BETA_CLAIM_CLASS_ANNOTATION = 'volume.beta.kubernetes.io/storage-class';

export function isDefaultStorageClass(o: KubeObject): boolean {
  const ann = o.metadata.annotations ?? {};
  return ann[DEFAULT_ANNOTATION] === 'true' || ann[BETA_DEFAULT_ANNOTATION] === 'true';
}

/** The newest of the default-annotated objects (ties: lowest name), as upstream's storage and ingress helpers choose. */
export function newestDefault<T extends KubeObject>(items: readonly T[], isDefault: (o: T) => boolean): T | undefined {
  const time = (o: T) => Date.parse(o.metadata.creationTimestamp ?? '') || 0;
  const defaults = items.filter(isDefault);
  defaults.sort((x, y) => time(y) - time(x) || ((x.metadata.name ?? '') < (y.metadata.name ?? '') ? -1 : 1));
  return defaults[0];
}

export class DefaultStorageClass implements AdmissionPlugin {
  readonly name = DEFAULT_STORAGE_CLASS_PLUGIN;
  readonly resources: ReadonlySet<string> = new Set(['/persistentvolumeclaims']);

  constructor(private readonly classes: () => RESTStore | undefined) {}

  async admit(a: AdmissionAttributes): Promise<void> {
    if (a.operation !== 'CREATE' || a.subresource !== '' || a.resource.group !== '' || a.resource.resource !== 'persistentvolumeclaims') return;
    const pvc = a.object as (KubeObject & { spec?: { storageClassName?: string | null } }) | undefined;
    if (pvc === undefined) return;
    if (pvc.metadata.annotations?.[BETA_CLAIM_CLASS_ANNOTATION] !== undefined) return;
    if (pvc.spec?.storageClassName != null) return;
    const store = this.classes();
    if (store === undefined) return;
    const def = newestDefault((await store.list('', { resourceVersion: '0' })).items, isDefaultStorageClass);
    if (def === undefined) return;
    pvc.spec = { ...(pvc.spec ?? {}), storageClassName: def.metadata.name };
  }
}
