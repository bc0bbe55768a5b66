// NamespacedResourcesDeleter: empties a Terminating namespace through the API
// and releases it (upstream pkg/controller/namespace/deletion).
//
// delete(name), called again and again by the namespace controller until it
// resolves:
// 1. reads the namespace live; gone or not being deleted → nothing to do;
// 2. makes sure status.phase is Terminating;
// 3. if spec.finalizers is already empty → the final DELETE (uid precondition);
// 4. discovers every namespaced resource type that supports delete from the
//    server's own discovery (nothing is hard-coded), and for each one: tries
//    deletecollection, falls back to list + delete, then lists what is left.
//    One type failing does not stop the others; failures and leftovers are
//    written as the namespace's deletion conditions;
//    a group whose discovery keeps failing (an aggregated API server that is
//    down) holds the namespace only for `unavailableGroupTimeoutMs`: upstream
//    waits for it forever (kubernetes#75788), so one dead extension server
//    wedges every namespace deletion. After the timeout the namespace is
//    released without that group's content, and the condition says so;
// 5. if anything is left it throws ResourcesRemainingError with an estimate
//    in seconds (objects with finalizers: 15 s as upstream; graceful deletions:
//    the longest remaining grace period); if a type failed it throws that;
// 6. otherwise removes its finalizer token ("kubernetes") from spec.finalizers
//    through /finalize, and if none remain issues the final DELETE.
//
// Only the client library is used: this runs against any API server.

import type { Namespace, NamespaceCondition } from '../../api/core/v1/types.js';
import {
  type APIResourceList,
  type ClientLogger,
  GroupDiscoveryFailedError,
  type KubeObject,
  type RestClient,
  isConflict,
  isNotFound,
  isStatusError,
  silentLogger,
} from '../../client/index.js';
import { type DeletionReport, applyDeletionConditions, emptyReport } from './conditions.js';
import { deepCopy } from '../../machinery/deep-copy.js';

/** How long a group whose discovery fails may hold a namespace's deletion (default 5 min). */
export const DEFAULT_UNAVAILABLE_GROUP_TIMEOUT_MS = 5 * 60_000;

/** Upstream's default estimate for finalizers to finish, in seconds. */
export const FINALIZER_ESTIMATE_SECONDS = 15;

export const FINALIZER_KUBERNETES = 'kubernetes';

/** Some content is still in the namespace; try again in about `estimateSeconds`. */
export class ResourcesRemainingError extends Error {
  constructor(readonly estimateSeconds: number) {
    super(`some content remains in the namespace, estimate ${estimateSeconds} seconds before it is removed`);
    this.name = 'ResourcesRemainingError';
  }
}

export interface GroupVersionResource {
  group: string;
  version: string;
  resource: string;
}

export interface NamespacedResourcesDeleterOptions {
  client: RestClient;
  /** The token this deleter removes from spec.finalizers (default "kubernetes"). */
  finalizerToken?: string;
  /** Issue the final DELETE once spec.finalizers is empty (default true). */
  deleteNamespaceWhenDone?: boolean;
  finalizerEstimateSeconds?: number;
  /**
   * How long a group version whose discovery fails may hold the namespace
   * (0: never waits; default DEFAULT_UNAVAILABLE_GROUP_TIMEOUT_MS).
   */
  unavailableGroupTimeoutMs?: number;
  /** Milliseconds since the epoch. */
  now?: () => number;
  logger?: ClientLogger;
}

interface ResourceOutcome {
  gvr: GroupVersionResource;
  estimateSeconds: number;
  remaining: number;
  finalizers: Map<string, number>;
  error?: unknown;
}

/** "configmaps." / "deployments.apps": how upstream names a resource in its messages. */
export function resourceId(gvr: GroupVersionResource): string {
  return `${gvr.resource}.${gvr.group}`;
}

