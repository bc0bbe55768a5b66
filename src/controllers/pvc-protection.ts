// PVCProtectionController: the `kubernetes.io/pvc-protection` finalizer
// (upstream's pkg/controller/volume/pvcprotection). The StorageObjectInUseProtection
// admission plugin puts the finalizer on every new claim; this controller
// - removes it from a claim that is being deleted once no pod uses the claim,
//   so `kubectl delete pvc` of a claim a pod mounts leaves it Terminating
//   until that pod is gone;
// - adds it to a claim that lacks it and is not being deleted (claims created
//   while the admission plugin was off).
// A pod uses a claim when it is scheduled (spec.nodeName set: upstream's rule,
// as the kubelet only starts scheduled pods and refuses claims being deleted)
// and one of its volumes names the claim (persistentVolumeClaim.claimName), or
// it has a generic ephemeral volume whose claim `<pod>-<volume>` it controls
// and it is not shut down (deleted with grace period 0).
// The pod cache answers first; a claim it finds unused is confirmed with a
// live list of the namespace's pods before the finalizer goes, as upstream,
// since a pod created a moment ago may not be in the cache yet.
// Pod events requeue the claims of a pod that was deleted, has terminated or
// is not scheduled: the only pod changes that can release a claim.

import {
  type ClientLogger,
  type KubeObject,
  type RestClient,
  type SharedIndexInformer,
  type SharedInformerFactory,
  DeletedFinalStateUnknown,
  ItemExponentialFailureRateLimiter,
  WorkQueue,
  isNotFound,
  runController,
  silentLogger,
} from '../client/index.js';
import { deepCopy } from '../machinery/deep-copy.js';

export const PVC_PROTECTION_FINALIZER = 'kubernetes.io/pvc-protection';

const PVC_GVR = { group: '', version: 'v1', resource: 'persistentvolumeclaims' };
const POD_GVR = { group: '', version: 'v1', resource: 'pods' };

interface PodVolume {
  name: string;
  persistentVolumeClaim?: { claimName?: string };
  ephemeral?: unknown;
}

interface Pod extends KubeObject {
  spec?: { nodeName?: string; volumes?: PodVolume[] };
  status?: { phase?: string; containerStatuses?: { state?: { running?: unknown } }[] };
}

export interface PVCProtectionControllerOptions {
  client: RestClient;
  informers: SharedInformerFactory;
  workers?: number;
  logger?: ClientLogger;
}

export class PVCProtectionController {
  readonly queue: WorkQueue<string>;
  private readonly client: RestClient;
  private readonly claims: SharedIndexInformer<KubeObject>;
  private readonly pods: SharedIndexInformer<Pod>;
  private readonly workers: number;
  private readonly log: ClientLogger;

  constructor(options: PVCProtectionControllerOptions) {
    this.client = options.client;
    this.workers = Math.max(1, options.workers ?? 1);
    this.log = options.logger ?? silentLogger;
    this.queue = new WorkQueue<string>({ name: 'pvcprotection', rateLimiter: new ItemExponentialFailureRateLimiter<string>(5, 60_000) });
    this.claims = options.informers.forResource<KubeObject>(PVC_GVR);
    this.pods = options.informers.forResource<Pod>(POD_GVR);
    const enqueueClaim = (pvc: KubeObject): void => {
      if (needsAdding(pvc) || needsRemoving(pvc)) this.queue.add(key(pvc.metadata.namespace ?? '', pvc.metadata.name ?? ''));
    };
    this.claims.addEventHandler({ onAdd: enqueueClaim, onUpdate: (_old, pvc) => enqueueClaim(pvc) });
    this.pods.addEventHandler({
      onAdd: (pod) => this.enqueueClaimsOf(pod, false),
      onUpdate: (old, pod) => {
        this.enqueueClaimsOf(pod, false);
        // the same name may now be another pod: the old one is gone
        if (old.metadata.uid !== pod.metadata.uid) this.enqueueClaimsOf(old, true);
      },
      onDelete: (obj) => {
        const pod = obj instanceof DeletedFinalStateUnknown ? obj.obj : obj;
        if (pod) this.enqueueClaimsOf(pod, true);
      },
    });
  }

  run(signal: AbortSignal): Promise<void> {
    return runController<string>({
      name: 'pvcprotection',
      informers: [this.claims, this.pods],
      queue: this.queue,
      workers: this.workers,
      signal,
      logger: this.log,
      reconcile: (k) => this.sync(k),
    });
  }

