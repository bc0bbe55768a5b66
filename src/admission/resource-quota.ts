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
//
// Not evaluated: subresources, cluster-scoped objects, namespaces themselves,
// events (upstream's ignored resources), operations the evaluator does not
// handle (DELETE never charges; usage is released by the controller).

import { StatusError, internalError } from '../machinery/errors.js';
import type { ResourceQuota } from '../api/core/v1/types.js';
import { EvaluatorRegistry, type PodEvaluatorOptions } from '../api/quota/v1/evaluators.js';
import type { AdmissionAttributes, AdmissionPlugin } from './interface.js';
import { checkRequest } from './resource-quota-check.js';
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

export interface ResourceQuotaOptions extends PodEvaluatorOptions {
  access: QuotaAccess;
  limitedResources?: readonly LimitedResource[];
  maxRetries?: number;
}

interface Waiter {
  a: AdmissionAttributes;
  done: boolean;
  resolve(): void;
  reject(err: unknown): void;
}

function revisionOf(q: ResourceQuota): bigint {
  try {
    return BigInt(q.metadata.resourceVersion ?? '0');
  } catch {
    return 0n;
  }
}

export class ResourceQuotaAdmission implements AdmissionPlugin {
  readonly name = RESOURCE_QUOTA_PLUGIN;
  readonly evaluators: EvaluatorRegistry;
  private readonly access: QuotaAccess;
  private readonly limited: readonly LimitedResource[];
  private readonly maxRetries: number;
  /** Waiting requests per namespace; a namespace with an entry has a worker running. */
  private readonly queues = new Map<string, Waiter[]>();
  /** The quotas this plugin wrote last, by namespace/name (newer than the cache for a moment). */
  private readonly written = new Map<string, ResourceQuota>();

  constructor(options: ResourceQuotaOptions) {
    this.access = options.access;
    this.limited = options.limitedResources ?? [];
    this.maxRetries = options.maxRetries ?? MAX_RETRIES;
    this.evaluators = new EvaluatorRegistry(options.now !== undefined ? { now: options.now } : {});
  }

  async validate(a: AdmissionAttributes): Promise<void> {
    if (a.subresource !== '' || a.namespace === '') return;
    if (a.kind.group === '' && a.kind.kind === 'Namespace') return;
    const evaluator = this.evaluators.get(a.resource);
    if (evaluator === undefined || !evaluator.handles(a.operation, a.subresource)) return;
    // A namespace without quotas (most of them) admits at once, without joining a batch;
    // the batch would read the same cache and find the same nothing.
    if (this.limited.length === 0 && this.access.peekCached?.(a.namespace)?.length === 0) return;
    await new Promise<void>((resolve, reject) => {
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
      this.enqueue(waiter);
    });
  }

  private enqueue(w: Waiter): void {
    const ns = w.a.namespace;
    const queue = this.queues.get(ns);
    if (queue !== undefined) {
      queue.push(w);
      return;
    }
    this.queues.set(ns, [w]);
    void this.work(ns);
  }

  /** Drains one namespace's queue batch by batch; exits (and forgets the namespace) when it is empty. */
  private async work(ns: string): Promise<void> {
    // Let the requests that arrived in the same turn of the event loop join
    // the first batch (else it is a batch of one, and the rest wait for it).
    await new Promise<void>((resolve) => setImmediate(resolve));
    for (;;) {
      const batch = this.queues.get(ns)!;
      if (batch.length === 0) {
        this.queues.delete(ns);
        return;
      }
      this.queues.set(ns, []);
      const live = batch.filter((w) => !w.done);
      try {
        await this.checkBatch(ns, live);
      } catch (err) {
        const e = err instanceof StatusError ? err : internalError(err);
        for (const w of live) w.reject(e);
      }
    }
  }

  private async checkBatch(ns: string, waiters: Waiter[]): Promise<void> {
    if (waiters.length === 0) return;
    const quotas = await this.quotas(ns);
    if (quotas.length === 0 && this.limited.length === 0) {
      for (const w of waiters) w.resolve();
      return;
    }
    await this.checkQuotas(ns, quotas, waiters, this.maxRetries);
  }

  /** The cached quotas, each replaced by the version this plugin wrote when that one is newer. */
  private async quotas(ns: string): Promise<ResourceQuota[]> {
    const cached = this.access.peekCached?.(ns) ?? (await this.access.listCached(ns));
    return cached.map((q) => {
      const key = `${ns}/${q.metadata.name ?? ''}`;
      const mine = this.written.get(key);
      if (mine === undefined) return q;
      if (mine.metadata.uid === q.metadata.uid && revisionOf(mine) > revisionOf(q)) return mine;
      this.written.delete(key);
      return q;
    });
  }

  private remember(q: ResourceQuota): void {
    const key = `${q.metadata.namespace ?? ''}/${q.metadata.name ?? ''}`;
    this.written.delete(key);
    this.written.set(key, q);
    while (this.written.size > REMEMBERED_CAPACITY) this.written.delete(this.written.keys().next().value as string);
  }

  private async checkQuotas(ns: string, quotas: ResourceQuota[], waiters: Waiter[], retries: number): Promise<void> {
    let running = quotas;
    const charged: Waiter[] = [];
    for (const w of waiters) {
      const evaluator = this.evaluators.get(w.a.resource)!;
      let next: ResourceQuota[];
      try {
        next = checkRequest(running, w.a, evaluator, this.limited);
      } catch (err) {
        w.reject(err);
        continue;
      }
      const changed = next.some((q, i) => q !== running[i]);
      if (w.a.dryRun || !changed) {
        w.resolve();
        continue;
      }
      running = next;
      charged.push(w);
    }
    if (charged.length === 0) return;

    const failed = new Set<string>();
    let lastError: unknown;
    await Promise.all(
      running.map(async (q, i) => {
        if (q === quotas[i]) return;
        try {
          this.remember(await this.access.updateStatus(q));
        } catch (err) {
          failed.add(q.metadata.name ?? '');
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
    const fresh = (await this.access.listLive(ns)).filter((q) => failed.has(q.metadata.name ?? ''));
    await this.checkQuotas(ns, fresh, charged, retries - 1);
  }
}
