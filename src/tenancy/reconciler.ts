// The hierarchy reconciler: what HNC's anchor and hierarchy reconcilers do,
// run inside the server on its own stores (no webhook, no client identity).
// It follows the anchors (list, then watch) and the hierarchy index, and after
// any change makes one pass (passes never overlap; a change during a pass asks
// for another; a pass that met an error is retried soon). A pass visits every
// anchor but only the namespaces a change since the last pass may concern (the
// index says which; all of them at start and after the index relisted), so
// creating a namespace costs the same with 10 or 10,000 others (issue 30).
// Each pass, in order:
//
// 1. Anchors (anchors-reconcile.ts): an anchor C in P gets the `hnc.x-k8s.io`
//    finalizer and namespace C, created by the server with the annotation
//    `hnc.x-k8s.io/subnamespace-of: P`, its tree labels and its `hierarchy`
//    object naming P; its state follows HNC (Missing, Ok, Conflict,
//    Forbidden). A deleted anchor deletes its subnamespace (the namespace's
//    usual Terminating lifecycle) and lets its finalizer go once the namespace
//    is gone, or at once when the namespace is not its to delete.
// 2. Tree labels (tree-labels.ts), with the managed labels and annotations
//    (managed-metadata.ts) in the same write: every namespace in a hierarchy (with a
//    parent, children or an anchor) carries `<n>.tree.hnc.x-k8s.io/depth` for
//    itself (0) and each ancestor; a namespace that leaves a tree loses them.
//    Each namespace's labels change in one write, so no namespace ever shows
//    labels of two trees. Namespaces never touched by the hierarchy are never
//    written (clients that do not use it see kube-apiserver's objects).
// 3. HierarchyConfigurations (hierarchy-config-status.ts): a namespace in a
//    hierarchy has its `hierarchy` object, a subnamespace's parent is its
//    annotation's, and status.children and status.conditions
//    (ActivitiesHalted: ParentMissing, IllegalParent, InCycle,
//    AncestorHaltActivities; BadConfiguration: SubnamespaceAnchorMissing)
//    are kept up to date.
//
// Every write is idempotent and guarded by resourceVersion (patch retries a
// conflict), so two servers on one storage may both reconcile.

import type { Logger } from 'pino';
import type { KubeObject } from '../machinery/meta.js';
import type { RESTStore, Watcher } from '../registry/rest.js';
import type { Clock } from '../machinery/names.js';
import { HNC_GROUP } from '../api/hnc/v1alpha2/types.js';
import type { HierarchyIndex, HierarchySource } from './hierarchy-index.js';
import { reconcileAnchor } from './anchors-reconcile.js';
import { reconcileTreeLabels } from './tree-labels.js';
import { reconcileHierarchyConfiguration } from './hierarchy-config-status.js';
import type { ManagedMetadata } from './managed-metadata.js';

/** What one pass works with. */
export interface ReconcileContext {
  hierarchy: HierarchyIndex;
  namespaces: RESTStore;
  anchors: RESTStore;
  hierarchyConfigurations: RESTStore;
  /** Anchors by "<namespace>/<name>", as last seen. */
  anchorsSeen: ReadonlyMap<string, KubeObject>;
  now(): Date;
  /** Per pass: whether a namespace has its own ActivitiesHalted condition (memo of hierarchy-config-status.ts). */
  halted: Map<string, boolean>;
  /** The managed labels and annotations (--managed-namespace-label/-annotation); absent: none. */
  managed?: ManagedMetadata;
  logger?: Logger;
}

export const FIELD_MANAGER = 'hnc.x-k8s.io';
const RETRY_MS = 200;
const WRITE_CONCURRENCY = 32;

export class HierarchyReconciler {
  private readonly anchorsSeen = new Map<string, KubeObject>();
  private watcher: Watcher | undefined;
  private unsubscribe: (() => void) | undefined;
  private running = false;
  private again = false;
  private stopped = false;
  private retry: NodeJS.Timeout | undefined;
  private idleWaiters: (() => void)[] = [];
  /** Namespaces the next pass reconciles; every namespace while `everything`. */
  private readonly dirty = new Set<string>();
  private everything = true;

  constructor(
    private readonly source: HierarchySource,
    private readonly hierarchy: HierarchyIndex,
    private readonly clock: Clock | undefined,
    private readonly logger?: Logger,
    private readonly managed?: ManagedMetadata,
  ) {}

  async start(): Promise<void> {
    const unsubscribeTree = this.hierarchy.onChangeOf((affected) => {
      if (affected === 'all') this.everything = true;
      else for (const ns of affected) this.dirty.add(ns);
      this.schedule();
    });
    // A namespace that carries or should carry managed keys (HNC's managed labels and annotations) may have had them
    // edited: a pass puts them back (as HNC's reconciler does).
    const managed = this.managed;
    const unsubscribeNamespaces =
      managed?.any === true
        ? this.hierarchy.onNamespace((ns) => {
            const keys = (o: Record<string, string> | undefined, test: (k: string) => boolean): boolean => Object.keys(o ?? {}).some(test);
            const name = ns.metadata.name!;
            const wantsSome = [name, ...this.hierarchy.ancestorsOf(name)].some((n) => this.hierarchy.managedSpecOf(n) !== undefined);
            if (wantsSome || keys(ns.metadata.labels, (k) => managed.isManagedLabel(k)) || keys(ns.metadata.annotations, (k) => managed.isManagedAnnotation(k))) {
              this.dirty.add(name);
              this.schedule();
            }
          })
        : () => undefined;
    this.unsubscribe = () => {
      unsubscribeTree();
      unsubscribeNamespaces();
    };
    await this.followAnchors();
    this.schedule();
  }