  /** The claims a pod names, when the pod's change may release them. */
  private enqueueClaimsOf(pod: Pod, deleted: boolean): void {
    if (!deleted && !podIsTerminated(pod) && (pod.spec?.nodeName ?? '') !== '') return;
    const ns = pod.metadata.namespace ?? '';
    for (const v of pod.spec?.volumes ?? []) {
      if (v.persistentVolumeClaim?.claimName) this.queue.add(key(ns, v.persistentVolumeClaim.claimName));
      else if (v.ephemeral !== undefined) this.queue.add(key(ns, `${pod.metadata.name ?? ''}-${v.name}`));
    }
  }

  async sync(k: string): Promise<void> {
    const [ns, name] = splitKey(k);
    const pvc = this.claims.getIndexer().getByKey(k);
    if (pvc === undefined) return;
    if (needsAdding(pvc)) {
      await this.writeFinalizers(pvc, [...(pvc.metadata.finalizers ?? []), PVC_PROTECTION_FINALIZER]);
      this.log.info({ namespace: ns, name }, 'added pvc-protection finalizer');
      return;
    }
    if (!needsRemoving(pvc)) return;
    if (this.cachedPodsUse(ns, pvc) || (await this.livePodsUse(ns, pvc))) return; // a pod event requeues it
    await this.writeFinalizers(pvc, (pvc.metadata.finalizers ?? []).filter((f) => f !== PVC_PROTECTION_FINALIZER));
    this.log.info({ namespace: ns, name }, 'removed pvc-protection finalizer: no pod uses the claim');
  }

  private cachedPodsUse(ns: string, pvc: KubeObject): boolean {
    return this.pods.lister().namespace(ns).list().some((pod) => podUsesClaim(pod, pvc));
  }

  private async livePodsUse(ns: string, pvc: KubeObject): Promise<boolean> {
    const pods = await this.client.resource<Pod>(POD_GVR).namespace(ns).list();
    return pods.items.some((pod) => podUsesClaim(pod, pvc));
  }

  /**
   * Writes the cached claim with new finalizers, as upstream (one request; a conflict fails the
   * pass and the retry reads the newer version from the cache).
   */
  private async writeFinalizers(cached: KubeObject, finalizers: string[]): Promise<void> {
    const pvc = deepCopy(cached);
    pvc.metadata.finalizers = finalizers;
    try {
      await this.client.resource<KubeObject>(PVC_GVR).namespace(pvc.metadata.namespace ?? '').update(pvc);
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
  }
}

const key = (ns: string, name: string): string => `${ns}/${name}`;

function splitKey(k: string): [string, string] {
  const i = k.indexOf('/');
  return [k.slice(0, i), k.slice(i + 1)];
}

function needsAdding(pvc: KubeObject): boolean {
  return pvc.metadata.deletionTimestamp === undefined && !(pvc.metadata.finalizers ?? []).includes(PVC_PROTECTION_FINALIZER);
}

function needsRemoving(pvc: KubeObject): boolean {
  return pvc.metadata.deletionTimestamp !== undefined && (pvc.metadata.finalizers ?? []).includes(PVC_PROTECTION_FINALIZER);
}

/** Upstream's podUsesPVC: only scheduled pods hold claims. */
export function podUsesClaim(pod: Pod, pvc: KubeObject): boolean {
  if ((pod.spec?.nodeName ?? '') === '') return false;
  const claimName = pvc.metadata.name;
  return (pod.spec?.volumes ?? []).some(
    (v) =>
      (v.persistentVolumeClaim !== undefined && v.persistentVolumeClaim.claimName === claimName) ||
      (!podIsShutDown(pod) && v.ephemeral !== undefined && `${pod.metadata.name ?? ''}-${v.name}` === claimName && isControlledBy(pvc, pod)),
  );
}

/** Deleted with grace period 0 (force-deleted, or done on its node): it holds nothing any more. */
function podIsShutDown(pod: Pod): boolean {
  return pod.metadata.deletionTimestamp !== undefined && pod.metadata.deletionGracePeriodSeconds === 0;
}

/** Upstream's IsPodTerminated: a terminal phase, or deleted with no container running. */
function podIsTerminated(pod: Pod): boolean {
  const phase = pod.status?.phase;
  if (phase === 'Succeeded' || phase === 'Failed') return true;
  return pod.metadata.deletionTimestamp !== undefined && (pod.status?.containerStatuses ?? []).every((c) => c.state?.running === undefined);
}

function isControlledBy(obj: KubeObject, owner: KubeObject): boolean {
  return (obj.metadata.ownerReferences ?? []).some((r) => r.controller === true && r.uid === owner.metadata.uid);
}
