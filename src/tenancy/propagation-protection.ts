// Protection of propagated copies (HNC's object validator, in-process): an
// object labelled `hnc.x-k8s.io/inherited-from` is the hierarchy's copy of an
// ancestor's object, and nobody else may make one, change one (its content,
// labels or annotations; status and bookkeeping metadata may move) or delete
// one. Allowed: the propagation controller's own identity, the server's own
// writes (no request behind them), a server without authentication (which
// lets everyone do everything), and deletes in a namespace being deleted
// (HNC does not stand in the way of a namespace's cleanup). Refusals are 403s
// with HNC's messages. Runs in the mutating phase, so a refused write charges
// no quota.

import { forbidden } from '../machinery/errors.js';
import type { KubeObject } from '../machinery/meta.js';
import type { AdmissionAttributes, AdmissionPlugin } from '../registry/admission.js';
import { LABEL_INHERITED_FROM } from '../api/hnc/v1alpha2/types.js';

export const PROPAGATION_PROTECTION_PLUGIN = 'HierarchicalNamespacesPropagatedObjects';

/** The identity the propagation controller writes copies as (apiary serve issues it to the controller). */
export const PROPAGATION_CONTROLLER_USER = 'system:hnc-propagation-controller';

export interface PropagationProtectionView {
  /** A namespace as the watch cache holds it (undefined when it does not hold it). */
  namespace(name: string): Readonly<KubeObject> | undefined;
}

function sourceOf(obj: KubeObject | undefined): string | undefined {
  return obj?.metadata?.labels?.[LABEL_INHERITED_FROM];
}

/** The object as HNC compares copies: everything but status and metadata, plus labels and annotations. */
function canonical(obj: KubeObject): string {
  const { metadata, status: _status, ...content } = obj as KubeObject & { status?: unknown };
  return stableJson({ content, labels: metadata.labels ?? {}, annotations: metadata.annotations ?? {} });
}

function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    return `{${Object.keys(record)
      .filter((k) => record[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stableJson(record[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

export class PropagationProtection implements AdmissionPlugin {
  readonly name = PROPAGATION_PROTECTION_PLUGIN;

  constructor(private readonly view: PropagationProtectionView) {}

  async admit(a: AdmissionAttributes): Promise<void> {
    if (a.subresource !== '' && a.subresource !== 'status') return;
    const newSource = sourceOf(a.object);
    const oldSource = sourceOf(a.oldObject);
    if (newSource === undefined && oldSource === undefined) return;
    // The server's own writes, the propagation controller's, and any on a server without authentication.
    if (a.request === undefined || a.userInfo === undefined || a.userInfo.username === PROPAGATION_CONTROLLER_USER) return;
    const gr = { group: a.resource.group, resource: a.resource.resource };
    switch (a.operation) {
      case 'CREATE':
        throw forbidden(gr, a.name, `cannot create objects with the label ${JSON.stringify(LABEL_INHERITED_FROM)}`);
      case 'DELETE': {
        if (oldSource === undefined) return;
        const namespace = this.view.namespace(a.namespace);
        if (namespace === undefined || namespace.metadata.deletionTimestamp !== undefined) return;
        throw forbidden(gr, a.name, `cannot delete object propagated from namespace ${JSON.stringify(oldSource)}`);
      }
      case 'UPDATE': {
        if (newSource !== oldSource) throw forbidden(gr, a.name, `cannot modify the label ${JSON.stringify(LABEL_INHERITED_FROM)}`);
        if (a.subresource === 'status') return;
        if (canonical(a.object!) !== canonical(a.oldObject!)) {
          throw forbidden(gr, a.name, `cannot modify object propagated from namespace ${JSON.stringify(oldSource)}`);
        }
        return;
      }
      default:
        return;
    }
  }
}
