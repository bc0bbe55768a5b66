// HierarchicalResourceQuotaController: keeps every HRQ's status true (HNC's
// internal/hrq reconcilers, done as the ResourceQuota controller does it).
// A client of the API only.
//
// - status.hard = spec.hard; status.used = the usage the quota evaluators
//   measure (from informers) summed over the HRQ's namespace and all its
//   descendants, for the names in hard; requestsSummary/limitsSummary as HNC
//   prints them. Written with UpdateStatus guarded by the HRQ's
//   resourceVersion (a 409 — usually admission charging it — retries the key);
//   the main resource is written, as HNC's CRD has no status subresource.
// - The tree is read as the server's index reads it: the `hierarchy`
//   HierarchyConfiguration's spec.parent, else the namespace's
//   hnc.x-k8s.io/subnamespace-of annotation. A namespace whose parent
//   changes (re-parenting, a new subnamespace, a deleted namespace) re-syncs
//   the HRQs of its old and its new ancestors: the moved subtree's usage
//   leaves the one and joins the other.
// - Replenishment: informers on the resources HRQs name (the ResourceQuota
//   controller's monitors, resourcequota/monitors.ts); a delete, or an update that changes an
//   object's usage, re-syncs the HRQs of the object's namespace and its
//   ancestors. Creates need no sync: admission charged them already.
// - Raising usage is written at once. Lowering is written at once as far as
//   the events explain it (the usage of deleted objects, of shrunk ones, of a
//   subtree that moved out, recorded as the events come); a drop beyond that
//   is written only once the HRQ has stayed unchanged for `releaseSettleMs`
//   and a second measurement still finds it: a create admitted (charged) but
//   not yet stored, or not yet in the informers, must not be "released" by a
//   measurement that cannot see it, or concurrent creates could overshoot
//   (admission charges before it stores).
// - Every HRQ is re-synced every `resyncPeriodMs`.

import {
  ANNOTATION_SUBNAMESPACE_OF,
  HIERARCHY_SINGLETON,
  type HierarchicalResourceQuota,
  type HierarchyConfiguration,
} from '../api/hnc/v1alpha2/types.js';
import { type Evaluator, type GroupResourceName, EvaluatorRegistry, resourcesForName } from '../api/quota/v1/evaluators.js';
import { type Usage, add, equals, fromWire, mask, toWire } from '../api/quota/v1/resources.js';
import { quotaSummaries } from '../api/quota/v1/summary.js';
import {
  BucketRateLimiter,
  type ClientLogger,
  DeletedFinalStateUnknown,
  ItemExponentialFailureRateLimiter,
  type KubeObject,
  MaxOfRateLimiter,
  NAMESPACE_INDEX,
  type RestClient,
  type SharedIndexInformer,
  type SharedInformerFactory,
  WorkQueue,
  isNotFound,
  metaNamespaceKeyFunc,
  runController,
  silentLogger,
} from '../client/index.js';
import { deepCopy } from '../machinery/deep-copy.js';
import { QuotaMonitors } from './resourcequota/monitors.js';

export const HRQ_GVR = { group: 'hnc.x-k8s.io', version: 'v1alpha2', resource: 'hierarchicalresourcequotas' };
export const HIERARCHY_GVR = { group: 'hnc.x-k8s.io', version: 'v1alpha2', resource: 'hierarchyconfigurations' };
export const DEFAULT_CONCURRENT_HRQ_SYNCS = 5;
export const DEFAULT_HRQ_SYNC_PERIOD_MS = 5 * 60_000;
export const DEFAULT_HRQ_RELEASE_SETTLE_MS = 1_500;
/** How often a controller facing a server without HRQs looks again. */
const SERVED_RECHECK_MS = 60_000;


export interface HierarchicalQuotaControllerOptions {
  client: RestClient;
  informers: SharedInformerFactory;
  workers?: number;
  resyncPeriodMs?: number;
  /** How long an HRQ must stay unchanged before usage measured lower is written (default 1.5 s). */
  releaseSettleMs?: number;
  logger?: ClientLogger;
}

const grKey = (gr: GroupResourceName): string => `${gr.group}/${gr.resource}`;