  stop(): void {
    this.stopped = true;
    this.unsubscribe?.();
    this.watcher?.stop();
    if (this.retry !== undefined) clearTimeout(this.retry);
    for (const w of this.idleWaiters.splice(0)) w();
  }

  /** Resolves when no pass is running or asked for (tests, benchmarks). */
  idle(): Promise<void> {
    if (!this.running && !this.again) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private store(group: string, resource: string): RESTStore {
    const s = this.source.storeFor(group, resource);
    if (s === undefined) throw new Error(`hierarchy reconciler: no store for ${resource}.${group}`);
    return s;
  }

  private async followAnchors(): Promise<void> {
    const store = this.store(HNC_GROUP, 'subnamespaceanchors');
    const list = await store.list('', {});
    this.anchorsSeen.clear();
    for (const a of list.items) this.anchorsSeen.set(`${a.metadata.namespace}/${a.metadata.name}`, a);
    // Anchors may have changed while no watch ran: the next pass looks at everything.
    this.everything = true;
    this.watcher = await store.watch('', { resourceVersion: list.metadata.resourceVersion! }, {
      event: (e) => {
        if (e.type === 'BOOKMARK' || e.type === 'ERROR') return;
        const a = e.object as KubeObject;
        const key = `${a.metadata.namespace}/${a.metadata.name}`;
        if (e.type === 'DELETED') this.anchorsSeen.delete(key);
        else this.anchorsSeen.set(key, a);
        // The anchor's namespace and its subnamespace's subtree (anchor-missing conditions).
        for (const ns of [a.metadata.namespace!, a.metadata.name!, ...this.hierarchy.descendantsOf(a.metadata.name!)]) this.dirty.add(ns);
        this.schedule();
      },
      done: () => {
        if (this.stopped) return;
        setTimeout(() => {
          if (this.stopped) return;
          this.followAnchors().catch((err: unknown) => this.logger?.warn({ err }, 'hierarchy reconciler: anchor watch restart failed'));
        }, 100).unref();
      },
    });
    if (this.stopped) this.watcher.stop();
  }

  /** Asks for a pass (one runs at a time; changes during a pass ask for another). */
  schedule(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    setImmediate(() => void this.loop());
  }

  private async loop(): Promise<void> {
    let failed = false;
    do {
      this.again = false;
      failed = !(await this.pass());
    } while (this.again && !this.stopped);
    this.running = false;
    if (failed && !this.stopped) {
      this.retry ??= setTimeout(() => {
        this.retry = undefined;
        this.schedule();
      }, RETRY_MS);
      this.retry.unref();
    }
    if (!this.running && !this.again) for (const w of this.idleWaiters.splice(0)) w();
  }

  /** One pass; false when some write failed (the pass is tried again soon). */
  private async pass(): Promise<boolean> {
    const ctx: ReconcileContext = {
      hierarchy: this.hierarchy,
      namespaces: this.store('', 'namespaces'),
      anchors: this.store(HNC_GROUP, 'subnamespaceanchors'),
      hierarchyConfigurations: this.store(HNC_GROUP, 'hierarchyconfigurations'),
      anchorsSeen: this.anchorsSeen,
      now: () => (this.clock !== undefined ? this.clock() : new Date()),
      halted: new Map(),
      ...(this.managed !== undefined ? { managed: this.managed } : {}),
      ...(this.logger !== undefined ? { logger: this.logger } : {}),
    };
    let ok = true;
    const attempt = async (what: string, f: () => Promise<void>): Promise<boolean> => {
      try {
        await f();
        return true;
      } catch (err) {
        ok = false;
        this.logger?.debug({ err, what }, 'hierarchy reconciler: will retry');
        return false;
      }
    };
    for (const anchor of [...this.anchorsSeen.values()]) {
      if (this.stopped) return true;
      await attempt(`anchor ${anchor.metadata.namespace}/${anchor.metadata.name}`, () => reconcileAnchor(ctx, anchor));
    }
    const names = this.everything ? [...this.hierarchy.namespaceNames()] : [...this.dirty].filter((ns) => this.hierarchy.exists(ns));
    this.everything = false;
    this.dirty.clear();
    // A namespace whose write failed is tried again by the retry's pass.
    const again = (ns: string) => (ok: boolean) => {
      if (!ok) this.dirty.add(ns);
    };
    // Many writes at once: storage commits concurrent writes together.
    await runLimited(names, WRITE_CONCURRENCY, (ns) => attempt(`tree labels of ${ns}`, () => reconcileTreeLabels(ctx, ns)).then(again(ns)));
    await runLimited(names, WRITE_CONCURRENCY, (ns) => attempt(`hierarchy of ${ns}`, () => reconcileHierarchyConfiguration(ctx, ns)).then(again(ns)));
    return ok;
  }
}

/** Runs `f` over `items`, at most `limit` at a time. */
async function runLimited<T>(items: readonly T[], limit: number, f: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await f(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/** HNC's notion of a namespace in a hierarchy: it has a parent, children, or is a subnamespace. */
export function inHierarchy(h: HierarchyIndex, ns: string): boolean {
  return h.parentOf(ns) !== undefined || h.childrenOf(ns).length > 0 || h.isSubnamespace(ns);
}
