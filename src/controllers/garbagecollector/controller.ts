// GarbageCollector: deletes objects whose owners are gone and carries out
// foreground and orphan deletion (upstream's pkg/controller/garbagecollector:
// garbagecollector.go over graph_builder.go). A client of the API only.
//
// - Monitors: a metadata-only informer per resource that discovery lists with
//   list, watch and delete (events excepted); discovery is read again every
//   `discoveryPeriodMs` (30 s, as kube-controller-manager) and whenever a CRD
//   changes, so custom resources are watched as they appear.
// - Every informer event goes into the ownership graph (graph.ts), which
//   names the uids to look at; two work queues process them:
//   attemptToDelete: verify the object (live GET by uid; absent → a virtual
//   delete event), then for an owner deleting in foreground remove its
//   `foregroundDeletion` finalizer once no dependent blocks it; for a
//   dependent classify its owners by live GET (solid / dangling / waiting
//   for dependents' deletion) and delete it (preconditioned on its uid) when
//   none is solid, or drop the dangling references when some are.
//   attemptToOrphan: remove the owner's reference from every dependent, then
//   its `orphan` finalizer.
// - Namespace rules: a namespaced owner is looked up in its dependent's
//   namespace; a cluster-scoped dependent naming a namespaced owner is left
//   alone; a reference to an owner observed in another namespace gets an
//   OwnerRefInvalidNamespace Warning event.

import {
  type ClientLogger,
  type KubeObject,
  type InProcessReads,
  type RestClient,
  DeletedFinalStateUnknown,
  SharedIndexInformer,
  WorkQueue,
  isConflict,
  isNotFound,
  silentLogger,
  isStatusError,
} from '../../client/index.js';
import { FINALIZER_FOREGROUND, FINALIZER_ORPHAN, Graph, type GraphNode, type Identity, type ObjectMetaView, type OwnerReference } from './graph.js';
import {
  DEFAULT_IGNORED_RESOURCES,
  type MonitoredResource,
  type ResourceMapping,
  discoverResources,
  getMetadata,
  kindKey,
  metadataListWatch,
  resourcePath,
} from './resources.js';

export const DEFAULT_CONCURRENT_GC_SYNCS = 20;
export const DEFAULT_GC_DISCOVERY_PERIOD_MS = 30_000;
const ABSENT_OWNER_CACHE_SIZE = 500;
const COMPONENT = 'garbage-collector-controller';

export interface GarbageCollectorOptions {
  client: RestClient;
  /** --concurrent-gc-syncs (default 20). */
  workers?: number;
  discoveryPeriodMs?: number;
  ignoredResources?: readonly string[];
  logger?: ClientLogger;
  /** The server's in-process reads, when it runs the collector: the monitors list and watch without HTTP. */
  inProcessReads?: InProcessReads;
}

interface Monitor {
  resource: MonitoredResource;
  informer: SharedIndexInformer<KubeObject>;
  abort: AbortController;
  done: Promise<void>;
}

/** Work outcomes of attemptToDelete (upstream's workQueueItemAction). */
type Outcome = 'forget' | 'requeue';

class RestMappingError extends Error {}

/** A tiny LRU of identities verified absent (upstream's absentOwnerCache). */
class AbsentOwnerCache {
  private readonly entries = new Map<string, true>();
  constructor(private readonly max: number) {}
  add(key: string): void {
    this.entries.delete(key);
    this.entries.set(key, true);
    if (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value as string);
  }
  has(key: string): boolean {
    return this.entries.has(key);
  }
}

function absentKey(ref: { apiVersion: string; kind: string; name: string; uid: string }, namespace: string): string {
  return `${namespace}\u0000${ref.apiVersion}\u0000${ref.kind}\u0000${ref.name}\u0000${ref.uid}`;
}

function metaView(obj: KubeObject): ObjectMetaView {
  const m = obj.metadata;
  const view: ObjectMetaView = { uid: m.uid ?? '', name: m.name ?? '' };
  if (m.namespace) view.namespace = m.namespace;
  if (m.ownerReferences) view.ownerReferences = m.ownerReferences as OwnerReference[];
  if (m.finalizers) view.finalizers = m.finalizers;
  if (m.deletionTimestamp) view.deletionTimestamp = m.deletionTimestamp;
  return view;
}

