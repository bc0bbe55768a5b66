// The controller manager: apiary's controllers in one place, as
// kube-controller-manager runs them. Everything goes through one RestClient
// (a loopback connection when `apiary serve` runs them in-process, any
// kubeconfig with `apiary controller-manager`) and one shared informer
// factory, so the namespace informer is listed and watched once.
//
// startControllerManager() starts the informers, the namespace controller,
// the resource quota controller, the system namespaces controller, the CRD
// cleanup (finalizer) controller, the pvc-protection controller, the
// propagation controller of hierarchical namespaces and (given a
// signer) the service account tokens controller and returns at once; `systemNamespacesSynced`
// resolves after the first pass that found or created every system namespace;
// stop() stops them all and resolves when every loop has finished.

import { setMaxListeners } from 'node:events';
import { type ClientLogger, type InProcessReads, type RestClient, SharedInformerFactory, sharedStrings, silentLogger, stripManagedFields } from '../client/index.js';
import {
  DEFAULT_CONCURRENT_NAMESPACE_SYNCS,
  DEFAULT_NAMESPACE_DELETION_GRACE_PERIOD_MS,
  DEFAULT_NAMESPACE_SYNC_PERIOD_MS,
  NamespaceController,
} from './namespace/controller.js';
import { DEFAULT_SYSTEM_NAMESPACES_INTERVAL_MS, SystemNamespacesController } from './system-namespaces.js';
import {
  DEFAULT_CONCURRENT_RESOURCE_QUOTA_SYNCS,
  DEFAULT_RESOURCE_QUOTA_SYNC_PERIOD_MS,
  ResourceQuotaController,
} from './resourcequota/controller.js';
import { CRDCleanupController } from './crd-cleanup.js';
import { PVCProtectionController } from './pvc-protection.js';
import { NamespaceDefaultsController } from './namespace-defaults.js';
import { DEFAULT_CONCURRENT_GC_SYNCS, GarbageCollector } from './garbagecollector/controller.js';
import { ClusterInfoPublisher } from './cluster-info.js';
import { HncPropagationController } from './hnc-propagation.js';
import { type LegacyTokenClaims, ServiceAccountTokensController } from './service-account-tokens.js';
import { HierarchicalQuotaController } from './hrq.js';

export interface ControllerManagerOptions {
  /** The controller manager's own client: the shared informers list and watch through it. */
  client: RestClient;
  /**
   * Each controller's own client (its identity and least-privilege role, as
   * kube-controller-manager's --use-service-account-credentials); default: client.
   * `apiserver` is the API server's loopback, for what upstream runs inside
   * kube-apiserver (system namespaces, CRD cleanup) or kubeadm does (cluster-info).
   */
  clients?: {
    namespace?: RestClient;
    resourceQuota?: RestClient;
    /** The HierarchicalResourceQuota status controller (system:controller:hierarchicalresourcequota-controller). */
    hierarchicalQuota?: RestClient;
    pvcProtection?: RestClient;
    garbageCollector?: RestClient;
    serviceAccount?: RestClient;
    rootCaPublisher?: RestClient;
    apiserver?: RestClient;
    /** The propagation controller of hierarchical namespaces (the only identity that may write propagated copies). */
    hncPropagation?: RestClient;
  };
  /** --concurrent-namespace-syncs (default 10). */
  concurrentNamespaceSyncs?: number;
  /** --namespace-sync-period: informer resync (default 5 min). */
  namespaceSyncPeriodMs?: number;
  /** How long after a namespace's deletion the controller starts emptying it (default 5 s). */
  namespaceDeletionGracePeriodMs?: number;
  /** How long a group whose discovery keeps failing may hold a namespace's deletion (default 5 min). */
  namespaceDeletionUnavailableGroupTimeoutMs?: number;
  /** Seconds to wait for objects with finalizers before looking again (default 15; requeue after half + 1). */
  finalizerEstimateSeconds?: number;
  /** --system-namespaces-interval (default 1 min). */
  systemNamespacesIntervalMs?: number;
  /** --concurrent-resource-quota-syncs (default 5). */
  concurrentResourceQuotaSyncs?: number;
  /** --resource-quota-sync-period: every quota is recalculated this often (default 5 min). */
  resourceQuotaSyncPeriodMs?: number;
  /** Which controllers to run (default all but namespaceDefaults and clusterInfo, which run when asked for). */
  controllers?: {
    namespace?: boolean;
    systemNamespaces?: boolean;
    resourceQuota?: boolean;
    /** HierarchicalResourceQuota status (hnc.x-k8s.io; its own least-privilege identity where identities are given). */
    hierarchicalQuota?: boolean;
    crdCleanup?: boolean;
    pvcProtection?: boolean;
    namespaceDefaults?: boolean;
    /** Within namespaceDefaults: the `default` accounts (upstream's serviceaccount-controller; default true). */
    serviceAccounts?: boolean;
    /** Within namespaceDefaults: kube-root-ca.crt (upstream's root-ca-cert-publisher; default true). */
    rootCaPublisher?: boolean;
    garbageCollector?: boolean;
    clusterInfo?: boolean;
    /** Hierarchical namespaces: copies of ancestors' objects in descendants (hnc-propagation.ts). */
    hncPropagation?: boolean;
  };
  /** --concurrent-gc-syncs (default 20). */
  concurrentGcSyncs?: number;
  /** How often the garbage collector re-reads discovery (default 30 s; CRD changes trigger it at once). */
  gcDiscoveryPeriodMs?: number;
  /**
   * The server's in-process reads, when the controllers run inside it: the
   * garbage collector's monitors (every resource) list and watch through them
   * instead of over HTTP to this same process.
   */
  inProcessReads?: InProcessReads;
  /** The CA bundle the namespace defaults controller publishes as kube-root-ca.crt. */
  rootCaData?: string;
  /**
   * Signs legacy service account tokens (the API server's key): with it, the
   * tokens controller fills kubernetes.io/service-account-token Secrets
   * (token, ca.crt from rootCaData, namespace) and removes those of deleted accounts.
   */
  signLegacyToken?: (claims: LegacyTokenClaims) => Promise<string>;
  /** What the cluster-info publisher puts in kube-public/cluster-info: the server URL and its CA. */
  clusterInfo?: { server: string; caData: string };
  logger?: ClientLogger;
}

