// The hierarchy index: the `Hierarchy` contract (hierarchy.ts) kept in memory
// from this server's stores. It follows two resources, each by a list and then
// a watch from the list's resourceVersion (a watch that ends is started again
// from a fresh list, as the RBAC index does):
// - namespaces: which exist, and their `hnc.x-k8s.io/subnamespace-of`
//   annotation (a subnamespace, and its parent when it has no hierarchy yet);
// - hierarchyconfigurations named `hierarchy`: `spec.parent`, the source of
//   truth for a namespace's parent (HNC's model).
//
// Invariants: a namespace has at most one parent; ancestors never repeat (a
// cycle, which admission refuses but a store edited behind our back could
// hold, ends the walk where it would loop); derived answers (ancestors,
// descendants) are cached and dropped when a parent changes, so a read costs a
// map lookup on the authorization path. Listeners run after the change is
// applied. A change is applied to the one namespace it concerns (a full
// rebuild only follows a list): with 10,000 namespaces a rebuild per event
// made creating or deleting namespaces cost N² (issue 30).

import type { Logger } from 'pino';
import type { KubeObject } from '../machinery/meta.js';
import type { RESTStore, Watcher } from '../registry/rest.js';
import { ANNOTATION_SUBNAMESPACE_OF, HIERARCHY_SINGLETON, HNC_GROUP, LABEL_TREE_DEPTH_SUFFIX, type HierarchyConfiguration, type MetaKVP } from '../api/hnc/v1alpha2/types.js';
import type { Hierarchy } from './hierarchy.js';

/** Where the index reads from: the registry's stores (in-process). */
export interface HierarchySource {
  storeFor(group: string, resource: string): RESTStore | undefined;
}

interface Followed {
  group: string;
  resource: string;
  /** Applies an event; returns the namespace whose entry changed, or undefined. */
  apply(type: 'ADDED' | 'MODIFIED' | 'DELETED', obj: KubeObject): string | undefined;
  reset(items: KubeObject[]): void;
}

const EMPTY: readonly string[] = Object.freeze([]);

function treeLabelled(ns: KubeObject): boolean {
  for (const key of Object.keys(ns.metadata.labels ?? {})) if (key.endsWith(LABEL_TREE_DEPTH_SUFFIX)) return true;
  return false;
}

export class HierarchyIndex implements Hierarchy {
  /** Existing namespaces → their subnamespace-of annotation ('' when none). */
  private readonly namespaces = new Map<string, string>();
  /** Namespaces being deleted (deletionTimestamp set). */
  private readonly terminating = new Set<string>();
  /** Namespaces carrying a tree label (`<n>.tree.hnc.x-k8s.io/depth`): the reconciler decodes no other namespace outside a tree. */
  private readonly treeLabelled = new Set<string>();
  /** Namespace → spec.parent of its `hierarchy` object (only when set). */
  private readonly configuredParents = new Map<string, string>();
  /** Namespaces that hold a `hierarchy` object. */
  private readonly configured = new Set<string>();
  /** Namespaces whose `hierarchy` sets spec.allowCascadingDeletion. */
  private readonly cascading = new Set<string>();
  /** Namespace → its `hierarchy`'s spec.labels and spec.annotations (JSON; only when either is set): a change asks for a pass. */
  private readonly managedSpecs = new Map<string, { text: string; labels: MetaKVP[]; annotations: MetaKVP[] }>();
  private parents = new Map<string, string>();
  private children = new Map<string, string[]>();
  private readonly ancestorCache = new Map<string, readonly string[]>();
  private readonly descendantCache = new Map<string, readonly string[]>();
  private readonly listeners = new Set<() => void>();
  /** Told of every namespace written (not deleted), tree change or not. */
  private readonly namespaceListeners = new Set<(ns: Readonly<KubeObject>) => void>();
  private readonly affectedListeners = new Set<(affected: ReadonlySet<string> | 'all') => void>();
  private readonly watchers: Watcher[] = [];
  private stopped = false;
  private started: Promise<void> | undefined;
  /** The highest resourceVersion each followed resource has been seen at. */
  private readonly seen = new Map<string, bigint>();
  private readonly waiters: { resource: string; rv: bigint; resolve: () => void }[] = [];

  constructor(
    private readonly source: HierarchySource,
    private readonly logger?: Logger,
  ) {}

  /** Loads both resources and keeps following them; resolves once the first lists are applied. */
  start(): Promise<void> {
    return (this.started ??= Promise.all(this.followed().map((f) => this.follow(f))).then(() => undefined));
  }

