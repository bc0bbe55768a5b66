// ResourceQuotaController: keeps every quota's status true (upstream
// pkg/controller/resourcequota: resource_quota_controller.go and
// resource_quota_monitor.go). A client of the API only.
//
// - A quota is synced when it is added, when its spec.hard changes, when its
//   status.hard differs from spec.hard, and every `resyncPeriodMs`
//   (--resource-quota-sync-period, default 5 min) for all quotas.
// - Sync: status.hard = spec.hard; status.used = the usage the evaluators
//   measure over the namespace's objects (from informers), for the names in
//   hard; names the controller cannot measure keep their previous value.
//   Written with UpdateStatus guarded by the quota's resourceVersion (a 409
//   means someone — usually ResourceQuota admission — wrote meanwhile: the
//   key is retried with backoff).
// - Until a quota has status.hard, admission charges nothing to it, so objects
//   created while its first sync measured may be missed: one second after the
//   first status it is measured again, and that recheck may only raise usage
//   (creates charged by admission meanwhile may not be in the informers yet;
//   lowering from a lagging informer would let the namespace overshoot).
// - Replenishment: informers on the resources that quotas name, started when
//   a quota first needs one (upstream watches every quotable resource from the
//   start; apiary serve runs this controller in-process, so watching every
//   configmap write of a cluster without quotas would cost for nothing). Any
//   `count/<resource>.<group>` is found through discovery. A delete, or an
//   update that changes an object's usage, re-syncs the quotas of its
//   namespace that count that resource. Creates need no sync: admission
//   charged them already.
// - Workers: `workers` (--concurrent-resource-quota-syncs, default 5); a key is
//   never synced by two workers at once.
//
// Custom resources: `count/<plural>.<group>` works for any resource discovery
// lists (re-read when a quota names one it does not know).

import type { ResourceQuota } from '../../api/core/v1/types.js';
import {
  type Evaluator,
  type GroupResourceName,
  EvaluatorRegistry,
  resourcesForName,
  scopeSelectorsOf,
} from '../../api/quota/v1/evaluators.js';
import { type Usage, equals, fromWire, mask, toWire } from '../../api/quota/v1/resources.js';
import {
  BucketRateLimiter,
  type ClientLogger,
  ItemExponentialFailureRateLimiter,
  type KubeObject,
  MaxOfRateLimiter,
  NAMESPACE_INDEX,
  type RestClient,
  type SharedIndexInformer,
  type SharedInformerFactory,
  WorkQueue,
  metaNamespaceKeyFunc,
  runController,
  silentLogger,
  isNotFound,
} from '../../client/index.js';
import { deepCopy } from '../../machinery/deep-copy.js';
import { QuotaMonitors } from './monitors.js';

export const DEFAULT_CONCURRENT_RESOURCE_QUOTA_SYNCS = 5;
export const DEFAULT_RESOURCE_QUOTA_SYNC_PERIOD_MS = 5 * 60_000;
/** After a quota's status.hard is first written, it is recalculated once more this much later. */
const FIRST_SYNC_RECHECK_MS = 1_000;

export interface ResourceQuotaControllerOptions {
  client: RestClient;
  informers: SharedInformerFactory;
  workers?: number;
  resyncPeriodMs?: number;
  logger?: ClientLogger;
}

function key(gr: GroupResourceName): string {
  return `${gr.group}/${gr.resource}`;
}

export class ResourceQuotaController {
  readonly queue: WorkQueue<string>;
  private readonly client: RestClient;
  private readonly informers: SharedInformerFactory;
  private readonly quotas: SharedIndexInformer<ResourceQuota>;
  private readonly evaluators = new EvaluatorRegistry();
  private readonly workers: number;
  private readonly resyncPeriodMs: number;
  private readonly log: ClientLogger;
  /** Informers on quota-relevant resources (monitors.ts). */
  private readonly monitors: QuotaMonitors;
  /** Keys whose next sync is the recheck after a first status: it may raise usage, never lower it. */
  private readonly rechecks = new Set<string>();

  constructor(options: ResourceQuotaControllerOptions) {
    this.client = options.client;
    this.informers = options.informers;
    this.workers = Math.max(1, options.workers ?? DEFAULT_CONCURRENT_RESOURCE_QUOTA_SYNCS);
    this.resyncPeriodMs = options.resyncPeriodMs ?? DEFAULT_RESOURCE_QUOTA_SYNC_PERIOD_MS;
    this.log = options.logger ?? silentLogger;
    this.queue = new WorkQueue<string>({
      name: 'resourcequota_primary',
      rateLimiter: new MaxOfRateLimiter<string>(new ItemExponentialFailureRateLimiter<string>(5, 1000), new BucketRateLimiter<string>(10, 100)),
    });
    this.monitors = new QuotaMonitors({
      client: this.client,
      informers: this.informers,
      evaluators: this.evaluators,
      log: this.log,
      what: 'quota',
      onRelease: (gr, obj) => this.replenish(gr, obj),
    });
    this.quotas = options.informers.forBuiltin<ResourceQuota>('resourcequotas');
    this.quotas.addEventHandler({
      onAdd: (q) => this.enqueue(metaNamespaceKeyFunc(q)),
      onUpdate: (old, q) => {
        const specChanged = !equals(fromWire(old.spec?.hard), fromWire(q.spec?.hard));
        if (specChanged || !equals(fromWire(q.spec?.hard), fromWire(q.status?.hard))) this.enqueue(metaNamespaceKeyFunc(q));
      },
    });
  }

