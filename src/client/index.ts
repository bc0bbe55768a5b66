// apiary/client: the public API of apiary's Kubernetes client library.
// REST and dynamic clients, kubeconfig loading, discovery, and client-go's
// informer machinery (Reflector, DeltaFIFO, Indexer, SharedIndexInformer,
// SharedInformerFactory) with the rate-limited WorkQueue, a controller
// helper, and Lease-based leader election.

export { StatusError, isStatusError, isNotFound, isAlreadyExists, isConflict, isInvalid, isGone } from '../machinery/errors.js';
export type { Status, StatusCause, StatusDetails, StatusReason } from '../machinery/errors.js';
export type { KubeObject, KubeList, ObjectMeta, ListMeta, GroupVersionResource } from '../machinery/meta.js';

export { type ClientConfig, type LoadKubeconfigOptions, loadKubeconfig, kubeconfigFromText, defaultKubeconfigPath } from './kubeconfig.js';
export {
  RestClient,
  ResourceClient,
  type DeleteOptions,
  type HttpRequest,
  type ListOptions,
  type PatchOptions,
  type PatchType,
  type Query,
  type RequestOptions,
  type WatchRequestOptions,
  type WriteOptions,
} from './rest-client.js';
export { NetworkError, isNetworkError, isConnectionRefused } from './errors.js';
export { Watch, type WatchEvent, type WatchEventType } from './watch.js';
export { BUILTIN_RESOURCES, type BuiltinResource, type BuiltinResourceName } from './builtin-resources.js';
export { type APIResource, type APIResourceList, GroupDiscoveryFailedError, serverPreferredResources, serverPreferredNamespacedResources } from './discovery.js';

export { type Clock, type Timer, realClock, sleep } from './clock.js';
export { FakeClock } from './fake-clock.js';
export { type ClientLogger, defaultLogger, silentLogger } from './logger.js';
export { Backoff, type BackoffOptions } from './backoff.js';

export {
  DeletedFinalStateUnknown,
  type KeyFunc,
  type KeyListerGetter,
  type ReflectorStore,
  type Store,
  deletionHandlingMetaNamespaceKeyFunc,
  metaNamespaceKeyFunc,
  splitMetaNamespaceKey,
} from './store.js';
export { Indexer, type IndexFunc, type Indexers, NAMESPACE_INDEX, metaNamespaceIndexFunc } from './indexer.js';
export { Lister, NamespaceLister, type ObjectFilter, labelsMatch } from './lister.js';
export { DeltaFIFO, type Delta, type DeltaType, FIFOClosedError, type PopProcessFunc, type TransformFunc } from './delta-fifo.js';
export { type InProcessReads, type ListerWatcher, type ListWatchSelectors, inProcessListWatch, listWatchFromClient } from './list-watch.js';
export { Reflector, type ReflectorOptions, VeryShortWatchError, isExpiredError } from './reflector.js';
export { type Notification, type ResourceEventHandler } from './processor-listener.js';
export { type EventHandlerRegistration, SharedIndexInformer, type SharedInformerOptions, waitForCacheSync } from './shared-informer.js';
export { type ForResourceOptions, type InformerFactoryOptions, SharedInformerFactory } from './informer-factory.js';
export { sharedStrings, stripManagedFields } from './transforms.js';

export {
  BucketRateLimiter,
  ItemExponentialFailureRateLimiter,
  ItemFastSlowRateLimiter,
  MaxOfRateLimiter,
  type RateLimiter,
  defaultControllerRateLimiter,
} from './rate-limiters.js';
export { type GetResult, WorkQueue, type WorkQueueOptions } from './workqueue.js';
export { type ControllerOptions, type ReconcileResult, enqueueHandler, runController } from './controller.js';
export {
  DEFAULT_LEASE_DURATION_MS,
  DEFAULT_RENEW_DEADLINE_MS,
  DEFAULT_RETRY_PERIOD_MS,
  JITTER_FACTOR,
  type LeaderCallbacks,
  type LeaderElectionConfig,
  LeaderElector,
  runWhileLeader,
  validateTiming,
} from './leader-election.js';
