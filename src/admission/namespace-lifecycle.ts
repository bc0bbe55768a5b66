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
// Why there is no race (the argument the tests exercise):
// The plugin runs in the API server's process, so its view of a namespace is a
// live read of the namespace store at the latest revision (no informer that
// may lag). Storage is linearizable, so a create that read "Active" read it
// before the namespace's DELETE wrote its deletionTimestamp; everything after
// that DELETE reads "Terminating" and is refused. What remains is a create
// admitted just before the DELETE whose own write is still in flight. Two
// things close that window:
//   1. a short memory of namespaces whose DELETE this plugin admitted: a create
//      that reads "Active" for such a namespace waits briefly and reads again,
//      so a DELETE admitted but not yet written is seen once it lands;
//   2. the namespace controller waits a grace period after the deletion
//      timestamp before it lists content, and only finalizes a namespace once a
//      full pass found nothing left, so a write that was in flight when the
//      namespace started terminating is in storage by the time the controller
//      looks, and is deleted with the rest.
// Upstream closes the same window the same way (forceLiveLookupCache plus the
// controller's namespaceDeletionGracePeriod).

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
  /** A live read of the namespace at the latest revision; undefined when it does not exist. */
  getNamespace(name: string): Promise<Namespace | undefined>;
  immortalNamespaces?: readonly string[];
  /** Milliseconds since the epoch (tests may pass their own). */
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

const NAMESPACES = { group: '', resource: 'namespaces' };

function isNamespaceKind(a: AdmissionAttributes): boolean {
  return a.kind.group === '' && a.kind.kind === 'Namespace';
}

export class NamespaceLifecycle implements AdmissionPlugin {
  readonly name = NAMESPACE_LIFECYCLE_PLUGIN;
  private readonly getNamespace: (name: string) => Promise<Namespace | undefined>;
  private readonly immortal: Set<string>;
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;
  /** Namespace name → when its DELETE was admitted and the uid it had (insertion ordered, bounded). */
  private readonly recentlyDeleted = new Map<string, { at: number; uid: string | undefined }>();

  constructor(options: NamespaceLifecycleOptions) {
    this.getNamespace = options.getNamespace;
    this.immortal = new Set(options.immortalNamespaces ?? IMMORTAL_NAMESPACES);
    this.now = options.now ?? Date.now;
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  async admit(a: AdmissionAttributes): Promise<void> {
    if (isNamespaceKind(a)) {
      if (a.operation === 'DELETE' && a.subresource === '') {
        if (this.immortal.has(a.name)) throw forbidden(NAMESPACES, a.name, 'this namespace may not be deleted');
        this.remember(a.name, a.oldObject?.metadata.uid);
      }
      return;
    }
    if (a.namespace === '') return;
    if (a.operation === 'DELETE' || a.operation === 'CONNECT') return;

    let ns = await this.read(a.namespace);
    if (ns === undefined) throw notFound(NAMESPACES, a.namespace);
    if (a.operation !== 'CREATE') return;
    if (ns.status?.phase !== 'Terminating' && this.deletionInFlight(a.namespace, ns.metadata.uid)) {
      // Its DELETE was admitted moments ago and may not have been written yet.
      await this.sleep(RECHECK_WAIT_MS);
      ns = await this.read(a.namespace);
      if (ns === undefined) throw notFound(NAMESPACES, a.namespace);
    }
    if (ns.status?.phase !== 'Terminating' && ns.metadata.deletionTimestamp === undefined) return;

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

  private async read(name: string): Promise<Namespace | undefined> {
    try {
      return await this.getNamespace(name);
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