  stop(): void {
    this.stopped = true;
    for (const w of this.watchers.splice(0)) w.stop();
    for (const w of this.waiters.splice(0)) w.resolve();
  }

  // ---- Hierarchy ----

  parentOf(namespace: string): string | undefined {
    return this.parents.get(namespace);
  }

  ancestorsOf(namespace: string): readonly string[] {
    let cached = this.ancestorCache.get(namespace);
    if (cached === undefined) {
      const out: string[] = [];
      const seen = new Set([namespace]);
      for (let p = this.parents.get(namespace); p !== undefined && !seen.has(p); p = this.parents.get(p)) {
        out.push(p);
        seen.add(p);
      }
      cached = out.length === 0 ? EMPTY : Object.freeze(out);
      this.ancestorCache.set(namespace, cached);
    }
    return cached;
  }

  childrenOf(namespace: string): readonly string[] {
    return this.children.get(namespace) ?? EMPTY;
  }

  descendantsOf(namespace: string): readonly string[] {
    let cached = this.descendantCache.get(namespace);
    if (cached === undefined) {
      const out: string[] = [];
      const seen = new Set([namespace]);
      const queue = [...this.childrenOf(namespace)];
      while (queue.length > 0) {
        const ns = queue.pop()!;
        if (seen.has(ns)) continue;
        seen.add(ns);
        out.push(ns);
        queue.push(...this.childrenOf(ns));
      }
      cached = out.length === 0 ? EMPTY : Object.freeze(out.sort());
      this.descendantCache.set(namespace, cached);
    }
    return cached;
  }

  isSubnamespace(namespace: string): boolean {
    return (this.namespaces.get(namespace) ?? '') !== '';
  }