export interface RunningControllerManager {
  /** Resolves once every system namespace exists (never, if that controller is off). */
  systemNamespacesSynced: Promise<void>;
  namespaceController?: NamespaceController;
  resourceQuotaController?: ResourceQuotaController;
  hierarchicalQuotaController?: HierarchicalQuotaController;
  garbageCollector?: GarbageCollector;
  stop(): Promise<void>;
}

export {
  DEFAULT_CONCURRENT_RESOURCE_QUOTA_SYNCS,
  DEFAULT_RESOURCE_QUOTA_SYNC_PERIOD_MS,
  DEFAULT_CONCURRENT_GC_SYNCS,
  DEFAULT_CONCURRENT_NAMESPACE_SYNCS,
  DEFAULT_NAMESPACE_DELETION_GRACE_PERIOD_MS,
  DEFAULT_NAMESPACE_SYNC_PERIOD_MS,
  DEFAULT_SYSTEM_NAMESPACES_INTERVAL_MS,
};

export function startControllerManager(options: ControllerManagerOptions): RunningControllerManager {
  const log = options.logger ?? silentLogger;
  const abort = new AbortController();
  // Every informer and controller loop listens on this one signal.
  setMaxListeners(0, abort.signal);
  const share = sharedStrings();
  const informers = new SharedInformerFactory(options.client, {
    defaultResyncMs: options.namespaceSyncPeriodMs ?? DEFAULT_NAMESPACE_SYNC_PERIOD_MS,
    logger: log,
    // As kube-controller-manager: no controller reads managedFields, and the
    // caches (every RoleBinding and Role, for propagation) are half the size
    // without them; the strings every object repeats are held once.
    transform: (obj) => share(stripManagedFields(obj)),
  });
  const loops: Promise<void>[] = [];
  const running: RunningControllerManager = { systemNamespacesSynced: new Promise<void>(() => {}), stop: async () => {} };

  if (options.controllers?.namespace !== false) {
    const controllerOptions: ConstructorParameters<typeof NamespaceController>[0] = {
      client: options.clients?.namespace ?? options.client,
      informers,
      workers: options.concurrentNamespaceSyncs ?? DEFAULT_CONCURRENT_NAMESPACE_SYNCS,
      deletionGracePeriodMs: options.namespaceDeletionGracePeriodMs ?? DEFAULT_NAMESPACE_DELETION_GRACE_PERIOD_MS,
      logger: log,
    };
    if (options.finalizerEstimateSeconds !== undefined) controllerOptions.finalizerEstimateSeconds = options.finalizerEstimateSeconds;
    if (options.namespaceDeletionUnavailableGroupTimeoutMs !== undefined) {
      controllerOptions.unavailableGroupTimeoutMs = options.namespaceDeletionUnavailableGroupTimeoutMs;
    }
    const controller = new NamespaceController(controllerOptions);
    running.namespaceController = controller;
    loops.push(controller.run(abort.signal));
  }
  if (options.controllers?.systemNamespaces !== false) {
    const system = new SystemNamespacesController({
      client: options.clients?.apiserver ?? options.client,
      informers,
      intervalMs: options.systemNamespacesIntervalMs ?? DEFAULT_SYSTEM_NAMESPACES_INTERVAL_MS,
      logger: log,
    });
    running.systemNamespacesSynced = system.synced();
    loops.push(system.run(abort.signal));
  }
  if (options.controllers?.resourceQuota !== false) {
    const quota = new ResourceQuotaController({
      client: options.clients?.resourceQuota ?? options.client,
      informers,
      workers: options.concurrentResourceQuotaSyncs ?? DEFAULT_CONCURRENT_RESOURCE_QUOTA_SYNCS,
      resyncPeriodMs: options.resourceQuotaSyncPeriodMs ?? DEFAULT_RESOURCE_QUOTA_SYNC_PERIOD_MS,
      logger: log,
    });
    running.resourceQuotaController = quota;
    loops.push(quota.run(abort.signal));
  }
  if (options.controllers?.hierarchicalQuota !== false) {
    const hrq = new HierarchicalQuotaController({
      client: options.clients?.hierarchicalQuota ?? options.client,
      informers,
      workers: options.concurrentResourceQuotaSyncs ?? DEFAULT_CONCURRENT_RESOURCE_QUOTA_SYNCS,
      resyncPeriodMs: options.resourceQuotaSyncPeriodMs ?? DEFAULT_RESOURCE_QUOTA_SYNC_PERIOD_MS,
      logger: log,
    });
    running.hierarchicalQuotaController = hrq;
    loops.push(hrq.run(abort.signal));
  }
  if (options.controllers?.crdCleanup !== false) {
    const cleanup = new CRDCleanupController({ client: options.clients?.apiserver ?? options.client, informers, logger: log });
    loops.push(cleanup.run(abort.signal));
  }
  if (options.controllers?.pvcProtection !== false) {
    const protection = new PVCProtectionController({ client: options.clients?.pvcProtection ?? options.client, informers, logger: log });
    loops.push(protection.run(abort.signal));
  }
  if (options.controllers?.garbageCollector !== false) {
    const gcOptions: ConstructorParameters<typeof GarbageCollector>[0] = {
      client: options.clients?.garbageCollector ?? options.client,
      workers: options.concurrentGcSyncs ?? DEFAULT_CONCURRENT_GC_SYNCS,
      logger: log,
    };
    if (options.inProcessReads !== undefined) gcOptions.inProcessReads = options.inProcessReads;
    if (options.gcDiscoveryPeriodMs !== undefined) gcOptions.discoveryPeriodMs = options.gcDiscoveryPeriodMs;
    const gc = new GarbageCollector(gcOptions);
    running.garbageCollector = gc;
    // A new or changed CRD may serve a new resource: read discovery again soon.
    const crds = informers.forResource({ group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions' }, { namespaced: false });
    crds.addEventHandler({ onAdd: () => gc.requestResync(), onUpdate: () => gc.requestResync(), onDelete: () => gc.requestResync() });
    loops.push(gc.run(abort.signal));
  }
  if (options.controllers?.hncPropagation !== false) {
    const propagation = new HncPropagationController({ client: options.clients?.hncPropagation ?? options.client, informers, logger: log });
    loops.push(propagation.run(abort.signal));
  }
  if (options.controllers?.namespaceDefaults === true) {
    const defaults: ConstructorParameters<typeof NamespaceDefaultsController>[0] = { client: options.client, informers, logger: log };
    if (options.clients?.serviceAccount !== undefined) defaults.serviceAccountClient = options.clients.serviceAccount;
    if (options.clients?.rootCaPublisher !== undefined) defaults.rootCaClient = options.clients.rootCaPublisher;
    if (options.rootCaData !== undefined && options.controllers.rootCaPublisher !== false) defaults.rootCaData = options.rootCaData;
    if (options.controllers.serviceAccounts === false) defaults.serviceAccounts = false;
    loops.push(new NamespaceDefaultsController(defaults).run(abort.signal));
  }
  if (options.signLegacyToken !== undefined) {
    // Upstream runs it with kube-controller-manager's own credentials (the role that may write secrets).
    const tokensOptions: ConstructorParameters<typeof ServiceAccountTokensController>[0] = {
      client: options.client,
      informers,
      sign: options.signLegacyToken,
      logger: log,
    };
    if (options.rootCaData !== undefined) tokensOptions.rootCaData = options.rootCaData;
    loops.push(new ServiceAccountTokensController(tokensOptions).run(abort.signal));
  }
  if (options.controllers?.clusterInfo === true && options.clusterInfo !== undefined) {
    new ClusterInfoPublisher({ client: options.clients?.apiserver ?? options.client, informers, logger: log, ...options.clusterInfo });
  }
  informers.start(abort.signal);

  let stopping: Promise<void> | undefined;
  running.stop = () =>
    (stopping ??= (async () => {
      abort.abort();
      await Promise.allSettled(loops);
      await informers.shutdown();
    })());
  return running;
}