/** Go's GroupVersionResource.String(): "/v1, Resource=configmaps". */
function gvrString(gvr: GroupVersionResource): string {
  return `${gvr.group}/${gvr.version}, Resource=${gvr.resource}`;
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** schema.ParseGroupVersion: "v1", "apps/v1"; anything else is an error. */
export function parseGroupVersion(gv: string): { group: string; version: string } {
  if (gv === '' || gv === '/') return { group: '', version: '' };
  const parts = gv.split('/');
  if (parts.length === 1) return { group: '', version: parts[0] as string };
  if (parts.length === 2) return { group: parts[0] as string, version: parts[1] as string };
  throw new Error(`unexpected GroupVersion string: ${gv}`);
}

export class NamespacedResourcesDeleter {
  private readonly client: RestClient;
  private readonly finalizerToken: string;
  private readonly deleteNamespaceWhenDone: boolean;
  private readonly finalizerEstimateSeconds: number;
  private readonly now: () => number;
  private readonly log: ClientLogger;
  private readonly unavailableGroupTimeoutMs: number;
  /** namespace uid → group version → when its discovery was first seen failing. */
  private readonly failingSince = new Map<string, Map<string, number>>();

  constructor(options: NamespacedResourcesDeleterOptions) {
    this.client = options.client;
    this.finalizerToken = options.finalizerToken ?? FINALIZER_KUBERNETES;
    this.deleteNamespaceWhenDone = options.deleteNamespaceWhenDone ?? true;
    this.finalizerEstimateSeconds = options.finalizerEstimateSeconds ?? FINALIZER_ESTIMATE_SECONDS;
    this.now = options.now ?? Date.now;
    this.log = options.logger ?? silentLogger;
    this.unavailableGroupTimeoutMs = options.unavailableGroupTimeoutMs ?? DEFAULT_UNAVAILABLE_GROUP_TIMEOUT_MS;
  }

  private get namespaces() {
    return this.client.namespaces<Namespace>();
  }

  async delete(name: string): Promise<void> {
    let ns: Namespace;
    try {
      ns = await this.namespaces.get(name);
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
    if (ns.metadata.deletionTimestamp === undefined) return;

    const terminating = await this.retryOnConflict(ns, (latest) => this.ensureTerminating(latest));
    if (terminating === undefined) return;
    ns = terminating;
    if (ns.metadata.deletionTimestamp === undefined) return;

    if (this.deleteNamespaceWhenDone && (ns.spec?.finalizers ?? []).length === 0) {
      await this.deleteNamespace(ns);
      return;
    }

    const estimate = await this.deleteAllContent(ns);
    if (estimate > 0) throw new ResourcesRemainingError(estimate);

    const finalized = await this.retryOnConflict(ns, (latest) => this.finalize(latest));
    this.failingSince.delete(ns.metadata.uid ?? name);
    if (finalized === undefined) return;
    if (this.deleteNamespaceWhenDone && (finalized.spec?.finalizers ?? []).length === 0) await this.deleteNamespace(finalized);
  }

  /** Runs fn on the namespace, re-reading it after each conflict; undefined once it is gone. */
  private async retryOnConflict(ns: Namespace, fn: (latest: Namespace) => Promise<Namespace>): Promise<Namespace | undefined> {
    let latest = ns;
    for (;;) {
      try {
        return await fn(latest);
      } catch (err) {
        if (isNotFound(err)) return undefined;
        if (!isConflict(err)) throw err;
      }
      let fresh: Namespace;
      try {
        fresh = await this.namespaces.get(ns.metadata.name ?? '');
      } catch (err) {
        if (isNotFound(err)) return undefined;
        throw err;
      }
      if (fresh.metadata.uid !== latest.metadata.uid) throw new Error('namespace uid has changed across retries');
      latest = fresh;
    }
  }

  private async ensureTerminating(ns: Namespace): Promise<Namespace> {
    if (ns.metadata.deletionTimestamp === undefined || ns.status?.phase === 'Terminating') return ns;
    return this.namespaces.updateStatus({ ...ns, status: { ...(ns.status ?? {}), phase: 'Terminating' } });
  }

  private async finalize(ns: Namespace): Promise<Namespace> {
    const finalizers = [...new Set((ns.spec?.finalizers ?? []).filter((f) => f !== this.finalizerToken))].sort();
    const body: Namespace = { ...ns, spec: { ...(ns.spec ?? {}), finalizers } };
    return this.client.request<Namespace>({ method: 'PUT', path: this.namespaces.path(ns.metadata.name, 'finalize'), body });
  }

  private async deleteNamespace(ns: Namespace): Promise<void> {
    try {
      const uid = ns.metadata.uid;
      await this.namespaces.delete(ns.metadata.name ?? '', uid ? { preconditions: { uid } } : {});
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }

  /**
   * One pass over every deletable namespaced resource type; returns the
   * estimate in seconds (0 = nothing left). Conditions are written before it
   * returns or throws.
   */
  private async deleteAllContent(ns: Namespace): Promise<number> {
    const name = ns.metadata.name ?? '';
    const report: DeletionReport = emptyReport();
    const errors: unknown[] = [];

    const uid = ns.metadata.uid ?? name;
    let lists: APIResourceList[];
    try {
      lists = await this.client.serverPreferredNamespacedResources();
      this.failingSince.delete(uid);
    } catch (err) {
      // Not fatal: work on what could be discovered.
      if (!(err instanceof GroupDiscoveryFailedError)) throw err;
      lists = err.partial;
      report.discoveryFailure = `Discovery failed for some groups, ${err.groups.size} failing: ${err.message}`;
      if (this.heldTooLong(uid, [...err.groups.keys()])) {
        report.discoveryFailure += `; released without them after ${Math.round(this.unavailableGroupTimeoutMs / 1000)}s`;
        this.log.warn({ namespace: name, groups: [...err.groups.keys()] }, 'releasing namespace without the content of groups whose discovery keeps failing');
      } else {
        errors.push(err);
      }
    }

    const targets: Array<{ gvr: GroupVersionResource; verbs: string[] }> = [];
    for (const list of lists) {
      let gv: { group: string; version: string };
      try {
        gv = parseGroupVersion(list.groupVersion);
      } catch (err) {
        report.groupVersionFailure ??= errorMessage(err);
        errors.push(err);
        continue;
      }
      for (const r of list.resources) {
        // Subresources ("pods/status") are not content of their own.
        if (r.name.includes('/') || !r.verbs.includes('delete')) continue;
        targets.push({ gvr: { ...gv, resource: r.name }, verbs: r.verbs });
      }
    }

    const outcomes = await Promise.all(targets.map((t) => this.deleteAllContentFor(name, t.gvr, t.verbs)));
    let estimate = 0;
    for (const o of outcomes) {
      if (o.error !== undefined) {
        report.contentFailures.push(errorMessage(o.error));
        errors.push(o.error);
      }
      estimate = Math.max(estimate, o.estimateSeconds);
      if (o.remaining > 0) {
        report.remainingByResource.set(resourceId(o.gvr), o.remaining);
        for (const [f, n] of o.finalizers) report.remainingByFinalizer.set(f, (report.remainingByFinalizer.get(f) ?? 0) + n);
      }
    }

    await this.writeConditions(ns, report);
    if (errors.length > 0) {
      const err = new Error(errors.map(errorMessage).join(', '));
      throw err;
    }
    return estimate;
  }

  /**
   * Whether every group version in `failing` has failed discovery for this
   * namespace for longer than the timeout. Group versions that recovered are
   * forgotten, so a flapping server restarts its clock.
   */
  private heldTooLong(uid: string, failing: string[]): boolean {
    const now = this.now();
    const previous = this.failingSince.get(uid) ?? new Map<string, number>();
    const since = new Map<string, number>();
    for (const gv of failing) since.set(gv, previous.get(gv) ?? now);
    this.failingSince.set(uid, since);
    return [...since.values()].every((t) => now - t >= this.unavailableGroupTimeoutMs);
  }

  private async writeConditions(ns: Namespace, report: DeletionReport): Promise<void> {
    const conditions: NamespaceCondition[] = deepCopy(ns.status?.conditions ?? []);
    const now = new Date(this.now()).toISOString().replace(/\.\d{3}Z$/, 'Z');
    if (!applyDeletionConditions(conditions, report, now)) return;
    try {
      const updated = await this.namespaces.updateStatus({ ...ns, status: { ...(ns.status ?? {}), conditions } });
      ns.metadata.resourceVersion = updated.metadata.resourceVersion;
      ns.status = updated.status;
    } catch (err) {
      // Conditions are informative; the next pass writes them again.
      this.log.warn({ namespace: ns.metadata.name, err: errorMessage(err) }, 'could not update namespace deletion conditions');
    }
  }

  /** Deletes one resource type's content in the namespace and reports what is left. */
  private async deleteAllContentFor(namespace: string, gvr: GroupVersionResource, verbs: string[]): Promise<ResourceOutcome> {
    const outcome: ResourceOutcome = { gvr, estimateSeconds: 0, remaining: 0, finalizers: new Map() };
    const resource = this.client.resource(gvr).namespace(namespace);
    try {
      // Most types hold nothing in a namespace being deleted: one list (served
      // from the watch cache) settles those, instead of a deletecollection and
      // a list each, upstream's two requests. Whatever the list finds goes the
      // upstream way below.
      if (verbs.includes('list') && (await this.listAll(resource)).length === 0) return outcome;
      let collectionDone = false;
      if (verbs.includes('deletecollection')) {
        try {
          await resource.deleteCollection({ propagationPolicy: 'Background' });
          collectionDone = true;
        } catch (err) {
          // 405 or 404: the type does not really serve deletecollection.
          if (!(isStatusError(err) && (err.code === 405 || err.code === 404))) throw err;
        }
      }
      if (!verbs.includes('list')) return outcome;
      if (!collectionDone) await this.deleteEachItem(resource, namespace);

      const left = await this.listAll(resource);
      if (left.length === 0) return outcome;
      outcome.remaining = left.length;
      const now = this.now();
      let graceSeconds = 0;
      for (const item of left) {
        for (const f of item.metadata.finalizers ?? []) outcome.finalizers.set(f, (outcome.finalizers.get(f) ?? 0) + 1);
        const at = item.metadata.deletionTimestamp;
        if (at !== undefined && (item.metadata.deletionGracePeriodSeconds ?? 0) > 0) {
          graceSeconds = Math.max(graceSeconds, Math.ceil((Date.parse(at) - now) / 1000), 1);
        }
      }
      if (graceSeconds > 0) outcome.estimateSeconds = graceSeconds;
      else if (outcome.finalizers.size > 0) outcome.estimateSeconds = this.finalizerEstimateSeconds;
      else outcome.error = new Error(`unexpected items still remain in namespace: ${namespace} for gvr: ${gvrString(gvr)}`);
    } catch (err) {
      outcome.error = err;
    }
    return outcome;
  }

  private async deleteEachItem(resource: ReturnType<RestClient['resource']>, namespace: string): Promise<void> {
    for (const item of await this.listAll(resource)) {
      if (item.metadata.deletionTimestamp !== undefined) continue;
      try {
        await resource.delete(item.metadata.name ?? '', { propagationPolicy: 'Background' });
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    }
    this.log.debug({ namespace, resource: resource.gvr.resource }, 'deleted each item');
  }

  /**
   * One list without a limit, as upstream's deleter lists: it is served from the
   * watch cache. A list with a limit goes to storage, a range read per resource
   * type per namespace (about 45 per namespace).
   */
  private async listAll(resource: ReturnType<RestClient['resource']>): Promise<KubeObject[]> {
    return (await resource.list({})).items;
  }
}
