// ResourceQuota admission (upstream k8s.io/apiserver/pkg/admission/plugin/
// resourcequota): a validating plugin that charges every create (and every
// update that changes usage) to the namespace's quotas, or refuses it with
// 403 Forbidden and upstream's message.
//
// How usage is charged so that concurrent writes never overshoot:
// - Requests are evaluated per namespace, in batches: while one batch's quota
//   writes are in flight, newcomers queue; the next batch takes them all. A
//   batch reads the namespace's quotas once, runs checkRequest for each
//   request in turn against a running copy (so request 2 sees request 1's
//   charge), and writes each changed quota once.
// - Each write is a compare-and-swap on the quota's resourceVersion (a
//   /status update carrying the version it was computed from), in the same
//   storage as everything else. It fails with 409 when anyone else — this
//   process, another apiary server on the same etcd, the quota controller —
//   wrote the quota since. Then the quotas whose write failed are read live
//   (latest revision) and the requests that were charged to them are checked
//   again, up to MAX_RETRIES times. A request is admitted only once every
//   quota it was charged to has been written: a quota's status.used never
//   counts less than what was admitted against it, and the check that admits
//   is always against the very version the write replaces.
// - Quotas are read from this server's watch cache (it may lag), with the
//   versions this plugin wrote itself preferred when they are newer, so a
//   busy namespace does not pay a conflict per batch for its own writes.
// - Charged but not created (the write after admission failed, or a request
//   charged to quota A was then refused by quota B): usage is over-counted
//   until the quota controller recalculates, as upstream.
// - dryRun requests are checked, never charged.
// - Hierarchical quotas (a HierarchicalResourceQuota in P bounds the sum over
//   P and its descendants; src/tenancy/hierarchical-quota.ts hands them in)
//   are charged in the same batches, by the same check and the same
//   compare-and-swap: a request in N is checked against N's quotas and the
//   hierarchical quotas of N and its ancestors at once. Requests under one
//   hierarchical quota share a batch (keyed by the topmost namespace holding
//   one), so they never race each other on this server; other servers are
//   caught by the compare-and-swap like any other writer.
//
// Not evaluated: subresources, cluster-scoped objects, namespaces themselves,
// events (upstream's ignored resources), operations the evaluator does not
// handle (DELETE never charges; usage is released by the controller).

import { StatusError, internalError } from '../machinery/errors.js';
import type { ResourceQuota } from '../api/core/v1/types.js';
import { EvaluatorRegistry, type PodEvaluatorOptions } from '../api/quota/v1/evaluators.js';
import type { AdmissionAttributes, AdmissionPlugin } from './interface.js';
import { checkRequest, referToQuota } from './resource-quota-check.js';
import type { LimitedResource } from './resource-quota-config.js';

export const RESOURCE_QUOTA_PLUGIN = 'ResourceQuota';

/** Upstream retries 3 times; several servers on one etcd contend more, so a few more. */
export const MAX_RETRIES = 8;
/** How long a request waits for its evaluation (upstream: 10 s). */
export const EVALUATION_TIMEOUT_MS = 10_000;
const REMEMBERED_CAPACITY = 1000;

export interface QuotaAccess {
  /** The namespace's quotas as a cache holds them (may lag storage). */
  listCached(namespace: string): Promise<ResourceQuota[]>;
  /** The same without waiting, when the cache is filled (else undefined); shared objects, not to be changed. */
  peekCached?(namespace: string): readonly ResourceQuota[] | undefined;
  /** The namespace's quotas at the latest revision. */
  listLive(namespace: string): Promise<ResourceQuota[]>;
  /** Writes status.used with metadata.resourceVersion as the precondition (409 when it moved); the stored quota. */
  updateStatus(quota: ResourceQuota): Promise<ResourceQuota>;
}

/**
 * Quotas held by a namespace that bound usage in a whole subtree (HNC's
 * HierarchicalResourceQuota, served by src/tenancy/): charged in the same
 * batches and with the same compare-and-swap as the namespace's own quotas.
 * The objects have ResourceQuota's shape (spec.hard, status.hard, status.used).
 */
