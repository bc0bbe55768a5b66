// CRDCleanupController: the customresourcecleanup.apiextensions.k8s.io
// finalizer (upstream's pkg/controller/finalizer/crd_finalizer.go). A deleted
// CRD keeps serving its custom resources (creates refused) while this
// controller, a client of the API like any other:
// 1. sets Terminating=True "InstanceDeletionInProgress";
// 2. if the CRD was established, deletes every custom resource through the
//    API (a deletecollection per namespace, so admission and finalizers of
//    the objects run as for any client) and waits until none is left,
//    recording failures as Terminating reasons InstanceDeletionFailed /
//    InstanceDeletionCheck;
// 3. sets "InstanceDeletionCompleted" and removes its finalizer, after which
//    the API server deletes the CRD (and stops serving its resources).
// Keys are retried with backoff while custom resources remain.

import {
  type ClientLogger,
  type KubeObject,
  type RestClient,
  type SharedIndexInformer,
  type SharedInformerFactory,
  ItemExponentialFailureRateLimiter,
  WorkQueue,
  isNotFound,
  runController,
  silentLogger,
} from '../client/index.js';

export const CRD_CLEANUP_FINALIZER = 'customresourcecleanup.apiextensions.k8s.io';

const CRD_GVR = { group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions' };

interface Condition {
  type: string;
  status: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

interface CRD extends KubeObject {
  spec: {
    group?: string;
    scope?: string;
    names?: { plural?: string };
    versions?: { name?: string; served?: boolean; storage?: boolean }[];
  };
  status?: { conditions?: Condition[]; acceptedNames?: { plural?: string } };
}

/** Custom resources are still there; look again later. */
class InstancesRemainingError extends Error {}

export interface CRDCleanupControllerOptions {
  client: RestClient;
  informers: SharedInformerFactory;
  workers?: number;
  /** How long one pass waits for the deleted instances to be gone (default 10 s). */
  instanceWaitMs?: number;
  logger?: ClientLogger;
}

export class CRDCleanupController {
  readonly queue: WorkQueue<string>;
  private readonly client: RestClient;
  private readonly informer: SharedIndexInformer<CRD>;
  private readonly workers: number;
  private readonly waitMs: number;
  private readonly log: ClientLogger;

  constructor(options: CRDCleanupControllerOptions) {
    this.client = options.client;
    this.workers = Math.max(1, options.workers ?? 5);
    this.waitMs = options.instanceWaitMs ?? 10_000;
    this.log = options.logger ?? silentLogger;
    this.queue = new WorkQueue<string>({ name: 'crd_finalizer', rateLimiter: new ItemExponentialFailureRateLimiter<string>(5, 60_000) });
    this.informer = options.informers.forResource<CRD>(CRD_GVR, { namespaced: false });
    const enqueue = (crd: CRD): void => {
      if (crd.metadata.deletionTimestamp === undefined) return;
      if (!(crd.metadata.finalizers ?? []).includes(CRD_CLEANUP_FINALIZER)) return;
      this.queue.add(crd.metadata.name ?? '');
    };
    this.informer.addEventHandler({ onAdd: enqueue, onUpdate: (_old, crd) => enqueue(crd) });
  }

  run(signal: AbortSignal): Promise<void> {
    return runController<string>({
      name: 'crd_finalizer',
      informers: [this.informer],
      queue: this.queue,
      workers: this.workers,
      signal,
      logger: this.log,
      reconcile: (name) => this.sync(name),
    });
  }

  private crds() {
    return this.client.resource<CRD>(CRD_GVR);
  }

  async sync(name: string): Promise<void> {
    let crd: CRD;
    try {
      crd = await this.crds().get(name);
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
    if (crd.metadata.deletionTimestamp === undefined || !(crd.metadata.finalizers ?? []).includes(CRD_CLEANUP_FINALIZER)) return;

    crd = await this.setTerminating(crd, 'InstanceDeletionInProgress', 'CustomResource deletion is in progress');
    const established = (crd.status?.conditions ?? []).some((c) => c.type === 'Established' && c.status === 'True');
    if (established) {
      const failure = await this.deleteInstances(crd);
      if (failure !== undefined) {
        await this.setTerminating(crd, failure.reason, failure.message);
        throw new InstancesRemainingError(failure.message);
      }
    }
    crd = established
      ? await this.setTerminating(crd, 'InstanceDeletionCompleted', 'removed all instances')
      : await this.setTerminating(crd, 'NeverEstablished', 'resource was never established');
    crd.metadata.finalizers = (crd.metadata.finalizers ?? []).filter((f) => f !== CRD_CLEANUP_FINALIZER);
    try {
      await this.crds().update(crd);
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
    this.log.info({ name }, 'removed customresourcecleanup finalizer');
  }

  /** Writes the Terminating condition (status subresource); returns the stored CRD. */
  private async setTerminating(crd: CRD, reason: string, message: string): Promise<CRD> {
    const conditions = (crd.status?.conditions ?? []).map((c) => ({ ...c }));
    const existing = conditions.find((c) => c.type === 'Terminating');
    if (existing?.status === 'True' && existing.reason === reason && existing.message === message) return crd;
    const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    if (existing === undefined) conditions.push({ type: 'Terminating', status: 'True', lastTransitionTime: now, reason, message });
    else {
      if (existing.status !== 'True') existing.lastTransitionTime = now;
      Object.assign(existing, { status: 'True', reason, message });
    }
    // A conflict (someone else wrote it) fails the pass; the retry reads the newer version.
    return this.crds().updateStatus({ ...crd, status: { ...crd.status, conditions } });
  }

  /** Deletes every instance and waits until none is left; a failure as a Terminating reason. */
  private async deleteInstances(crd: CRD): Promise<{ reason: string; message: string } | undefined> {
    const versions = crd.spec.versions ?? [];
    const version = (versions.find((v) => v.storage === true && v.served === true) ?? versions.find((v) => v.served === true))?.name;
    const plural = crd.status?.acceptedNames?.plural || crd.spec.names?.plural || '';
    if (version === undefined) return undefined;
    const resource = this.client.resource({ group: crd.spec.group ?? '', version, resource: plural });
    const namespaced = crd.spec.scope === 'Namespaced';
    let items: KubeObject[];
    try {
      items = (await resource.list()).items;
    } catch (err) {
      if (isNotFound(err)) return undefined;
      return { reason: 'InstanceDeletionFailed', message: `could not list instances: ${errorText(err)}` };
    }
    const namespaces = new Set(items.map((i) => i.metadata.namespace ?? ''));
    const failures: string[] = [];
    for (const ns of namespaces) {
      try {
        await (namespaced ? resource.namespace(ns) : resource).deleteCollection({});
      } catch (err) {
        if (!isNotFound(err)) failures.push(errorText(err));
      }
    }
    if (failures.length > 0) return { reason: 'InstanceDeletionFailed', message: `could not issue all deletes: ${failures.join(', ')}` };
    // Objects with finalizers of their own stay until those are done.
    const deadline = Date.now() + this.waitMs;
    for (;;) {
      let left: number;
      try {
        left = (await resource.list({ limit: 1 })).items.length;
      } catch (err) {
        if (isNotFound(err)) return undefined;
        return { reason: 'InstanceDeletionCheck', message: `could not confirm zero CustomResources remaining: ${errorText(err)}` };
      }
      if (left === 0) return undefined;
      if (Date.now() > deadline) return { reason: 'InstanceDeletionCheck', message: 'could not confirm zero CustomResources remaining: timed out waiting for the condition' };
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
