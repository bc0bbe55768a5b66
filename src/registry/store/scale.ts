// The scale subresource, served for kinds whose strategy declares `scale`
// (and custom resources with a scale subresource, which override the hooks):
// an autoscaling/v1 Scale over the object's replicas.
//
// Contract: GET shows the object as a Scale; PUT/PATCH write spec.replicas
// through the main strategy as an Update entry with subresource "scale";
// apply of a Scale reaches only the replicas.

import type { KubeObject } from '../../machinery/meta.js';
import { badRequest, invalid, staleResourceVersion } from '../../machinery/errors.js';
import { fieldErrors } from '../../machinery/field-errors.js';
import type { WriteOptions } from '../rest.js';
import { deepCopy } from '../../machinery/deep-copy.js';
import { type ApplyOptions, setPath, scaleReplicas } from './base.js';
import { UpdateStore } from './update.js';

export abstract class ScaleStore extends UpdateStore {
  /** GET …/scale: the object's replicas as an autoscaling/v1 Scale. */
  async getScale(namespace: string, name: string): Promise<KubeObject> {
    this.checkSubresource('scale');
    return this.toScale(await this.get(namespace, name, {}));
  }

  /**
   * PUT/PATCH …/scale: `change` turns the current Scale into the wanted one
   * (the request body for PUT); its spec.replicas is written to the object
   * through the main strategy, as an Update entry with subresource "scale".
   */
  async updateScale(
    namespace: string,
    name: string,
    change: (current: KubeObject) => KubeObject,
    options: WriteOptions,
  ): Promise<KubeObject> {
    this.checkSubresource('scale');
    const ns = this.ns(namespace);
    const dryRun = options.dryRun === true;
    const res = await this.storage.guaranteedUpdate(
      ns,
      name,
      async (current) => {
        if (current === null) throw this.notFound(name);
        const scale = change(this.toScale(this.withTypeMeta(current)));
        this.validateScale(scale, name, namespace);
        const wantedRV = scale.metadata?.resourceVersion ?? '';
        if (wantedRV !== '' && wantedRV !== current.metadata.resourceVersion) throw staleResourceVersion(this.gr, name);
        const next = this.withTypeMeta(deepCopy(current));
        (next['spec'] ??= {}) as Record<string, unknown>;
        (next['spec'] as Record<string, unknown>)['replicas'] = scaleReplicas(scale);
        this.trackUpdate(current, next, 'scale', options.fieldManager);
        return this.prepareUpdate(next, current, 'scale', options, {
          manager: options.fieldManager,
          warnings: options.warnings,
          tracked: true,
          trackedEntries: next.metadata.managedFields,
        });
      },
      { ...this.ttl(), dryRun },
    );
    return this.toScale(this.withTypeMeta(res.object));
  }

  /**
   * Apply of an autoscaling/v1 Scale: its spec.replicas applied to the object
   * by `fieldManager` at the kind's replicas path, as an Apply entry with
   * subresource "scale" (upstream's ScaleHandler.ToParent). Only the replicas
   * (and the name, namespace and resourceVersion) reach the object: the rest
   * of a Scale, its labels say, has nowhere to go.
   */
  async applyScale(namespace: string, name: string, config: Record<string, unknown>, options: ApplyOptions): Promise<KubeObject> {
    this.checkSubresource('scale');
    const meta = config['metadata'];
    const metadata: Record<string, unknown> = {};
    if (meta !== null && typeof meta === 'object' && !Array.isArray(meta)) {
      for (const k of ['name', 'namespace', 'resourceVersion']) if (k in meta) metadata[k] = (meta as Record<string, unknown>)[k];
    } else if (meta !== undefined && meta !== null) {
      metadata['name'] = meta;
    }
    const parent: Record<string, unknown> = { apiVersion: this.apiVersion, kind: this.type.kind, metadata };
    const spec = config['spec'] as Record<string, unknown> | undefined;
    if (spec !== undefined && spec !== null && typeof spec === 'object' && 'replicas' in spec) {
      this.checkScaleReplicas(spec['replicas'], name);
      setPath(parent, this.scaleReplicasPath(), spec['replicas']);
    }
    const { object } = await this.apply(namespace, name, parent, { ...options, subresource: 'scale' });
    return this.scaleView(object);
  }

  /** The Scale an object shows on /scale. */
  protected scaleView(obj: KubeObject): KubeObject {
    return this.toScale(this.withTypeMeta(obj));
  }

  /** A Scale apply's replicas, checked before the merge (a built-in kind's validation words its own error on its field). */
  protected checkScaleReplicas(_replicas: unknown, _name: string): void {}

  private toScale(obj: KubeObject): KubeObject {
    const m = obj.metadata;
    const metadata: KubeObject['metadata'] = {};
    for (const key of ['name', 'namespace', 'uid', 'resourceVersion', 'creationTimestamp'] as const) {
      if (m[key] !== undefined) (metadata as Record<string, unknown>)[key] = m[key];
    }
    const replicas = ((obj['spec'] ?? {}) as { replicas?: number }).replicas ?? 0;
    const status: Record<string, unknown> = { replicas: ((obj['status'] ?? {}) as { replicas?: number }).replicas ?? 0 };
    const selector = this.strategy.scale!.selector(obj);
    if (selector !== '') status['selector'] = selector;
    const spec: Record<string, unknown> = {};
    if (replicas !== 0) spec['replicas'] = replicas;
    return { kind: 'Scale', apiVersion: 'autoscaling/v1', metadata, spec, status };
  }

  private validateScale(scale: KubeObject, name: string, namespace: string): void {
    const objName = scale.metadata?.name ?? '';
    if (objName !== name) throw badRequest(`the name of the object (${objName}) does not match the name on the URL (${name})`);
    const objNs = scale.metadata?.namespace ?? '';
    if (this.strategy.namespaced && objNs !== '' && objNs !== namespace) {
      throw badRequest(`the namespace of the object (${objNs}) does not match the namespace on the request (${namespace})`);
    }
    const replicas = scaleReplicas(scale);
    if (replicas < 0) {
      throw invalid('autoscaling', 'Scale', name, [fieldErrors.invalid('spec.replicas', replicas, 'must be greater than or equal to 0')]);
    }
  }
}