export interface HierarchicalQuotaAccess extends QuotaAccess {
  /** The namespaces whose hierarchical quotas bound usage in `namespace`: itself, then its ancestors nearest first. */
  scopeOf(namespace: string): readonly string[];
}

export interface ResourceQuotaOptions extends PodEvaluatorOptions {
  access: QuotaAccess;
  hierarchical?: HierarchicalQuotaAccess;
  limitedResources?: readonly LimitedResource[];
  maxRetries?: number;
}

interface Waiter {
  a: AdmissionAttributes;
  done: boolean;
  resolve(): void;
  reject(err: unknown): void;
}

/** Where a quota comes from: the namespace's own ResourceQuotas, or hierarchical quotas of it and its ancestors. */
type Source = 'rq' | 'hrq';

interface Held {
  source: Source;
  namespace: string;
  quota: ResourceQuota;
}

const keyOf = (source: Source, q: ResourceQuota): string => `${source}/${q.metadata.namespace ?? ''}/${q.metadata.name ?? ''}`;

function revisionOf(q: ResourceQuota): bigint {
  try {
    return BigInt(q.metadata.resourceVersion ?? '0');
  } catch {
    return 0n;
  }
}

/** How a refusal names a hierarchical quota (HNC's wording): `hierarchical quota in namespace "P": "name"`. */
export function referToHierarchicalQuota(quota: ResourceQuota): string {
  return `hierarchical quota in namespace ${JSON.stringify(quota.metadata.namespace ?? '')}: ${JSON.stringify(quota.metadata.name ?? '')}`;
}

export class ResourceQuotaAdmission implements AdmissionPlugin {
  readonly name = RESOURCE_QUOTA_PLUGIN;
  readonly evaluators: EvaluatorRegistry;
  private readonly access: QuotaAccess;
  private readonly hierarchical: HierarchicalQuotaAccess | undefined;
  private readonly limited: readonly LimitedResource[];
  private readonly maxRetries: number;
  /**
   * Waiting requests per batch key; a key with an entry has a worker running.
   * The key is the namespace, or, when hierarchical quotas bound it, the
   * topmost namespace holding one: requests anywhere under one hierarchical
   * quota share its batches, so this server never races itself for it.
   */
  private readonly queues = new Map<string, Waiter[]>();
  /** The quotas this plugin wrote last, by key (newer than the cache for a moment). */
  private readonly written = new Map<string, ResourceQuota>();

  constructor(options: ResourceQuotaOptions) {
    this.access = options.access;
    this.hierarchical = options.hierarchical;
    this.limited = options.limitedResources ?? [];
    this.maxRetries = options.maxRetries ?? MAX_RETRIES;
    this.evaluators = new EvaluatorRegistry(options.now !== undefined ? { now: options.now } : {});
  }

  validate(a: AdmissionAttributes): Promise<void> | undefined {
    if (a.subresource !== '' || a.namespace === '') return undefined;
    if (a.kind.group === '' && a.kind.kind === 'Namespace') return undefined;
    const evaluator = this.evaluators.get(a.resource);
    if (evaluator === undefined || !evaluator.handles(a.operation, a.subresource)) return undefined;
    // A namespace without quotas (most of them) admits at once, without joining a batch;
    // the batch would read the same cache and find the same nothing.
    const top = this.topHolder(a.namespace);
    if (this.limited.length === 0 && top === undefined && this.access.peekCached?.(a.namespace)?.length === 0) return undefined;
    return this.charge(a, top);
  }

