// SharedInformerFactory: hands out one SharedIndexInformer per resource, so
// every controller in a process that watches, say, configmaps shares a single
// List&Watch and a single cache (client-go informers/factory.go, dynamic
// informer factory).
//
// forResource()/forBuiltin() return the same informer for the same resource
// every time. start(signal) runs every informer not yet running (call it
// again after asking for more); waitForCacheSync() reports per resource;
// shutdown() waits for all informers to stop once the signal has aborted.

import type { GroupVersionResource, KubeObject } from '../machinery/meta.js';
import { BUILTIN_RESOURCES, type BuiltinResourceName } from './builtin-resources.js';
import type { Clock } from './clock.js';
import { listWatchFromClient, type ListWatchSelectors } from './list-watch.js';
import type { ClientLogger } from './logger.js';
import type { RestClient } from './rest-client.js';
import type { TransformFunc } from './delta-fifo.js';
import { type SharedInformerOptions, SharedIndexInformer, waitForCacheSync } from './shared-informer.js';

export interface InformerFactoryOptions extends ListWatchSelectors {
  /** Default resync period of every informer; 0 (default) disables resync. */
  defaultResyncMs?: number;
  /** Restrict namespaced resources to one namespace. */
  namespace?: string;
  clock?: Clock;
  logger?: ClientLogger;
  reflector?: SharedInformerOptions<KubeObject>['reflector'];
  /**
   * Applied to every object each informer receives before it is cached or
   * handed to a handler (client-go's WithTransform): kube-controller-manager
   * drops metadata.managedFields this way (transforms.ts).
   */
  transform?: TransformFunc<KubeObject>;
}

export interface ForResourceOptions {
  /** false for cluster-scoped resources: the factory's namespace is not applied. */
  namespaced?: boolean;
  /**
   * A field selector for this informer alone (ANDed with the factory's): a
   * controller that cares about a few objects of a busy resource asks the
   * server to filter, so it is not sent every other object of the kind.
   * Informers with different selectors are different informers.
   */
  fieldSelector?: string;
}

export class SharedInformerFactory {
  private readonly informers = new Map<string, SharedIndexInformer<KubeObject>>();
  private readonly running = new Map<string, Promise<void>>();

  constructor(
    private readonly client: RestClient,
    private readonly options: InformerFactoryOptions = {},
  ) {}

  /** The shared informer for any group/version/resource. */
  forResource<T extends KubeObject = KubeObject>(gvr: GroupVersionResource, options: ForResourceOptions = {}): SharedIndexInformer<T> {
    const fieldSelector = [this.options.fieldSelector, options.fieldSelector].filter((s) => s !== undefined && s !== '').join(',');
    const id = options.fieldSelector === undefined ? gvrString(gvr) : `${gvrString(gvr)}?fieldSelector=${options.fieldSelector}`;
    let informer = this.informers.get(id);
    if (informer === undefined) {
      let resource = this.client.resource<KubeObject>(gvr);
      if (this.options.namespace && options.namespaced !== false) resource = resource.namespace(this.options.namespace);
      const selectors: ListWatchSelectors = { labelSelector: this.options.labelSelector, fieldSelector: fieldSelector === '' ? undefined : fieldSelector };
      informer = new SharedIndexInformer<KubeObject>(listWatchFromClient(resource, selectors), {
        name: id,
        resyncPeriodMs: this.options.defaultResyncMs ?? 0,
        clock: this.options.clock,
        logger: this.options.logger,
        reflector: this.options.reflector,
        transform: this.options.transform,
      });
      this.informers.set(id, informer);
    }
    // The factory stores informers untyped; T only narrows what callers see.
    return informer as unknown as SharedIndexInformer<T>;
  }

  /** The shared informer for a built-in resource by plural name ("configmaps"). */
  forBuiltin<T extends KubeObject = KubeObject>(name: BuiltinResourceName, options: Pick<ForResourceOptions, 'fieldSelector'> = {}): SharedIndexInformer<T> {
    const r = BUILTIN_RESOURCES[name];
    return this.forResource<T>(r, { ...options, namespaced: r.namespaced });
  }

  /** Runs every informer that is not running yet, until signal aborts. */
  start(signal: AbortSignal): void {
    for (const [id, informer] of this.informers) {
      if (this.running.has(id)) continue;
      this.running.set(id, informer.run(signal));
    }
  }

  /** Waits for every started informer's cache; resource id → synced. */
  async waitForCacheSync(signal: AbortSignal): Promise<Map<string, boolean>> {
    const result = new Map<string, boolean>();
    for (const id of this.running.keys()) {
      const informer = this.informers.get(id) as SharedIndexInformer<KubeObject>;
      result.set(id, await waitForCacheSync(signal, [informer]));
    }
    return result;
  }

  /** Resolves once every started informer has stopped (abort their signal first). */
  async shutdown(): Promise<void> {
    await Promise.allSettled(this.running.values());
  }
}

/** "configmaps.v1." style id; core group empty, as client-go prints a GVR. */
function gvrString(gvr: GroupVersionResource): string {
  return `${gvr.resource}.${gvr.version}.${gvr.group}`;
}