export class HierarchicalQuotaController {
  readonly queue: WorkQueue<string>;
  private readonly client: RestClient;
  private readonly informers: SharedInformerFactory;
  private hrqs!: SharedIndexInformer<HierarchicalResourceQuota>;
  private hierarchies!: SharedIndexInformer<HierarchyConfiguration>;
  private readonly evaluators = new EvaluatorRegistry();
  private readonly workers: number;
  private readonly resyncPeriodMs: number;
  private readonly settleMs: number;
  private readonly log: ClientLogger;
  private namespaces!: SharedIndexInformer<KubeObject>;
  /** namespace → spec.parent of its `hierarchy` HierarchyConfiguration. */
  private readonly configured = new Map<string, string>();
  /** namespace → its hnc.x-k8s.io/subnamespace-of annotation. */
  private readonly annotated = new Map<string, string>();
  private children: Map<string, string[]> | undefined;
  /** Keys with a lower usage measured: the HRQ resourceVersion it was measured at. */
  private readonly pendingRelease = new Map<string, string>();
  /** Per key, usage seen leaving its subtree since its last sync: a drop up to this much is written at once. */
  private readonly allowances = new Map<string, Usage>();
  /** Informers on the resources HRQs count (the ResourceQuota controller's monitors). */
  private readonly monitors: QuotaMonitors;

  constructor(options: HierarchicalQuotaControllerOptions) {
    this.client = options.client;
    this.informers = options.informers;
    this.workers = Math.max(1, options.workers ?? DEFAULT_CONCURRENT_HRQ_SYNCS);
    this.resyncPeriodMs = options.resyncPeriodMs ?? DEFAULT_HRQ_SYNC_PERIOD_MS;
    this.settleMs = options.releaseSettleMs ?? DEFAULT_HRQ_RELEASE_SETTLE_MS;
    this.log = options.logger ?? silentLogger;
    this.queue = new WorkQueue<string>({
      name: 'hierarchicalresourcequota',
      rateLimiter: new MaxOfRateLimiter<string>(new ItemExponentialFailureRateLimiter<string>(5, 1000), new BucketRateLimiter<string>(10, 100)),
    });
    this.monitors = new QuotaMonitors({
      client: this.client,
      informers: this.informers,
      evaluators: this.evaluators,
      log: this.log,
      what: 'hierarchical quota',
      onRelease: (gr, obj, released) => this.replenish(gr, obj, released),
    });
  }

  /** The informers this controller follows, made once the server serves HRQs. */
  private follow(): void {
    this.hrqs = this.informers.forResource<HierarchicalResourceQuota>(HRQ_GVR);
    this.hrqs.addEventHandler({
      onAdd: (q) => this.queue.add(metaNamespaceKeyFunc(q)),
      onUpdate: (old, q) => {
        const hard = fromWire(q.spec?.hard);
        if (!equals(fromWire(old.spec?.hard), hard) || !equals(hard, fromWire(q.status?.hard))) this.queue.add(metaNamespaceKeyFunc(q));
      },
    });
    this.hierarchies = this.informers.forResource<HierarchyConfiguration>(HIERARCHY_GVR);
    this.hierarchies.addEventHandler({
      onAdd: (h) => this.setConfigured(h, h.spec?.parent),
      onUpdate: (_old, h) => this.setConfigured(h, h.spec?.parent),
      onDelete: (h) => {
        const obj = h instanceof DeletedFinalStateUnknown ? (h.obj as HierarchyConfiguration | undefined) : h;
        if (obj !== undefined) this.setConfigured(obj, undefined);
      },
    });
    this.namespaces = this.informers.forBuiltin<KubeObject>('namespaces');
    this.namespaces.addEventHandler({
      onAdd: (n) => this.setAnnotated(n.metadata.name ?? '', n.metadata.annotations?.[ANNOTATION_SUBNAMESPACE_OF]),
      onUpdate: (_old, n) => this.setAnnotated(n.metadata.name ?? '', n.metadata.annotations?.[ANNOTATION_SUBNAMESPACE_OF]),
      onDelete: (n) => {
        const obj = n instanceof DeletedFinalStateUnknown ? (n.obj as KubeObject | undefined) : n;
        if (obj !== undefined) this.setAnnotated(obj.metadata.name ?? '', undefined);
      },
    });
  }