export class GarbageCollector {
  readonly graph: Graph;
  private readonly client: RestClient;
  private readonly log: ClientLogger;
  private readonly workers: number;
  private readonly discoveryPeriodMs: number;
  private readonly ignored: readonly string[];
  private readonly reads: InProcessReads | undefined;
  private readonly monitors = new Map<string, Monitor>();
  private byKind = new Map<string, ResourceMapping>();
  private readonly absent = new AbsentOwnerCache(ABSENT_OWNER_CACHE_SIZE);
  private readonly deleteQueue = new WorkQueue<string>({ name: 'garbage_collector_attempt_to_delete' });
  private readonly orphanQueue = new WorkQueue<string>({ name: 'garbage_collector_attempt_to_orphan' });
  private resyncRequested: (() => void) | undefined;
  private synced = false;
  private syncWaiters: Array<() => void> = [];

  constructor(options: GarbageCollectorOptions) {
    this.client = options.client;
    this.log = options.logger ?? silentLogger;
    this.workers = Math.max(1, options.workers ?? DEFAULT_CONCURRENT_GC_SYNCS);
    this.discoveryPeriodMs = options.discoveryPeriodMs ?? DEFAULT_GC_DISCOVERY_PERIOD_MS;
    this.ignored = options.ignoredResources ?? DEFAULT_IGNORED_RESOURCES;
    this.reads = options.inProcessReads;
    this.graph = new Graph({
      attemptToDelete: (uid, rateLimited) => (rateLimited === true ? this.deleteQueue.addRateLimited(uid) : this.deleteQueue.add(uid)),
      attemptToOrphan: (uid) => this.orphanQueue.add(uid),
      absentOwner: (id) => this.absent.add(absentKey(id, id.namespace)),
      invalidNamespaceOwnerRef: (dependent, owner) => void this.recordInvalidNamespace(dependent, owner),
    });
  }

  /** Resolves once the first set of monitors has synced and the workers run. */
  whenSynced(): Promise<void> {
    if (this.synced) return Promise.resolve();
    return new Promise((resolve) => this.syncWaiters.push(resolve));
  }

  /** The resources watched now ("resource.group" ids). */
  monitoredResources(): string[] {
    return [...this.monitors.keys()].sort();
  }

  /** Re-reads discovery soon (a CRD changed). */
  requestResync(): void {
    this.resyncRequested?.();
  }

  async run(signal: AbortSignal): Promise<void> {
    const stopQueues = (): void => {
      this.deleteQueue.shutDown();
      this.orphanQueue.shutDown();
    };
    signal.addEventListener('abort', stopQueues, { once: true });
    try {
      // Discovery until it answers, then wait for the first monitors' caches.
      while (!signal.aborted) {
        try {
          await this.syncMonitors(signal);
          break;
        } catch (err) {
          this.log.warn({ controller: 'garbagecollector', err: String(err) }, 'discovery failed; retrying');
          await this.sleep(1000, signal);
        }
      }
      await this.waitForMonitors(signal);
      if (signal.aborted) return;
      this.synced = true;
      for (const w of this.syncWaiters.splice(0)) w();
      const loops: Promise<void>[] = [];
      for (let i = 0; i < this.workers; i++) {
        loops.push(this.deleteWorker());
        loops.push(this.orphanWorker());
      }
      loops.push(this.resyncLoop(signal));
      await Promise.all(loops);
    } finally {
      signal.removeEventListener('abort', stopQueues);
      stopQueues();
      for (const m of this.monitors.values()) m.abort.abort();
      await Promise.allSettled([...this.monitors.values()].map((m) => m.done));
    }
  }

  // ---- monitors -------------------------------------------------------------

