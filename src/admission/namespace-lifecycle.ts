// NamespaceLifecycle admission (upstream plugin/pkg/admission/namespace/lifecycle).
//
// Contract, for every create, update and delete the registry is about to write:
// - DELETE of an immortal namespace (default, kube-system, kube-public) is a
//   403: `namespaces "default" is forbidden: this namespace may not be deleted`.
//   kube-node-lease is not immortal.
// - Namespaces themselves and cluster-scoped resources pass; so does every
//   DELETE of namespaced content.
// - CREATE or UPDATE of content in a namespace that does not exist: 404
//   `namespaces "x" not found`.
// - CREATE of content in a Terminating namespace: 403 `<resource> "<name>" is
//   forbidden: unable to create new content in namespace x because it is being
//   terminated`, with a NamespaceTerminating cause on metadata.namespace.
//   UPDATE of existing content there is allowed (finalizers must be removable).
//
// Where the namespace is read (upstream's lister first, client as last resort):
// - first from `getCachedNamespace`, the namespaces watch cache of this very
//   process (its parsed, shared objects: no storage round trip and no JSON
//   parse, so a create costs one write, not a read and a write). The cache
//   may lag storage by the time its watch takes to deliver an event
//   (milliseconds).
// - a live read (`getNamespace`, latest revision) only when the cache does not
//   hold the namespace (it may have been created a moment ago; the live read
//   decides between "just created" and 404), or when the cache says Active but
//   this plugin admitted a DELETE of that namespace within RECENT_DELETE_TTL_MS
//   (upstream's forceLiveLookup), so a process never trusts its own stale
//   cache about a deletion it let through.
//
// Why no content outlives its namespace (the race the tests exercise):
// A create can be admitted into a namespace that is already Terminating only
// while the reader it used has not yet seen the DELETE's write:
//   a. the live read ran before the DELETE was written. Storage is
//      linearizable, so this is a create that raced the DELETE itself. If this
//      plugin admitted that DELETE, a create that reads "Active" waits
//      RECHECK_WAIT_MS and reads live again, so a DELETE admitted but not yet
//      written is seen once it lands.
//   b. the cache lags (only possible when the DELETE went through another
//      server on the same storage, since deletions admitted here force the
//      live read). The lag is the watch delivery delay.
// In both cases the create's own write follows within one request's time.
// The namespace controller waits a grace period (5 s, upstream's
// namespaceDeletionGracePeriod) after the deletion timestamp before it lists
// content, and finalizes a namespace only after a full pass found nothing
// left; so a write admitted in either window is in storage when the
// controller looks, and is deleted with the rest. Upstream relies on the same
// pair (informer + forceLiveLookupCache, and the controller's grace period).

import { StatusError, forbidden, internalError, notFound } from '../machinery/errors.js';
import type { Namespace } from '../api/core/v1/types.js';
import type { AdmissionAttributes, AdmissionPlugin } from './interface.js';

export const NAMESPACE_LIFECYCLE_PLUGIN = 'NamespaceLifecycle';

/** Namespaces that can never be deleted (upstream's immortal namespaces). */
export const IMMORTAL_NAMESPACES: readonly string[] = ['default', 'kube-system', 'kube-public'];

/** How long a namespace DELETE is remembered (upstream forceLiveLookupTTL). */
export const RECENT_DELETE_TTL_MS = 30_000;
/** How long a create waits before re-reading a namespace it believes is being deleted. */
export const RECHECK_WAIT_MS = 50;
const RECENT_DELETE_CAPACITY = 100;

export interface NamespaceLifecycleOptions {
  /** A live read of the namespace at the latest revision; undefined (or a NotFound error) when it does not exist. */
  getNamespace(name: string): Promise<Namespace | undefined>;
  /**
   * A read from a cache that may lag storage slightly (the namespaces watch
   * cache, as upstream's lister): synchronous, undefined when the cache does
   * not hold it. The namespace is only read, never changed. Without it every
   * check is a live read.
   */
  getCachedNamespace?(name: string): Readonly<Namespace> | undefined;
  immortalNamespaces?: readonly string[];
  /** Milliseconds since the epoch (tests may pass their own). */
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

const NAMESPACES = { group: '', resource: 'namespaces' };

function terminating(ns: Namespace): boolean {
  return ns.status?.phase === 'Terminating' || ns.metadata.deletionTimestamp !== undefined;
}

function isNamespaceKind(a: AdmissionAttributes): boolean {
  return a.kind.group === '' && a.kind.kind === 'Namespace';
}

export class NamespaceLifecycle implements AdmissionPlugin {
  readonly name = NAMESPACE_LIFECYCLE_PLUGIN;
  private readonly getNamespace: (name: string) => Promise<Namespace | undefined>;
  private readonly getCachedNamespace: ((name: string) => Readonly<Namespace> | undefined) | undefined;
  private readonly immortal: Set<string>;
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;
  /** Namespace name → when its DELETE was admitted and the uid it had (insertion ordered, bounded). */
  private readonly recentlyDeleted = new Map<string, { at: number; uid: string | undefined }>();