  /** Runs until signal aborts; idles (looking again every minute) while the server does not serve HRQs. */
  async run(signal: AbortSignal): Promise<void> {
    this.monitors.run(signal);
    while (!(await this.served())) {
      if (signal.aborted) return;
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, SERVED_RECHECK_MS);
        signal.addEventListener('abort', () => { clearTimeout(t); resolve(); }, { once: true });
      });
      if (signal.aborted) return;
    }
    this.follow();
    this.informers.start(signal);
    const timer = setInterval(() => this.enqueueAll(), this.resyncPeriodMs);
    timer.unref?.();
    signal.addEventListener('abort', () => clearInterval(timer), { once: true });
    return runController<string>({
      name: 'hierarchicalresourcequota',
      informers: [this.hrqs, this.hierarchies, this.namespaces],
      queue: this.queue,
      workers: this.workers,
      signal,
      logger: this.log,
      reconcile: (k) => this.sync(k),
    });
  }

  private enqueueAll(): void {
    for (const q of this.hrqs.getIndexer().list()) this.queue.add(metaNamespaceKeyFunc(q));
  }

  private setConfigured(h: HierarchyConfiguration, parent: string | undefined): void {
    if (h.metadata.name !== HIERARCHY_SINGLETON) return;
    const ns = h.metadata.namespace ?? '';
    this.reparent(ns, () => {
      if (parent === undefined || parent === '') this.configured.delete(ns);
      else this.configured.set(ns, parent);
    });
  }

  private setAnnotated(ns: string, parent: string | undefined): void {
    this.reparent(ns, () => {
      if (parent === undefined || parent === '') this.annotated.delete(ns);
      else this.annotated.set(ns, parent);
    });
  }

  /** Applies a change of `ns`'s parent sources; when its parent moved, re-syncs the HRQs of its old and new ancestors. */
  private reparent(ns: string, change: () => void): void {
    const old = this.parentOf(ns);
    const before = this.ancestorsOf(ns);
    change();
    if (this.parentOf(ns) === old) return;
    this.children = undefined;
    const after = this.ancestorsOf(ns);
    for (const a of after) this.enqueueHeldIn(a);
    // The ancestors it left lose the subtree's usage: measured now, that much may be released at once.
    const left = before.filter((a) => !after.includes(a));
    if (left.length === 0) return;
    const subtree = this.subtreeOf(ns);
    void this.allowRelease(left, subtree)
      .catch((err: unknown) => this.log.warn({ err: String(err) }, 'hierarchical quota: measuring a moved subtree failed'))
      .finally(() => {
        for (const a of left) this.enqueueHeldIn(a);
      });
  }

  private async allowRelease(holders: readonly string[], namespaces: readonly string[]): Promise<void> {
    for (const holder of holders) {
      for (const q of this.hrqs.getIndexer().byIndex(NAMESPACE_INDEX, holder)) {
        this.allow(metaNamespaceKeyFunc(q), await this.calculateUsage(namespaces, Object.keys(q.spec?.hard ?? {})));
      }
    }
  }

  /** Records usage known to be gone from an HRQ's subtree (a delete, a shrink, a subtree moved out). */
  private allow(key: string, released: Usage): void {
    const current = this.allowances.get(key);
    this.allowances.set(key, current === undefined ? released : add(current, released));
  }

  /** The `hierarchy` object's spec.parent, else the subnamespace-of annotation (as the server's index). */
  private parentOf(ns: string): string | undefined {
    return this.configured.get(ns) ?? this.annotated.get(ns);
  }

  /** Parent, grandparent, …; stops at a cycle. */
  private ancestorsOf(ns: string): string[] {
    const out: string[] = [];
    const seen = new Set([ns]);
    for (let p = this.parentOf(ns); p !== undefined && !seen.has(p); p = this.parentOf(p)) {
      out.push(p);
      seen.add(p);
    }
    return out;
  }

  /** `ns` and every descendant. */
  private subtreeOf(ns: string): string[] {
    if (this.children === undefined) {
      const children = new Map<string, string[]>();
      for (const child of new Set([...this.configured.keys(), ...this.annotated.keys()])) {
        const parent = this.parentOf(child)!;
        let list = children.get(parent);
        if (list === undefined) children.set(parent, (list = []));
        list.push(child);
      }
      this.children = children;
    }
    const out = [ns];
    const seen = new Set(out);
    for (let i = 0; i < out.length; i++) {
      for (const c of this.children.get(out[i]!) ?? []) {
        if (seen.has(c)) continue;
        seen.add(c);
        out.push(c);
      }
    }
    return out;
  }

  private enqueueHeldIn(ns: string, filter?: (q: HierarchicalResourceQuota) => boolean): void {
    for (const q of this.hrqs.getIndexer().byIndex(NAMESPACE_INDEX, ns)) {
      if (filter === undefined || filter(q)) this.queue.add(metaNamespaceKeyFunc(q));
    }
  }

  private async sync(key: string): Promise<{ requeueAfter?: number } | void> {
    const quota = this.hrqs.getIndexer().getByKey(key);
    if (quota === undefined || quota.metadata.deletionTimestamp !== undefined) {
      this.pendingRelease.delete(key);
      return;
    }
    const ns = quota.metadata.namespace ?? '';
    const hard = fromWire(quota.spec?.hard);
    const hardNames = [...hard.keys()];
    const previous = fromWire(quota.status?.used);
    const measured = await this.calculateUsage(this.subtreeOf(ns), hardNames);
    const rv = quota.metadata.resourceVersion ?? '';
    // Raise at once; lower only what was measured lower twice, the HRQ unchanged for settleMs in between.
    const settled = this.pendingRelease.get(key) === rv;
    this.pendingRelease.delete(key);
    const allowance = this.allowances.get(key);
    this.allowances.delete(key);
    let lowering = false;
    const used: Usage = new Map(previous);
    for (const [name, q] of measured) {
      const before = used.get(name);
      if (before === undefined || q.cmp(before) > 0 || settled) used.set(name, q);
      else if (q.cmp(before) < 0) {
        // A drop the events explain (deletes, a subtree moved out) is written at once; more than that
        // may be a create admitted but not yet seen, so it waits to settle.
        const room = allowance?.get(name);
        if (room !== undefined && before.sub(q).cmp(room) <= 0) used.set(name, q);
        else lowering = true;
      }
    }
    const usedNow = mask(used, hardNames);
    const hardChanged = quota.status?.hard === undefined || !equals(hard, fromWire(quota.status.hard));
    const dirty = hardChanged || quota.status?.used === undefined || !equals(usedNow, previous);
    let written = quota;
    if (dirty) {
      // toWire's quantities are strings.
      const hardWire = toWire(hard) as Record<string, string>;
      const usedWire = toWire(usedNow) as Record<string, string>;
      const next: HierarchicalResourceQuota = {
        apiVersion: `${HRQ_GVR.group}/${HRQ_GVR.version}`,
        kind: 'HierarchicalResourceQuota',
        ...deepCopy(quota),
        status: { hard: hardWire, used: usedWire, ...quotaSummaries(hardWire, usedWire) },
      };
      try {
        // The main resource: as HNC's CRD, the kind has no status subresource.
        written = await this.client.resource<HierarchicalResourceQuota>(HRQ_GVR).namespace(ns).update(next);
      } catch (err) {
        if (isNotFound(err)) return;
        if (allowance !== undefined) this.allow(key, allowance);
        throw err;
      }
    }
    if (lowering) {
      this.pendingRelease.set(key, written.metadata.resourceVersion ?? '');
      return { requeueAfter: this.settleMs };
    }
    // Until status.hard existed, admission charged nothing: objects created while this
    // sync measured may be missing from it. Measure once more (it may only raise).
    if (hardChanged) return { requeueAfter: this.settleMs };
  }

  /** Every evaluator that counts one of the hard names, over the objects of the given namespaces. */
  private async calculateUsage(namespaces: readonly string[], hardNames: string[]): Promise<Usage> {
    const resources = new Map<string, GroupResourceName>();
    for (const name of hardNames) for (const gr of resourcesForName(name)) resources.set(grKey(gr), gr);
    const total: Usage = new Map();
    const matched = new Set<string>();
    for (const gr of resources.values()) {
      const evaluator: Evaluator | undefined = this.evaluators.get(gr);
      if (evaluator === undefined) continue;
      const names = evaluator.matchingResources(hardNames);
      if (names.length === 0) continue;
      const informer = await this.monitors.get(gr);
      if (informer === undefined) continue;
      for (const n of names) matched.add(n);
      for (const ns of namespaces) {
        const items = informer.getIndexer().byIndex(NAMESPACE_INDEX, ns);
        for (const [n, q] of evaluator.usageStats(items, names, [])) total.set(n, total.has(n) ? total.get(n)!.add(q) : q);
      }
    }
    // Names measured over no object at all are zero.
    for (const n of matched) if (!total.has(n)) total.set(n, fromWire({ [n]: '0' }).get(n)!);
    return mask(total, matched);
  }

  /** Queues the HRQs of the object's namespace and its ancestors that count this resource, allowing `released` to go. */
  private replenish(gr: GroupResourceName, obj: KubeObject, released: Usage): void {
    const ns = obj.metadata.namespace;
    const evaluator = this.evaluators.get(gr);
    if (ns === undefined || evaluator === undefined) return;
    for (const holder of [ns, ...this.ancestorsOf(ns)]) {
      for (const q of this.hrqs.getIndexer().byIndex(NAMESPACE_INDEX, holder)) {
        if (evaluator.matchingResources(Object.keys(q.spec?.hard ?? {})).length === 0) continue;
        const key = metaNamespaceKeyFunc(q);
        this.allow(key, released);
        this.queue.add(key);
      }
    }
  }

  /** Whether the server serves hnc.x-k8s.io/v1alpha2 HierarchicalResourceQuotas (a kube-apiserver does not). */
  private async served(): Promise<boolean> {
    try {
      await this.monitors.discover();
    } catch (err) {
      this.log.warn({ err: String(err) }, 'hierarchical quota: discovery failed');
      return false;
    }
    return this.monitors.knownVersion(HRQ_GVR) === HRQ_GVR.version;
  }
}