  /** Joins the batch of `top` (or of the namespace) and waits for its verdict. */
  private charge(a: AdmissionAttributes, top: string | undefined): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        waiter.done = true;
        reject(internalError(new Error('resource quota evaluation timed out')));
      }, EVALUATION_TIMEOUT_MS);
      const waiter: Waiter = {
        a,
        done: false,
        resolve: () => {
          if (waiter.done) return;
          waiter.done = true;
          clearTimeout(timer);
          resolve();
        },
        reject: (err) => {
          if (waiter.done) return;
          waiter.done = true;
          clearTimeout(timer);
          reject(err);
        },
      };
      this.enqueue(top ?? a.namespace, waiter);
    });
  }

  /**
   * The topmost namespace of `ns`'s scope (itself or an ancestor) that holds
   * hierarchical quotas, as the cache knows it (an unfilled cache counts as
   * holding); undefined when none does.
   */
  private topHolder(ns: string): string | undefined {
    if (this.hierarchical === undefined) return undefined;
    const scope = this.hierarchical.scopeOf(ns);
    for (let i = scope.length - 1; i >= 0; i--) {
      const held = this.hierarchical.peekCached?.(scope[i]!);
      if (held === undefined || held.length > 0) return scope[i];
    }
    return undefined;
  }

  private enqueue(key: string, w: Waiter): void {
    const queue = this.queues.get(key);
    if (queue !== undefined) {
      queue.push(w);
      return;
    }
    this.queues.set(key, [w]);
    void this.work(key);
  }

  /** Drains one key's queue batch by batch; exits (and forgets the key) when it is empty. */
  private async work(key: string): Promise<void> {
    // Let the requests that arrived in the same turn of the event loop join
    // the first batch (else it is a batch of one, and the rest wait for it).
    await new Promise<void>((resolve) => setImmediate(resolve));
    for (;;) {
      const batch = this.queues.get(key)!;
      if (batch.length === 0) {
        this.queues.delete(key);
        return;
      }
      this.queues.set(key, []);
      const live = batch.filter((w) => !w.done);
      try {
        await this.checkBatch(live);
      } catch (err) {
        const e = err instanceof StatusError ? err : internalError(err);
        for (const w of live) w.reject(e);
      }
    }
  }

  private sourceAccess(source: Source): QuotaAccess {
    return source === 'rq' ? this.access : this.hierarchical!;
  }

  /** Every quota bounding the batch's namespaces, by key. */
  private async heldFor(waiters: readonly Waiter[]): Promise<Map<string, Held>> {
    const held = new Map<string, Held>();
    const read = new Set<string>();
    const load = async (source: Source, ns: string): Promise<void> => {
      if (read.has(`${source}/${ns}`)) return;
      read.add(`${source}/${ns}`);
      for (const quota of await this.quotas(source, ns)) held.set(keyOf(source, quota), { source, namespace: ns, quota });
    };
    for (const ns of new Set(waiters.map((w) => w.a.namespace))) {
      await load('rq', ns);
      if (this.hierarchical !== undefined) for (const holder of this.hierarchical.scopeOf(ns)) await load('hrq', holder);
    }
    return held;
  }

  private async checkBatch(waiters: Waiter[]): Promise<void> {
    if (waiters.length === 0) return;
    const held = await this.heldFor(waiters);
    if (held.size === 0 && this.limited.length === 0) {
      for (const w of waiters) w.resolve();
      return;
    }
    await this.checkQuotas(held, waiters, this.maxRetries);
  }

  /**
   * The cached quotas, each replaced by the version this plugin wrote when
   * that one is newer. When the cache holds a quota whose status does not yet
   * list its spec's limits (just created or changed, the controller's status
   * write not seen here yet), the namespace's quotas are read live: such a
   * quota restricts nothing (as upstream), and a cache lagging behind the
   * controller (another server's, on the same etcd) must not turn that into
   * an admission the stored status would refuse. The compare-and-swap guards
   * only the quotas a batch writes, and an unsynced quota is never written.
   */
  private async quotas(source: Source, ns: string): Promise<ResourceQuota[]> {
    const access = this.sourceAccess(source);
    let cached = access.peekCached?.(ns) ?? (await access.listCached(ns));
    if (cached.some(unsynced)) cached = await access.listLive(ns);
    return cached.map((q) => {
      const key = keyOf(source, q);
      const mine = this.written.get(key);
      if (mine === undefined) return q;
      if (mine.metadata.uid === q.metadata.uid && revisionOf(mine) > revisionOf(q)) return mine;
      this.written.delete(key);
      return q;
    });
  }

  private remember(key: string, q: ResourceQuota): void {
    this.written.delete(key);
    this.written.set(key, q);
    while (this.written.size > REMEMBERED_CAPACITY) this.written.delete(this.written.keys().next().value as string);
  }

  /** The keys of the held quotas that bound a request in `ns`: its own quotas, then the hierarchical ones of its scope. */
  private boundingKeys(held: ReadonlyMap<string, Held>, ns: string): string[] {
    const scope = this.hierarchical !== undefined ? new Set(this.hierarchical.scopeOf(ns)) : undefined;
    const keys: string[] = [];
    for (const [key, h] of held) {
      if (h.source === 'rq' ? h.namespace === ns : scope?.has(h.namespace) === true) keys.push(key);
    }
    return keys;
  }

  /**
   * Charges each waiter, in turn, to a running copy of the quotas bounding
   * its namespace; writes every changed quota once (compare-and-swap); the
   * waiters charged to a quota whose write failed are checked again against
   * its live version.
   */
  private async checkQuotas(held: ReadonlyMap<string, Held>, waiters: Waiter[], retries: number): Promise<void> {
    const running = new Map<string, ResourceQuota>();
    for (const [key, h] of held) running.set(key, h.quota);
    const charged: Waiter[] = [];
    for (const w of waiters) {
      const evaluator = this.evaluators.get(w.a.resource)!;
      const keys = this.boundingKeys(held, w.a.namespace);
      const current = keys.map((k) => running.get(k)!);
      const refer = (q: ResourceQuota): string => {
        const source = held.get(keys[current.indexOf(q)] ?? '')?.source;
        return source === 'hrq' ? referToHierarchicalQuota(q) : referToQuota(q);
      };
      let next: ResourceQuota[];
      try {
        next = checkRequest(current, w.a, evaluator, this.limited, refer);
      } catch (err) {
        w.reject(err);
        continue;
      }
      const changed = next.some((q, i) => q !== current[i]);
      if (w.a.dryRun || !changed) {
        w.resolve();
        continue;
      }
      next.forEach((q, i) => running.set(keys[i]!, q));
      charged.push(w);
    }
    if (charged.length === 0) return;

    const failed = new Set<string>();
    let lastError: unknown;
    await Promise.all(
      [...running].map(async ([key, q]) => {
        const h = held.get(key)!;
        if (q === h.quota) return;
        try {
          this.remember(key, await this.sourceAccess(h.source).updateStatus(q));
        } catch (err) {
          failed.add(key);
          lastError = err;
        }
      }),
    );
    if (failed.size === 0) {
      for (const w of charged) w.resolve();
      return;
    }
    if (retries <= 0) {
      const e = lastError instanceof StatusError ? lastError : internalError(lastError);
      for (const w of charged) w.reject(e);
      return;
    }
    // The failed quotas at the latest revision; the charged requests are checked against those only
    // (their charges to the quotas written are kept).
    const fresh = new Map<string, Held>();
    const reread = new Map<string, { source: Source; namespace: string }>();
    for (const key of failed) {
      const h = held.get(key)!;
      reread.set(`${h.source}/${h.namespace}`, { source: h.source, namespace: h.namespace });
    }
    await Promise.all(
      [...reread.values()].map(async ({ source, namespace }) => {
        for (const quota of await this.sourceAccess(source).listLive(namespace)) {
          const key = keyOf(source, quota);
          if (failed.has(key)) fresh.set(key, { source, namespace, quota });
        }
      }),
    );
    await this.checkQuotas(fresh, charged, retries - 1);
  }
}

/** A quota whose status.hard does not yet hold each of its spec.hard limits, with the same value. */
function unsynced(q: ResourceQuota): boolean {
  const hard = q.spec?.hard ?? {};
  const status = q.status?.hard ?? {};
  for (const [name, value] of Object.entries(hard)) if (status[name] !== value) return true;
  return false;
}
