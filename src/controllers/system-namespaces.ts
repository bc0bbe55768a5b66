// SystemNamespacesController: makes sure default, kube-system, kube-public and
// kube-node-lease exist, at start and then every intervalMs (1 minute as
// upstream's pkg/controlplane/controller/systemnamespaces). A namespace that
// exists in any phase is left alone; a missing one is created (AlreadyExists
// from a racing creator is fine). Reads come from the shared namespace
// informer; writes go through the client.

import type { Namespace } from '../api/core/v1/types.js';
import {
  type ClientLogger,
  type RestClient,
  type SharedIndexInformer,
  type SharedInformerFactory,
  isAlreadyExists,
  silentLogger,
  waitForCacheSync,
} from '../client/index.js';

export const SYSTEM_NAMESPACES: readonly string[] = ['kube-system', 'kube-public', 'kube-node-lease', 'default'];
export const DEFAULT_SYSTEM_NAMESPACES_INTERVAL_MS = 60_000;

export interface SystemNamespacesControllerOptions {
  client: RestClient;
  informers: SharedInformerFactory;
  intervalMs?: number;
  namespaces?: readonly string[];
  logger?: ClientLogger;
}

export class SystemNamespacesController {
  private readonly client: RestClient;
  private readonly informer: SharedIndexInformer<Namespace>;
  private readonly intervalMs: number;
  private readonly namespaces: readonly string[];
  private readonly log: ClientLogger;
  private firstSync: { promise: Promise<void>; resolve: () => void };

  constructor(options: SystemNamespacesControllerOptions) {
    this.client = options.client;
    this.informer = options.informers.forBuiltin<Namespace>('namespaces');
    this.intervalMs = options.intervalMs ?? DEFAULT_SYSTEM_NAMESPACES_INTERVAL_MS;
    this.namespaces = options.namespaces ?? SYSTEM_NAMESPACES;
    this.log = options.logger ?? silentLogger;
    let resolve!: () => void;
    const promise = new Promise<void>((r) => (resolve = r));
    this.firstSync = { promise, resolve };
  }

  /** Resolves after the first pass in which every system namespace was found or created. */
  synced(): Promise<void> {
    return this.firstSync.promise;
  }

  /** Ensures the namespaces once; resolves true when all exist. */
  async sync(): Promise<boolean> {
    let ok = true;
    for (const name of this.namespaces) {
      if (this.informer.lister().get(name) !== undefined) continue;
      try {
        await this.client.namespaces<Namespace>().create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
        this.log.info({ namespace: name }, 'created system namespace');
      } catch (err) {
        if (isAlreadyExists(err)) continue;
        ok = false;
        this.log.warn({ namespace: name, err: err instanceof Error ? err.message : String(err) }, 'could not create system namespace');
      }
    }
    return ok;
  }

  /** Runs until signal aborts (start the informer factory too). */
  async run(signal: AbortSignal): Promise<void> {
    if (!(await waitForCacheSync(signal, [this.informer]))) return;
    let everSynced = false;
    while (!signal.aborted) {
      if (await this.sync()) {
        everSynced = true;
        this.firstSync.resolve();
      }
      // Until a pass succeeds, retry sooner than the interval.
      await sleepUnlessAborted(everSynced ? this.intervalMs : Math.min(this.intervalMs, 1000), signal);
    }
  }
}

function sleepUnlessAborted(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