  /** Calls `listener` with every namespace created or updated (its labels may matter to the caller); returns the unsubscribe. */
  onNamespace(listener: (ns: Readonly<KubeObject>) => void): () => void {
    this.namespaceListeners.add(listener);
    return () => this.namespaceListeners.delete(listener);
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Like onChange, told which namespaces the change may concern: the one whose
   * entry changed, its parent before and after, and its subtree before and
   * after ('all' after a list). Runs before the onChange listeners.
   */
  onChangeOf(listener: (affected: ReadonlySet<string> | 'all') => void): () => void {
    this.affectedListeners.add(listener);
    return () => this.affectedListeners.delete(listener);
  }

  // ---- beyond the contract ----

  /** Whether the namespace exists (as last seen). */
  exists(namespace: string): boolean {
    return this.namespaces.has(namespace);
  }

  /** Whether the namespace holds its `hierarchy` object. */
  hasConfiguration(namespace: string): boolean {
    return this.configured.has(namespace);
  }

  /**
   * HNC's rule: allowCascadingDeletion set on the namespace or on any of its
   * ancestors. A namespace being deleted counts as allowing it: its deletion
   * was admitted (so cascading was allowed then, or it had no subnamespaces),
   * and its own `hierarchy` may go before its subnamespaces do.
   */
  allowsCascadingDeletion(namespace: string): boolean {
    const allows = (ns: string) => this.cascading.has(ns) || this.terminating.has(ns);
    return allows(namespace) || this.ancestorsOf(namespace).some(allows);
  }

  /** Whether the namespace carries a tree label (as last seen). */
  hasTreeLabels(namespace: string): boolean {
    return this.treeLabelled.has(namespace);
  }

  /** Whether the namespace is being deleted (as last seen). */
  isTerminating(namespace: string): boolean {
    return this.terminating.has(namespace);
  }

  /** Every namespace seen, in no particular order. */
  namespaceNames(): IterableIterator<string> {
    return this.namespaces.keys();
  }

  /** The parent a namespace's `hierarchy` object names, even when that parent does not exist. */
  configuredParentOf(namespace: string): string | undefined {
    return this.configuredParents.get(namespace);
  }

  /**
   * Resolves once the index has seen `resource` ('namespaces' or
   * 'hierarchyconfigurations') at `resourceVersion` or later: pass a write's own
   * resourceVersion and the index reflects that write. Gives up (resolves)
   * after `timeoutMs`.
   */
  waitForResourceVersion(resource: 'namespaces' | 'hierarchyconfigurations', resourceVersion: string | undefined, timeoutMs = 5000): Promise<void> {
    if (resourceVersion === undefined || resourceVersion === '' || this.stopped) return Promise.resolve();
    const rv = BigInt(resourceVersion);
    if ((this.seen.get(resource) ?? -1n) >= rv) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        const i = this.waiters.findIndex((w) => w.resolve === done);
        if (i >= 0) this.waiters.splice(i, 1);
        resolve();
      }, timeoutMs);
      timer.unref();
      const done = () => {
        clearTimeout(timer);
        resolve();
      };
      this.waiters.push({ resource, rv, resolve: done });
    });
  }

  // ---- following the stores ----

  private followed(): Followed[] {
    return [
      {
        group: '',
        resource: 'namespaces',
        reset: (items) => {
          this.namespaces.clear();
          this.terminating.clear();
          this.treeLabelled.clear();
          for (const ns of items) {
            this.namespaces.set(ns.metadata.name!, ns.metadata.annotations?.[ANNOTATION_SUBNAMESPACE_OF] ?? '');
            if (ns.metadata.deletionTimestamp !== undefined) this.terminating.add(ns.metadata.name!);
            if (treeLabelled(ns)) this.treeLabelled.add(ns.metadata.name!);
          }
        },
        apply: (type, ns) => {
          const name = ns.metadata.name!;
          const before = this.namespaces.get(name);
          const wasTerminating = this.terminating.has(name);
          const wasLabelled = this.treeLabelled.has(name);
          if (type === 'DELETED') {
            this.namespaces.delete(name);
            this.terminating.delete(name);
            this.treeLabelled.delete(name);
            return before !== undefined ? name : undefined;
          }
          const after = ns.metadata.annotations?.[ANNOTATION_SUBNAMESPACE_OF] ?? '';
          this.namespaces.set(name, after);
          for (const listener of this.namespaceListeners) listener(ns);
          const terminating = ns.metadata.deletionTimestamp !== undefined;
          if (terminating) this.terminating.add(name);
          else this.terminating.delete(name);
          const labelled = treeLabelled(ns);
          if (labelled) this.treeLabelled.add(name);
          else this.treeLabelled.delete(name);
          // Tree labels arriving on a namespace outside any tree (written before it left one) are a change: the reconciler removes them.
          return before !== after || wasTerminating !== terminating || (labelled && !wasLabelled) ? name : undefined;
        },
      },
      {
        group: HNC_GROUP,
        resource: 'hierarchyconfigurations',
        reset: (items) => {
          this.configuredParents.clear();
          this.configured.clear();
          this.cascading.clear();
          this.managedSpecs.clear();
          for (const hc of items) this.setConfigured(hc);
        },
        apply: (type, hc) => {
          if (hc.metadata.name !== HIERARCHY_SINGLETON) return undefined;
          const ns = hc.metadata.namespace!;
          const state = (): string => `${this.configured.has(ns)}/${this.cascading.has(ns)}/${this.configuredParents.get(ns)}/${this.managedSpecs.get(ns)?.text}`;
          const before = state();
          if (type === 'DELETED') {
            this.configuredParents.delete(ns);
            this.configured.delete(ns);
            this.cascading.delete(ns);
            this.managedSpecs.delete(ns);
          } else this.setConfigured(hc);
          return before !== state() ? ns : undefined;
        },
      },
    ];
  }

  private setConfigured(hc: KubeObject): void {
    if (hc.metadata.name !== HIERARCHY_SINGLETON) return;
    const ns = hc.metadata.namespace!;
    const spec = (hc as HierarchyConfiguration).spec;
    const parent = spec?.parent;
    this.configured.add(ns);
    if (spec?.allowCascadingDeletion === true) this.cascading.add(ns);
    else this.cascading.delete(ns);
    if ((spec?.labels ?? []).length > 0 || (spec?.annotations ?? []).length > 0) {
      const labels = spec?.labels ?? [];
      const annotations = spec?.annotations ?? [];
      this.managedSpecs.set(ns, { text: JSON.stringify([labels, annotations]), labels, annotations });
    }
    else this.managedSpecs.delete(ns);
    if (parent !== undefined && parent !== '') this.configuredParents.set(ns, parent);
    else this.configuredParents.delete(ns);
  }

  private async follow(f: Followed): Promise<void> {
    const store = this.source.storeFor(f.group, f.resource);
    if (store === undefined) throw new Error(`hierarchy index: no store for ${f.resource}.${f.group}`);
    const list = await store.list('', {});
    f.reset(list.items);
    this.rebuild();
    this.saw(f.resource, list.metadata.resourceVersion);
    const watcher = await store.watch('', { resourceVersion: list.metadata.resourceVersion!, allowWatchBookmarks: true }, {
      event: (e) => {
        if (e.type === 'ERROR') return;
        const obj = e.object as KubeObject;
        if (e.type !== 'BOOKMARK') {
          const changed = f.apply(e.type, obj);
          if (changed !== undefined) this.changed(changed);
        }
        this.saw(f.resource, obj.metadata?.resourceVersion);
      },
      done: () => {
        if (this.stopped) return;
        setTimeout(() => {
          if (this.stopped) return;
          this.follow(f).catch((err: unknown) => this.logger?.warn({ err, resource: f.resource }, 'hierarchy index: watch restart failed'));
        }, 100).unref();
      },
    });
    if (this.stopped) watcher.stop();
    else this.watchers.push(watcher);
  }

  private saw(resource: string, resourceVersion: string | undefined): void {
    if (resourceVersion === undefined || resourceVersion === '') return;
    const rv = BigInt(resourceVersion);
    if (rv <= (this.seen.get(resource) ?? -1n)) return;
    this.seen.set(resource, rv);
    for (let i = this.waiters.length - 1; i >= 0; i--) {
      const w = this.waiters[i]!;
      if (w.resource === resource && w.rv <= rv) {
        this.waiters.splice(i, 1);
        w.resolve();
      }
    }
  }

  /** The labels and annotations a namespace's own `hierarchy` sets (spec.labels, spec.annotations), as given. */
  managedSpecOf(ns: string): { labels: MetaKVP[]; annotations: MetaKVP[] } | undefined {
    const spec = this.managedSpecs.get(ns);
    return spec === undefined ? undefined : { labels: spec.labels, annotations: spec.annotations };
  }

  /** Applies a change of one namespace's entry to parents and children, then tells the listeners. */
  private changed(ns: string): void {
    const affected = new Set<string>([ns, ...this.descendantsOf(ns)]);
    const before = this.parents.get(ns);
    if (before !== undefined) affected.add(before);
    this.reparent(ns);
    const after = this.parents.get(ns);
    if (after !== undefined) affected.add(after);
    if (after !== before) for (const d of this.descendantsOf(ns)) affected.add(d);
    this.notify(affected);
  }

  /** Recomputes one namespace's parent (as rebuild() would) and its place among its parent's children. */
  private reparent(ns: string): void {
    const annotated = this.namespaces.get(ns);
    const parent = annotated === undefined ? undefined : (this.configuredParents.get(ns) ?? (annotated !== '' ? annotated : undefined));
    const old = this.parents.get(ns);
    if (old === parent) return;
    // Children lists are replaced, never changed in place: childrenOf's callers may hold one.
    if (old !== undefined) {
      const siblings = (this.children.get(old) ?? []).filter((c) => c !== ns);
      if (siblings.length === 0) this.children.delete(old);
      else this.children.set(old, siblings);
    }
    if (parent === undefined) this.parents.delete(ns);
    else {
      this.parents.set(ns, parent);
      const siblings = [...(this.children.get(parent) ?? [])];
      let at = siblings.length;
      while (at > 0 && siblings[at - 1]! > ns) at--;
      siblings.splice(at, 0, ns);
      this.children.set(parent, siblings);
    }
    this.ancestorCache.clear();
    this.descendantCache.clear();
  }

  private notify(affected: ReadonlySet<string> | 'all'): void {
    for (const listener of [...this.affectedListeners]) {
      try {
        listener(affected);
      } catch (err) {
        this.logger?.warn({ err }, 'hierarchy index: listener failed');
      }
    }
    for (const listener of [...this.listeners]) {
      try {
        listener();
      } catch (err) {
        this.logger?.warn({ err }, 'hierarchy index: listener failed');
      }
    }
  }

  /** Recomputes parents and children from the two maps, then tells the listeners. */
  private rebuild(): void {
    const parents = new Map<string, string>();
    for (const [ns, annotatedParent] of this.namespaces) {
      const parent = this.configuredParents.get(ns) ?? (annotatedParent !== '' ? annotatedParent : undefined);
      if (parent !== undefined) parents.set(ns, parent);
    }
    const children = new Map<string, string[]>();
    for (const [ns, parent] of parents) {
      let list = children.get(parent);
      if (list === undefined) children.set(parent, (list = []));
      list.push(ns);
    }
    for (const list of children.values()) list.sort();
    this.parents = parents;
    this.children = children;
    this.ancestorCache.clear();
    this.descendantCache.clear();
    this.notify('all');
  }
}
