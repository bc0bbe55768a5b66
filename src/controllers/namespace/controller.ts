// NamespaceController: watches namespaces and drives the deletion of every
// namespace that has a deletionTimestamp (upstream
// pkg/controller/namespace/namespace_controller.go).
//
// - One shared namespace informer (resync every namespaceSyncPeriodMs, 5 min
//   as upstream's --namespace-sync-period); only namespaces being deleted are
//   queued, each after deletionGracePeriodMs (upstream waits 5 s so that
//   creates admitted just before the DELETE have landed before content is
//   listed: see src/admission/namespace-lifecycle.ts for the race argument).
// - A rate-limited workqueue (5 ms → 60 s per key, 10 qps burst 100 overall,
//   as upstream's nsControllerRateLimiter) and `workers` workers
//   (--concurrent-namespace-syncs, default 10). A key is never processed by
//   two workers at once.
// - Each key runs NamespacedResourcesDeleter.delete(): content remaining →
//   requeue after estimate/2 + 1 seconds; an error → rate-limited retry.
//
// It talks to the API only through the client library.

import type { Namespace } from '../../api/core/v1/types.js';
import {
  BucketRateLimiter,
  type ClientLogger,
  ItemExponentialFailureRateLimiter,
  MaxOfRateLimiter,
  type RestClient,
  type SharedIndexInformer,
  type SharedInformerFactory,
  WorkQueue,
  metaNamespaceKeyFunc,
  runController,
  silentLogger,
} from '../../client/index.js';
import { NamespacedResourcesDeleter, ResourcesRemainingError } from './deleter.js';

export const DEFAULT_CONCURRENT_NAMESPACE_SYNCS = 10;
export const DEFAULT_NAMESPACE_DELETION_GRACE_PERIOD_MS = 5_000;
export const DEFAULT_NAMESPACE_SYNC_PERIOD_MS = 5 * 60_000;

export interface NamespaceControllerOptions {
  client: RestClient;
  /** The factory whose namespaces informer this controller shares (resync is set by the factory). */
  informers: SharedInformerFactory;
  workers?: number;
  deletionGracePeriodMs?: number;
  finalizerEstimateSeconds?: number;
  /** How long a group whose discovery fails may hold a deletion (see deleter.ts). */
  unavailableGroupTimeoutMs?: number;
  logger?: ClientLogger;
}

export class NamespaceController {
  readonly queue: WorkQueue<string>;
  private readonly informer: SharedIndexInformer<Namespace>;
  private readonly deleter: NamespacedResourcesDeleter;
  private readonly workers: number;
  private readonly graceMs: number;
  private readonly log: ClientLogger;

  constructor(options: NamespaceControllerOptions) {
    this.log = options.logger ?? silentLogger;
    this.workers = Math.max(1, options.workers ?? DEFAULT_CONCURRENT_NAMESPACE_SYNCS);
    this.graceMs = options.deletionGracePeriodMs ?? DEFAULT_NAMESPACE_DELETION_GRACE_PERIOD_MS;
    this.queue = new WorkQueue<string>({
      name: 'namespace',
      rateLimiter: new MaxOfRateLimiter<string>(
        new ItemExponentialFailureRateLimiter<string>(5, 60_000),
        new BucketRateLimiter<string>(10, 100),
      ),
    });
    const deleterOptions: ConstructorParameters<typeof NamespacedResourcesDeleter>[0] = { client: options.client, logger: this.log };
    if (options.finalizerEstimateSeconds !== undefined) deleterOptions.finalizerEstimateSeconds = options.finalizerEstimateSeconds;
    if (options.unavailableGroupTimeoutMs !== undefined) deleterOptions.unavailableGroupTimeoutMs = options.unavailableGroupTimeoutMs;
    this.deleter = new NamespacedResourcesDeleter(deleterOptions);
    this.informer = options.informers.forBuiltin<Namespace>('namespaces');
    this.informer.addEventHandler({
      onAdd: (ns) => this.enqueue(ns),
      onUpdate: (_old, ns) => this.enqueue(ns),
    });
  }

  private enqueue(ns: Namespace): void {
    if (ns.metadata.deletionTimestamp === undefined) return;
    const key = metaNamespaceKeyFunc(ns);
    if (this.graceMs > 0) this.queue.addAfter(key, this.graceMs);
    else this.queue.add(key);
  }

  /** Runs until signal aborts (start the informer factory too). */
  run(signal: AbortSignal): Promise<void> {
    return runController<string>({
      name: 'namespace',
      informers: [this.informer],
      queue: this.queue,
      workers: this.workers,
      signal,
      logger: this.log,
      reconcile: async (key) => {
        try {
          await this.deleter.delete(key);
          return undefined;
        } catch (err) {
          if (err instanceof ResourcesRemainingError) {
            const seconds = Math.floor(err.estimateSeconds / 2) + 1;
            this.log.debug({ namespace: key, seconds }, 'content remaining; requeueing');
            return { requeueAfter: seconds * 1000 };
          }
          throw err;
        }
      },
    });
  }
}