  private async resyncLoop(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, this.discoveryPeriodMs);
        function done(): void {
          clearTimeout(timer);
          signal.removeEventListener('abort', done);
          resolve();
        }
        this.resyncRequested = () => setTimeout(done, 200);
        signal.addEventListener('abort', done, { once: true });
      });
      if (signal.aborted) return;
      try {
        await this.syncMonitors(signal);
      } catch (err) {
        this.log.warn({ controller: 'garbagecollector', err: String(err) }, 'discovery failed');
      }
    }
  }

  /** Starts monitors for new deletable resources and stops those no longer served. */
  private async syncMonitors(signal: AbortSignal): Promise<void> {
    const found = await discoverResources(this.client, this.ignored, signal);
    this.byKind = found.byKind;
    const wanted = new Set<string>();
    for (const r of found.deletable) {
      wanted.add(r.id);
      const existing = this.monitors.get(r.id);
      if (existing !== undefined && existing.resource.apiVersion === r.apiVersion) continue;
      if (existing !== undefined) this.stopMonitor(existing);
      this.startMonitor(r, signal);
    }
    for (const [id, m] of this.monitors) if (!wanted.has(id)) this.stopMonitor(m);
  }

  private startMonitor(resource: MonitoredResource, signal: AbortSignal): void {
    // Its cache is read by key only (the DeltaFIFO's known objects, an update's old state): no namespace index.
    const informer = new SharedIndexInformer<KubeObject>(metadataListWatch(this.client, resource.gvr, this.reads), {
      name: `gc:${resource.id}`,
      logger: this.log,
      namespaceIndex: false,
    });
    const { apiVersion, kind } = resource;
    informer.addEventHandler({
      onAdd: (obj) => this.graph.processEvent({ type: 'add', apiVersion, kind, meta: metaView(obj) }),
      onUpdate: (old, obj) => this.graph.processEvent({ type: 'update', apiVersion, kind, meta: metaView(obj), oldMeta: metaView(old) }),
      onDelete: (obj) => {
        const last = obj instanceof DeletedFinalStateUnknown ? obj.obj : obj;
        if (last !== undefined) this.graph.processEvent({ type: 'delete', apiVersion, kind, meta: metaView(last) });
      },
    });
    const abort = new AbortController();
    const combined = AbortSignal.any([signal, abort.signal]);
    this.monitors.set(resource.id, { resource, informer, abort, done: informer.run(combined) });
  }

  private stopMonitor(m: Monitor): void {
    m.abort.abort();
    this.monitors.delete(m.resource.id);
  }

  private async waitForMonitors(signal: AbortSignal): Promise<void> {
    while (!signal.aborted && ![...this.monitors.values()].every((m) => m.informer.hasSynced())) await this.sleep(50, signal);
  }

  private sleep(ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(resolve, ms);
      signal.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
    });
  }

  // ---- attemptToDelete ------------------------------------------------------

  private async deleteWorker(): Promise<void> {
    for (;;) {
      const next = await this.deleteQueue.get();
      if (next.shutdown) return;
      const uid = next.item;
      try {
        const outcome = await this.attemptToDeleteItem(uid);
        if (outcome === 'forget') this.deleteQueue.forget(uid);
        else this.deleteQueue.addRateLimited(uid);
      } catch (err) {
        if (!(err instanceof RestMappingError)) this.log.warn({ controller: 'garbagecollector', uid, err: String(err) }, 'error syncing item');
        this.deleteQueue.addRateLimited(uid);
      } finally {
        this.deleteQueue.done(uid);
      }
    }
  }

  private mapping(apiVersion: string, kind: string): ResourceMapping {
    const m = this.byKind.get(kindKey(apiVersion, kind));
    if (m === undefined) throw new RestMappingError(`unable to get REST mapping for ${apiVersion}/${kind}`);
    return m;
  }

  private async getObject(id: Identity): Promise<KubeObject | null> {
    try {
      return await getMetadata(this.client, this.mapping(id.apiVersion, id.kind), id.namespace, id.name);
    } catch (err) {
      if (isNotFound(err)) return null;
      throw err;
    }
  }

  private virtualDelete(id: Identity): void {
    this.graph.processEvent({ type: 'delete', virtual: true, apiVersion: id.apiVersion, kind: id.kind, meta: { uid: id.uid, name: id.name, namespace: id.namespace } });
  }

  private async attemptToDeleteItem(uid: string): Promise<Outcome> {
    const item = this.graph.get(uid);
    if (item === undefined) return 'forget';
    // Being deleted is a one-way trip: wait for the final deletion.
    if (item.beingDeleted && !item.deletingDependents) return 'forget';
    const latest = await this.getObject(item.identity);
    if (latest === null || latest.metadata.uid !== item.identity.uid) {
      this.virtualDelete(item.identity);
      return 'forget';
    }
    if (item.deletingDependents) {
      await this.processDeletingDependents(item);
      return 'forget';
    }
    const outcome = await this.collectIfOrphaned(item, latest);
    // A virtual node is looked at again until an informer reports the object.
    const now = this.graph.get(uid);
    return outcome === 'forget' && now !== undefined && !now.observed ? 'requeue' : outcome;
  }

  private async collectIfOrphaned(item: GraphNode, latest: KubeObject): Promise<Outcome> {
    const refs = (latest.metadata.ownerReferences ?? []) as OwnerReference[];
    if (refs.length === 0) return 'forget';
    const solid: OwnerReference[] = [];
    const dangling: OwnerReference[] = [];
    const waiting: OwnerReference[] = [];
    for (const ref of refs) {
      const verdict = await this.classify(ref, item);
      if (verdict === 'invalid') return 'forget';
      if (verdict === 'dangling') dangling.push(ref);
      else if (verdict === 'waiting') waiting.push(ref);
      else solid.push(ref);
    }
    if (solid.length > 0) {
      if (dangling.length === 0 && waiting.length === 0) return 'forget';
      // Waiting owners must lose the reference too, or they would wait forever.
      const drop = new Set([...dangling, ...waiting].map((r) => r.uid));
      await this.patchOwnerReferences(item, (owners) => owners.filter((o) => !drop.has(o.uid)));
      return 'forget';
    }
    if (waiting.length > 0 && item.dependentsLength() > 0) {
      // This item blocks a foreground deletion and has dependents itself: delete it in
      // foreground too, first unblocking its own references if a dependent also waits (a cycle).
      for (const dep of item.dependents) {
        if (dep.deletingDependents) {
          await this.patchOwnerReferences(item, (owners) => owners.map((o) => (o.blockOwnerDeletion === true ? { ...o, blockOwnerDeletion: false } : o)));
          break;
        }
      }
      await this.deleteObject(item.identity, 'Foreground');
      return 'forget';
    }
    const finalizers = latest.metadata.finalizers ?? [];
    const policy = finalizers.includes(FINALIZER_ORPHAN) ? 'Orphan' : finalizers.includes(FINALIZER_FOREGROUND) ? 'Foreground' : 'Background';
    await this.deleteObject(item.identity, policy);
    return 'forget';
  }

  /** solid: the owner exists; dangling: it does not (or has another uid); waiting: it deletes in foreground. */
  private async classify(ref: OwnerReference, item: GraphNode): Promise<'solid' | 'dangling' | 'waiting' | 'invalid'> {
    if (this.absent.has(absentKey(ref, '')) || this.absent.has(absentKey(ref, item.identity.namespace))) return 'dangling';
    const mapping = this.mapping(ref.apiVersion, ref.kind);
    if (item.identity.namespace === '' && mapping.namespaced) {
      // A cluster-scoped object cannot have a namespaced owner: retrying will not help.
      this.log.info({ controller: 'garbagecollector', item: item.identity.name, owner: ref.name }, 'item is cluster-scoped, but refers to a namespaced owner');
      return 'invalid';
    }
    const key = absentKey(ref, mapping.namespaced ? item.identity.namespace : '');
    let owner: KubeObject;
    try {
      owner = await getMetadata(this.client, mapping, item.identity.namespace, ref.name);
    } catch (err) {
      if (!isNotFound(err)) throw err;
      this.absent.add(key);
      return 'dangling';
    }
    if (owner.metadata.uid !== ref.uid) {
      this.absent.add(key);
      return 'dangling';
    }
    const m = owner.metadata;
    if (m.deletionTimestamp && (m.finalizers ?? []).includes(FINALIZER_FOREGROUND)) return 'waiting';
    return 'solid';
  }

  private async processDeletingDependents(item: GraphNode): Promise<void> {
    const blocking = item.blockingDependents();
    if (blocking.length === 0) {
      await this.removeFinalizer(item, FINALIZER_FOREGROUND);
      return;
    }
    for (const dep of blocking) if (!dep.deletingDependents) this.deleteQueue.add(dep.identity.uid);
  }

  private async deleteObject(id: Identity, policy: 'Orphan' | 'Foreground' | 'Background'): Promise<void> {
    const mapping = this.mapping(id.apiVersion, id.kind);
    const path = resourcePath(mapping.gvr, mapping.namespaced ? id.namespace : '', id.name);
    this.log.info({ controller: 'garbagecollector', item: `${id.kind} ${id.namespace}/${id.name}`, policy }, 'deleting item');
    try {
      await this.client.request({
        method: 'DELETE',
        path,
        body: { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: policy, preconditions: { uid: id.uid } },
      });
    } catch (err) {
      // Gone already, or another object of that name now: nothing to collect.
      if (isNotFound(err) || isConflict(err)) return;
      throw err;
    }
  }

  /**
   * Rewrites an object's ownerReferences with a JSON merge patch guarded by
   * its uid and resourceVersion, read live (retried on conflict).
   */
  private async patchOwnerReferences(item: GraphNode | Identity, change: (owners: OwnerReference[]) => OwnerReference[]): Promise<void> {
    const id = 'identity' in item ? item.identity : item;
    const mapping = this.mapping(id.apiVersion, id.kind);
    const path = resourcePath(mapping.gvr, mapping.namespaced ? id.namespace : '', id.name);
    for (let attempt = 0; ; attempt++) {
      const current = await this.getObject(id);
      if (current === null || current.metadata.uid !== id.uid) return;
      const owners = (current.metadata.ownerReferences ?? []) as OwnerReference[];
      const next = change(owners);
      if (next.length === owners.length && next.every((o, i) => o === owners[i])) return;
      try {
        await this.client.request({
          method: 'PATCH',
          path,
          contentType: 'application/merge-patch+json',
          body: { metadata: { ownerReferences: next.length > 0 ? next : null, uid: id.uid, resourceVersion: current.metadata.resourceVersion } },
        });
        return;
      } catch (err) {
        if (isNotFound(err)) return;
        if (isConflict(err) && attempt < 5) continue;
        throw err;
      }
    }
  }

  /** Removes one GC finalizer from an owner, guarded by its resourceVersion (retried on conflict). */
  private async removeFinalizer(item: GraphNode, finalizer: string): Promise<void> {
    const id = item.identity;
    const mapping = this.mapping(id.apiVersion, id.kind);
    const path = resourcePath(mapping.gvr, mapping.namespaced ? id.namespace : '', id.name);
    for (let attempt = 0; ; attempt++) {
      const current = await this.getObject(id);
      if (current === null || current.metadata.uid !== id.uid) return;
      const finalizers = current.metadata.finalizers ?? [];
      if (!finalizers.includes(finalizer)) return;
      const rest = finalizers.filter((f) => f !== finalizer);
      try {
        await this.client.request({
          method: 'PATCH',
          path,
          contentType: 'application/merge-patch+json',
          body: { metadata: { finalizers: rest.length > 0 ? rest : null, resourceVersion: current.metadata.resourceVersion } },
        });
        return;
      } catch (err) {
        if (isNotFound(err)) return;
        if (isConflict(err) && attempt < 5) continue;
        throw err;
      }
    }
  }

  // ---- attemptToOrphan ------------------------------------------------------

  private async orphanWorker(): Promise<void> {
    for (;;) {
      const next = await this.orphanQueue.get();
      if (next.shutdown) return;
      const uid = next.item;
      try {
        const owner = this.graph.get(uid);
        if (owner !== undefined) {
          const dependents = [...owner.dependents];
          // A few at a time: each dependent is a GET and a PATCH.
          let i = 0;
          const errors: unknown[] = [];
          const lane = async (): Promise<void> => {
            while (i < dependents.length) {
              const dep = dependents[i++]!;
              try {
                await this.patchOwnerReferences(dep, (owners) => owners.filter((o) => o.uid !== uid));
              } catch (err) {
                errors.push(err);
              }
            }
          };
          await Promise.all(Array.from({ length: Math.min(8, dependents.length) }, lane));
          if (errors.length > 0) throw errors[0];
          await this.removeFinalizer(owner, FINALIZER_ORPHAN);
        }
        this.orphanQueue.forget(uid);
      } catch (err) {
        this.log.warn({ controller: 'garbagecollector', uid, err: String(err) }, 'orphaning failed');
        this.orphanQueue.addRateLimited(uid);
      } finally {
        this.orphanQueue.done(uid);
      }
    }
  }

  // ---- events ---------------------------------------------------------------

  /** The Warning event upstream records when an ownerRef names an owner in another namespace. */
  private async recordInvalidNamespace(dependent: Identity, owner: OwnerReference): Promise<void> {
    const namespace = dependent.namespace === '' ? 'default' : dependent.namespace;
    const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    const message = `ownerRef [${owner.apiVersion}/${owner.kind}, namespace: ${dependent.namespace}, name: ${owner.name}, uid: ${owner.uid}] does not exist in namespace ${JSON.stringify(dependent.namespace)}`;
    try {
      await this.client.request({
        method: 'POST',
        path: `/api/v1/namespaces/${encodeURIComponent(namespace)}/events`,
        body: {
          apiVersion: 'v1',
          kind: 'Event',
          metadata: { name: `${dependent.name}.${Date.now().toString(16)}${Math.floor(Math.random() * 4096).toString(16)}`, namespace },
          involvedObject: {
            apiVersion: dependent.apiVersion,
            kind: dependent.kind,
            name: dependent.name,
            uid: dependent.uid,
            ...(dependent.namespace !== '' ? { namespace: dependent.namespace } : {}),
          },
          reason: 'OwnerRefInvalidNamespace',
          message,
          type: 'Warning',
          source: { component: COMPONENT },
          firstTimestamp: now,
          lastTimestamp: now,
          count: 1,
        },
      });
    } catch (err) {
      if (!isStatusError(err)) this.log.warn({ controller: 'garbagecollector', err: String(err) }, 'could not record event');
    }
  }
}
