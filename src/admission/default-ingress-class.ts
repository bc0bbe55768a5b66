// DefaultIngressClass admission (upstream plugin/pkg/admission/network/
// defaultingressclass), in kube-apiserver's default plugin set.
//
// Contract: CREATE of an Ingress that names no class (no
// `spec.ingressClassName`, no kubernetes.io/ingress.class annotation) gets
// the default IngressClass's name: the one annotated
// ingressclass.kubernetes.io/is-default-class "true", the newest when several
// are (then the first by name). No default: left as sent. Classes are read
// from the watch cache.

import type { KubeObject } from '../machinery/meta.js';
import type { RESTStore } from '../registry/rest.js';
import type { AdmissionAttributes, AdmissionPlugin } from './interface.js';
import { newestDefault } from './default-storage-class.js';

export const DEFAULT_INGRESS_CLASS_PLUGIN = 'DefaultIngressClass';
const DEFAULT_ANNOTATION = 'ingressclass.kubernetes.io/is-default-class';
const CLASS_ANNOTATION = 'kubernetes.io/ingress.class';

export class DefaultIngressClass implements AdmissionPlugin {
  readonly name = DEFAULT_INGRESS_CLASS_PLUGIN;
  readonly resources: ReadonlySet<string> = new Set(['networking.k8s.io/ingresses']);

  constructor(private readonly classes: () => RESTStore | undefined) {}

  async admit(a: AdmissionAttributes): Promise<void> {
    if (a.operation !== 'CREATE' || a.subresource !== '' || a.resource.group !== 'networking.k8s.io' || a.resource.resource !== 'ingresses') return;
    const ing = a.object as (KubeObject & { spec?: { ingressClassName?: string | null } }) | undefined;
    if (ing === undefined || ing.spec?.ingressClassName != null) return;
    if (ing.metadata.annotations?.[CLASS_ANNOTATION] !== undefined) return;
    const store = this.classes();
    if (store === undefined) return;
    const items = (await store.list('', { resourceVersion: '0' })).items;
    const def = newestDefault(items, (c) => c.metadata.annotations?.[DEFAULT_ANNOTATION] === 'true');
    if (def === undefined) return;
    ing.spec = { ...(ing.spec ?? {}), ingressClassName: def.metadata.name };
  }
}
