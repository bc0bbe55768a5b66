// The /scale subresource of custom resources (upstream's
// pkg/registry/customresource/etcd.go ScaleREST): an autoscaling/v1 Scale
// whose spec.replicas lives at the CRD's specReplicasPath, status.replicas at
// statusReplicasPath and status.selector at labelSelectorPath. A write
// changes only the replicas of the main resource (so its generation moves as
// for any spec change). The handlers reach it through RESTStore.getScale,
// updateScale and applyScale, as for built-in kinds; an apply goes through the
// generic store's (the replicas at specReplicasPath, owned by an Apply entry
// with subresource "scale", conflicts shown on the Scale's .spec.replicas).

import type { KubeObject } from '../machinery/meta.js';
import { fieldErrors } from '../machinery/field-errors.js';
import { badRequest, invalid } from '../machinery/errors.js';
import { GenericStore, type GenericStoreOptions } from '../registry/generic-store.js';
import type { WriteOptions } from '../registry/rest.js';
import type { CustomResourceSubresourceScale } from './types.js';
import { readJsonPath } from './custom-resource.js';
import { deepCopy } from '../machinery/deep-copy.js';

function setJsonPath(obj: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.replace(/^\./, '').split('.');
  let node = obj;
  for (const p of parts.slice(0, -1)) {
    const next = node[p];
    if (typeof next !== 'object' || next === null || Array.isArray(next)) node[p] = {};
    node = node[p] as Record<string, unknown>;
  }
  node[parts[parts.length - 1]!] = value;
}

/** A Scale's replicas: a whole number, not negative (upstream's Scale validation). */
function checkReplicas(replicas: unknown, name: string): void {
  if (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0) {
    throw invalid('autoscaling', 'Scale', name, [fieldErrors.invalid('spec.replicas', replicas, 'must be greater than or equal to 0')]);
  }
}

/** A custom resource store with the scale subresource. */
export class ScalableStore extends GenericStore {
  private readonly scalePaths: CustomResourceSubresourceScale;

  constructor(options: GenericStoreOptions, scale: CustomResourceSubresourceScale) {
    super(options);
    this.scalePaths = scale;
  }

  private scaleOf(obj: KubeObject): KubeObject {
    const meta: KubeObject['metadata'] = {};
    for (const k of ['name', 'namespace', 'uid', 'resourceVersion', 'creationTimestamp'] as const) {
      if (obj.metadata[k] !== undefined) (meta as Record<string, unknown>)[k] = obj.metadata[k];
    }
    const specReplicas = readJsonPath(obj, this.scalePaths.specReplicasPath ?? '');
    const statusReplicas = readJsonPath(obj, this.scalePaths.statusReplicasPath ?? '');
    const selector = this.scalePaths.labelSelectorPath ? readJsonPath(obj, this.scalePaths.labelSelectorPath) : undefined;
    const status: Record<string, unknown> = { replicas: typeof statusReplicas === 'number' ? statusReplicas : 0 };
    if (typeof selector === 'string' && selector !== '') status['selector'] = selector;
    return {
      kind: 'Scale',
      apiVersion: 'autoscaling/v1',
      metadata: meta,
      spec: typeof specReplicas === 'number' ? { replicas: specReplicas } : {},
      status,
    };
  }

  protected override servesScale(): boolean {
    return true;
  }

  protected override scaleReplicasPath(): readonly string[] {
    return (this.scalePaths.specReplicasPath ?? '.spec.replicas').replace(/^\./, '').split('.');
  }

  protected override scaleView(obj: KubeObject): KubeObject {
    return this.scaleOf(obj);
  }

  protected override checkScaleReplicas(replicas: unknown, name: string): void {
    checkReplicas(replicas, name);
  }

  override async getScale(namespace: string, name: string): Promise<KubeObject> {
    return this.scaleOf(await this.get(namespace, name, {}));
  }

  /** Whether some managedFields entry owns the spec replicas path. */
  private replicasOwned(obj: KubeObject): boolean {
    const parts = (this.scalePaths.specReplicasPath ?? '.spec.replicas').replace(/^\./, '').split('.');
    return (obj.metadata.managedFields ?? []).some((e) => {
      let node: unknown = e.fieldsV1;
      for (const p of parts) {
        if (node === null || typeof node !== 'object') return false;
        node = (node as Record<string, unknown>)[`f:${p}`];
      }
      return node !== undefined;
    });
  }

  override async updateScale(namespace: string, name: string, change: (current: KubeObject) => KubeObject, options: WriteOptions): Promise<KubeObject> {
    // The write goes to the main resource (the handler names the subresource in the options).
    const { subresource: _subresource, ...mainOptions } = options as WriteOptions & { subresource?: string };
    const updated = await this.patch(
      namespace,
      name,
      (current) => {
        const scale = change(this.scaleOf(current));
        const objName = scale.metadata?.name ?? '';
        if (objName !== name) throw badRequest(`the name of the object (${objName}) does not match the name on the URL (${name})`);
        const replicas = (scale['spec'] as { replicas?: unknown } | undefined)?.replicas ?? 0;
        checkReplicas(replicas, name);
        const next = deepCopy(current);
        setJsonPath(next as unknown as Record<string, unknown>, this.scalePaths.specReplicasPath ?? '.spec.replicas', replicas);
        // A Scale carrying a resourceVersion pins the write to it.
        const rv = scale.metadata?.resourceVersion;
        if (rv !== undefined && rv !== '') next.metadata.resourceVersion = rv;
        return next;
      },
      // As upstream's scale field manager: the write is tracked only when some entry owns the replicas
      // (the Scale then has managedFields); it then moves them to a "scale" entry.
      { ...mainOptions, trackAs: (current) => (this.replicasOwned(current) ? 'scale' : 'none') },
    );
    return this.scaleOf(updated);
  }
}