  /** A full recalculation of this quota (cancels a pending raise-only recheck). */
  private enqueue(k: string): void {
    this.rechecks.delete(k);
    this.queue.add(k);
  }

  /** Runs until signal aborts (start the informer factory too). */
  run(signal: AbortSignal): Promise<void> {
    this.monitors.run(signal);
    const timer = setInterval(() => {
      for (const q of this.quotas.getIndexer().list()) this.enqueue(metaNamespaceKeyFunc(q));
    }, this.resyncPeriodMs);
    timer.unref?.();
    signal.addEventListener('abort', () => clearInterval(timer), { once: true });
    return runController<string>({
      name: 'resourcequota',
      informers: [this.quotas],
      queue: this.queue,
      workers: this.workers,
      signal,
      logger: this.log,
      reconcile: (k) => this.sync(k),
    });
  }

  private async sync(k: string): Promise<{ requeueAfter?: number } | void> {
    const raiseOnly = this.rechecks.delete(k);
    const quota = this.quotas.getIndexer().getByKey(k);
    if (quota === undefined) return;
    const ns = quota.metadata.namespace ?? '';
    const hard = fromWire(quota.spec?.hard);
    const hardNames = [...hard.keys()];
    const previous = fromWire(quota.status?.used);
    let used: Usage = new Map(previous);
    const measured = await this.calculateUsage(ns, quota, hardNames);
    for (const [name, q] of measured) {
      // The recheck looks for objects created before admission charged anything;
      // creates charged since may not be in the informers yet, so it only raises.
      const before = used.get(name);
      if (!raiseOnly || before === undefined || q.cmp(before) > 0) used.set(name, q);
    }
    used = mask(used, hardNames);
    const dirty =
      quota.status?.hard === undefined ||
      quota.status?.used === undefined ||
      !equals(hard, fromWire(quota.status.hard)) ||
      !equals(used, previous);
    if (!dirty) return;
    const next: ResourceQuota = {
      apiVersion: 'v1',
      kind: 'ResourceQuota',
      ...deepCopy(quota),
      status: { hard: toWire(hard), used: toWire(used) },
    };
    try {
      await this.client.builtin<ResourceQuota>('resourcequotas', ns).updateStatus(next);
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
    // Until status.hard existed, admission charged nothing: objects created
    // while this sync measured may be missing from it. Measure once more.
    const firstHard = quota.status?.hard === undefined || !equals(hard, fromWire(quota.status.hard));
    if (firstHard) {
      this.rechecks.add(k);
      return { requeueAfter: FIRST_SYNC_RECHECK_MS };
    }
  }

  /** Upstream quota.CalculateUsage: every evaluator that counts one of the hard names, over the namespace's objects. */
  private async calculateUsage(ns: string, quota: ResourceQuota, hardNames: string[]): Promise<Usage> {
    const selectors = scopeSelectorsOf(quota);
    const resources = new Map<string, GroupResourceName>();
    for (const name of hardNames) for (const gr of resourcesForName(name)) resources.set(key(gr), gr);
    let total: Usage = new Map();
    const matched = new Set<string>();
    for (const gr of resources.values()) {
      const evaluator: Evaluator | undefined = this.evaluators.get(gr);
      if (evaluator === undefined) continue;
      const names = evaluator.matchingResources(hardNames);
      if (names.length === 0) continue;
      const informer = await this.monitors.get(gr);
      if (informer === undefined) continue;
      for (const n of names) matched.add(n);
      const items = informer.getIndexer().byIndex(NAMESPACE_INDEX, ns);
      const stats = evaluator.usageStats(items, names, selectors);
      for (const [n, q] of stats) total.set(n, total.has(n) ? total.get(n)!.add(q) : q);
    }
    return mask(total, matched);
  }

  /** Queues the quotas of the object's namespace that count this resource. */
  private replenish(gr: GroupResourceName, obj: KubeObject | undefined): void {
    const ns = obj?.metadata.namespace;
    if (ns === undefined) return;
    const evaluator = this.evaluators.get(gr);
    if (evaluator === undefined) return;
    for (const q of this.quotas.getIndexer().byIndex(NAMESPACE_INDEX, ns)) {
      if (evaluator.matchingResources(Object.keys(q.status?.hard ?? {})).length > 0) this.enqueue(metaNamespaceKeyFunc(q));
    }
  }
}
