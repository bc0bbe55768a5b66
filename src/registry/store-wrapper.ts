// WrappingObjectStore: the one way to put behaviour around a resource's
// ObjectStore. It forwards every operation to `inner`; a wrapper extends it
// and overrides only the operations it changes:
// - ConvertingObjectStore (converting-store.ts): one resource served in two
//   forms over one storage (events.k8s.io events as core events; autoscaling/v1
//   HPAs as v2), converted on every read and write;
// - AllocatingServiceStore (core/service-storage.ts): cluster IPs and node
//   ports taken and freed around service writes;
// - AsyncConvertingObjectStore (apiextensions/conversion/store.ts): custom
//   resources served in a version other than the stored one, through a
//   conversion webhook.
//
// Contract: the wrapper keeps the inner store's keys, revisions and watch
// cache; nothing of its own is stored. The cache-only reads (getCached,
// listCached) are not forwarded: a wrapper that changes objects would hand out
// the inner form, so a wrapper offers them only by defining them itself.

import type { GroupResource, KubeObject } from '../machinery/meta.js';
import type {
  ObjectStore,
  StoreListOptions,
  StoreListResult,
  StoreWatchHandle,
  StoreWatchHandlers,
  StoreWatchOptions,
  UpdateFunc,
} from '../storage/object-store.js';

export abstract class WrappingObjectStore implements ObjectStore {
  readonly resource: GroupResource;

  /** `resource`: the resource this wrapper serves (default: the inner store's). */
  constructor(protected readonly inner: ObjectStore, resource?: GroupResource) {
    this.resource = resource ?? inner.resource;
  }

  keyFor(namespace: string, name: string): string {
    return this.inner.keyFor(namespace, name);
  }

  async previewCreate(obj: KubeObject): Promise<void> {
    await this.inner.previewCreate?.(obj);
  }

  currentResourceVersion(): Promise<string> {
    return this.inner.currentResourceVersion();
  }

  get(namespace: string, name: string, options?: { resourceVersion?: string }): Promise<KubeObject> {
    return this.inner.get(namespace, name, options);
  }

  list(namespace: string, options: StoreListOptions): Promise<StoreListResult> {
    return this.inner.list(namespace, options);
  }

  create(namespace: string, name: string, obj: KubeObject, options?: { ttlSeconds?: number }): Promise<KubeObject> {
    return this.inner.create(namespace, name, obj, options);
  }

  guaranteedUpdate(
    namespace: string,
    name: string,
    update: UpdateFunc,
    options?: { ttlSeconds?: number; dryRun?: boolean },
  ): Promise<{ object: KubeObject; created: boolean }> {
    return this.inner.guaranteedUpdate(namespace, name, update, options);
  }

  delete(namespace: string, name: string, check?: (current: KubeObject) => void): Promise<KubeObject> {
    return this.inner.delete(namespace, name, check);
  }

  watch(namespace: string, options: StoreWatchOptions, handlers: StoreWatchHandlers): Promise<StoreWatchHandle> {
    return this.inner.watch(namespace, options, handlers);
  }
}
