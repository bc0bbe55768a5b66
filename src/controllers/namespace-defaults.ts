// What every active namespace holds in a cluster with security on:
//   - the `default` ServiceAccount (upstream's serviceaccounts controller), made
//     again when deleted;
//   - the `kube-root-ca.crt` ConfigMap with the cluster CA under `ca.crt`
//     (upstream's root-ca-cert-publisher), made again when deleted and put
//     back when its data drifts.
// Each part writes with its own client (upstream's service-account
// controller and root-ca-cert-publisher identities); reads come from the
// informers. Driven by informers: a namespace added or updated (Active), or one of these
// objects deleted or changed, puts that namespace on a work queue; WORKERS
// loops ensure its objects, and a failure (a create throttled with 429 while
// thousands of namespaces are made at once, a timeout) is retried with
// per-namespace exponential backoff, as upstream's controllers do. Before,
// every namespace got its own concurrent ensure and a failure was dropped: of
// 10,000 namespaces created by 48 clients, 7,000 never got kube-root-ca.crt.
// Nothing is ensured before the three informers have synced (runController
// waits for their caches, as upstream's controllers do): until then the
// listers are empty, and a server restarted on a store of 10,000 namespaces
// was sent 20,000 creates that all answered AlreadyExists.
// Clients of the API only.

import type { KubeObject } from '../machinery/meta.js';
import {
  type ClientLogger,
  DeletedFinalStateUnknown,
  type RestClient,
  type SharedInformerFactory,
  isAlreadyExists,
  isNotFound,
  ItemExponentialFailureRateLimiter,
  runController,
  silentLogger,
  WorkQueue,
} from '../client/index.js';
import { deepCopy } from '../machinery/deep-copy.js';

export const ROOT_CA_CONFIGMAP = 'kube-root-ca.crt';
/**
 * Upstream's publisher watches every ConfigMap from kube-controller-manager's
 * process; in apiary's it would decode every ConfigMap written in the cluster
 * to look at one name, so the server filters the watch for it.
 */
const ROOT_CA_SELECTOR = { fieldSelector: `metadata.name=${ROOT_CA_CONFIGMAP}` };

const isActive = (ns: KubeObject): boolean => (ns['status'] as { phase?: string } | undefined)?.phase !== 'Terminating' && ns.metadata.deletionTimestamp === undefined;

export interface NamespaceDefaultsOptions {
  client: RestClient;
  informers: SharedInformerFactory;
  /** Writes as the service-account controller (default: client). */
  serviceAccountClient?: RestClient;
  /** Writes as the root-CA publisher (default: client). */
  rootCaClient?: RestClient;
  /** The CA bundle to publish; absent: no root-CA ConfigMaps. */
  rootCaData?: string;
  /** Make the `default` service accounts (default true; off when upstream's serviceaccount-controller does it). */
  serviceAccounts?: boolean;
  logger?: ClientLogger;
}

/** Concurrent ensures: upstream runs the service-account controller and the root-CA publisher with one worker each. */
const WORKERS = 2;

export class NamespaceDefaultsController {
  /** Namespaces to ensure; a failed one comes back after a per-namespace backoff (5 ms doubling, at most 60 s). */
  readonly queue = new WorkQueue<string>({ name: 'namespace-defaults', rateLimiter: new ItemExponentialFailureRateLimiter<string>(5, 60_000) });

  constructor(private readonly options: NamespaceDefaultsOptions) {
    const { informers } = options;
    informers.forBuiltin('namespaces').addEventHandler({
      onAdd: (ns) => {
        if (isActive(ns)) this.enqueue(ns.metadata.name!);
      },
      onUpdate: (_old, ns) => {
        if (isActive(ns)) this.enqueue(ns.metadata.name!);
      },
    });
    const namespaceOf = (obj: KubeObject | DeletedFinalStateUnknown<KubeObject>): string | undefined =>
      obj instanceof DeletedFinalStateUnknown ? obj.obj?.metadata.namespace : obj.metadata.namespace;
    informers.forBuiltin('serviceaccounts').addEventHandler({
      onDelete: (sa) => {
        const ns = namespaceOf(sa);
        if (ns !== undefined) this.enqueue(ns);
      },
    });
    if (options.rootCaData !== undefined) {
      informers.forBuiltin('configmaps', ROOT_CA_SELECTOR).addEventHandler({
        onUpdate: (_old, cm) => {
          if (cm.metadata.name === ROOT_CA_CONFIGMAP) this.enqueue(cm.metadata.namespace!);
        },
        onDelete: (cm) => {
          const ns = namespaceOf(cm);
          const name = cm instanceof DeletedFinalStateUnknown ? cm.obj?.metadata.name : cm.metadata.name;
          if (ns !== undefined && name === ROOT_CA_CONFIGMAP) this.enqueue(ns);
        },
      });
    }
  }

  /** Works the queue once the informers' caches have synced, until signal aborts. */
  run(signal: AbortSignal): Promise<void> {
    const { informers } = this.options;
    const caches: Array<{ hasSynced(): boolean }> = [informers.forBuiltin('namespaces')];
    if (this.options.serviceAccounts !== false) caches.push(informers.forBuiltin('serviceaccounts'));
    if (this.options.rootCaData !== undefined) caches.push(informers.forBuiltin('configmaps', ROOT_CA_SELECTOR));
    return runController<string>({
      name: 'namespace-defaults',
      informers: caches,
      queue: this.queue,
      workers: WORKERS,
      signal,
      logger: this.options.logger ?? silentLogger,
      reconcile: (namespace) => this.ensure(namespace),
    });
  }

  private enqueue(namespace: string): void {
    this.queue.add(namespace);
  }

  /**
   * Creates what is missing in one namespace (and fixes the CA bundle). Reads
   * come from the informers' caches (the controllers' roles grant no `get`);
   * a create that finds the object made meanwhile is fine.
   */
  async ensure(namespace: string): Promise<void> {
    const { informers } = this.options;
    // As upstream's controllers: nothing for a namespace that is not (or no longer) Active,
    // where the create would be refused (a deletion deletes these objects and so asks again).
    const ns = informers.forBuiltin('namespaces').lister().get(namespace);
    if (ns === undefined || !isActive(ns)) return;
    const serviceAccountClient = this.options.serviceAccountClient ?? this.options.client;
    const rootCaClient = this.options.rootCaClient ?? this.options.client;
    const create = async (make: () => Promise<unknown>): Promise<void> => {
      try {
        await make();
      } catch (err) {
        // A namespace going away refuses creates (Forbidden): nothing to do there.
        if (!isAlreadyExists(err) && !isNotFound(err) && !(err instanceof Error && /being terminated/.test(err.message))) throw err;
      }
    };
    if (this.options.serviceAccounts !== false && informers.forBuiltin('serviceaccounts').lister().namespace(namespace).get('default') === undefined) {
      await create(() => serviceAccountClient.serviceAccounts(namespace).create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } }));
    }
    const ca = this.options.rootCaData;
    if (ca === undefined) return;
    const current = informers.forBuiltin('configmaps', ROOT_CA_SELECTOR).lister().namespace(namespace).get(ROOT_CA_CONFIGMAP);
    if (current === undefined) {
      await create(() => rootCaClient.configMaps(namespace).create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: ROOT_CA_CONFIGMAP }, data: { 'ca.crt': ca } }));
    } else if ((current['data'] as Record<string, string> | undefined)?.['ca.crt'] !== ca) {
      await rootCaClient.configMaps(namespace).update({ ...deepCopy(current), data: { 'ca.crt': ca } });
    }
  }
}