  constructor(options: NamespaceLifecycleOptions) {
    this.getNamespace = options.getNamespace;
    this.getCachedNamespace = options.getCachedNamespace;
    this.immortal = new Set(options.immortalNamespaces ?? IMMORTAL_NAMESPACES);
    this.now = options.now ?? Date.now;
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  /** Answered at once (undefined, or thrown) from the cache; a live read otherwise. */
  admit(a: AdmissionAttributes): Promise<void> | undefined {
    if (isNamespaceKind(a)) {
      if (a.operation === 'DELETE' && a.subresource === '') {
        if (this.immortal.has(a.name)) throw forbidden(NAMESPACES, a.name, 'this namespace may not be deleted');
        this.remember(a.name, a.oldObject?.metadata.uid);
      }
      return undefined;
    }
    if (a.namespace === '') return undefined;
    if (a.operation === 'DELETE' || a.operation === 'CONNECT') return undefined;

    const cached = this.getCachedNamespace?.(a.namespace);
    if (cached !== undefined) {
      if (a.operation !== 'CREATE' || terminating(cached)) {
        this.refuseIfTerminating(a, cached);
        return undefined;
      }
      if (!this.deletionInFlight(a.namespace, cached.metadata.uid)) return undefined;
    }
    return this.admitLive(a);
  }

  /** Not in the cache, or a deletion this plugin admitted is not visible there yet: ask storage. */
  private async admitLive(a: AdmissionAttributes): Promise<void> {
    let ns = await this.read(this.getNamespace, a.namespace);
    if (ns === undefined) throw notFound(NAMESPACES, a.namespace);
    if (a.operation !== 'CREATE') return;
    if (!terminating(ns) && this.deletionInFlight(a.namespace, ns.metadata.uid)) {
      // Its DELETE was admitted moments ago and may not have been written yet.
      await this.sleep(RECHECK_WAIT_MS);
      ns = await this.read(this.getNamespace, a.namespace);
      if (ns === undefined) throw notFound(NAMESPACES, a.namespace);
    }
    this.refuseIfTerminating(a, ns);
  }

  /** For a CREATE into a namespace that is being deleted: 403 with a NamespaceTerminating cause. */
  private refuseIfTerminating(a: AdmissionAttributes, ns: Namespace): void {
    if (a.operation !== 'CREATE' || !terminating(ns)) return;
    const gr = { group: a.resource.group, resource: a.resource.resource };
    const err = forbidden(gr, a.name, `unable to create new content in namespace ${a.namespace} because it is being terminated`);
    const details = err.status.details ?? {};
    details.causes = [
      ...(details.causes ?? []),
      { reason: 'NamespaceTerminating', message: `namespace ${a.namespace} is being terminated`, field: 'metadata.namespace' },
    ];
    err.status.details = details;
    throw err;
  }

  private async read(reader: (name: string) => Promise<Namespace | undefined>, name: string): Promise<Namespace | undefined> {
    try {
      return await reader(name);
    } catch (err) {
      if (err instanceof StatusError && err.reason === 'NotFound') return undefined;
      throw err instanceof StatusError ? err : internalError(err);
    }
  }

  private remember(name: string, uid: string | undefined): void {
    this.recentlyDeleted.delete(name);
    this.recentlyDeleted.set(name, { at: this.now(), uid });
    while (this.recentlyDeleted.size > RECENT_DELETE_CAPACITY) {
      const oldest = this.recentlyDeleted.keys().next().value as string;
      this.recentlyDeleted.delete(oldest);
    }
  }

  /** True when a DELETE of this very namespace (same uid) was admitted recently. */
  private deletionInFlight(name: string, uid: string | undefined): boolean {
    const entry = this.recentlyDeleted.get(name);
    if (entry === undefined) return false;
    if (this.now() - entry.at > RECENT_DELETE_TTL_MS) {
      this.recentlyDeleted.delete(name);
      return false;
    }
    return entry.uid === undefined || entry.uid === uid;
  }
}
