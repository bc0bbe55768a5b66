// The propagation controller of hierarchical namespaces (HNC's object
// reconciler, as a client of the API): objects of a propagated kind in a
// namespace are copied into every descendant, each copy labelled
// `hnc.x-k8s.io/inherited-from: <source namespace>`.
//
// - Which kinds: Roles and RoleBindings always (mode Propagate); any other
//   namespaced resource named in the HNCConfiguration `config`
//   spec.resources, with its mode: Propagate (every source, less exceptions),
//   AllowPropagate (only sources that ask for it by annotation), Remove (every
//   copy deleted), Ignore (nothing touched).
// - Exceptions on a source, as HNC reads them: `propagate.hnc.x-k8s.io/select`
//   (a label selector on the destination namespace), `treeSelect` ("ns" or
//   "!ns", comma-separated: the destination is or is not in that subtree),
//   `none: "true"`, `all: "true"`. Never copied: objects with finalizers,
//   service-account token and Helm release Secrets, kube-root-ca.crt and
//   istio-ca-root-cert ConfigMaps.
// - A copy follows its source (changed, deleted, moved out of the tree); the
//   nearest ancestor's object wins a name shared by two. A local object (not a
//   copy) of the same name in a descendant is never overwritten: the conflict
//   is reported in the HNCConfiguration's status.conditions
//   (CannotPropagateObject) until it is resolved.
// - status.resources of `config` carries each kind's mode and counts (HNC's
//   kinds have no status subresource: the whole object is updated).
//
// Copies of RoleBindings grant nothing of their own (RBAC resolves ancestors'
// bindings itself); they are written so that `kubectl get rolebindings -n
// child` shows them, as HNC. Writes use the controller's own identity, the
// only one admission lets change or delete a copy.
//
// The tree is read from the HierarchyConfigurations (`hierarchy`.spec.parent)
// and the subnamespace-of annotation of namespaces, as the server's index.
// Work is keyed by kind and destination namespace: one reconcile computes the
// copies a namespace should hold of one kind and makes it so.

import type { KubeObject, GroupVersionResource } from '../machinery/meta.js';
import {
  type ClientLogger,
  DeletedFinalStateUnknown,
  type RestClient,
  type SharedIndexInformer,
  type SharedInformerFactory,
  WorkQueue,
  isAlreadyExists,
  isConflict,
  isNotFound,
  runController,
  serverPreferredNamespacedResources,
  silentLogger,
} from '../client/index.js';
import {
  ANNOTATION_SUBNAMESPACE_OF,
  CONDITION_BAD_CONFIGURATION,
  ENFORCED_TYPES,
  HIERARCHY_SINGLETON,
  HNC_API_VERSION,
  HNC_CONFIG_SINGLETON,
  HNC_GROUP,
  HNC_VERSION,
  LABEL_INHERITED_FROM,
  REASON_RESOURCE_NOT_FOUND,
  type HNCCondition,
  type HNCConfiguration,
  type HierarchyConfiguration,
  type ResourceStatus,
  type SynchronizationMode,
} from '../api/hnc/v1alpha2/types.js';
import { sourcePropagatesTo } from '../api/hnc/v1alpha2/propagation.js';

/** The condition a name conflict in a descendant is reported under (HNC's name for it). */
export const CONDITION_CANNOT_PROPAGATE = 'CannotPropagateObject';
const REASON_NAME_CONFLICT = 'LocalObjectConflict';

const HIERARCHY_GVR: GroupVersionResource = { group: HNC_GROUP, version: HNC_VERSION, resource: 'hierarchyconfigurations' };
const CONFIG_GVR: GroupVersionResource = { group: HNC_GROUP, version: HNC_VERSION, resource: 'hncconfigurations' };
const RBAC_VERSION = 'v1';
/** How long status writes wait for more changes before they go (one write per burst). */
const STATUS_DELAY_MS = 200;

export interface HncPropagationOptions {
  /** Writes copies and the HNCConfiguration status, as the hierarchy's own identity. */
  client: RestClient;
  informers: SharedInformerFactory;
  workers?: number;
  logger?: ClientLogger;
  /** The time events are stamped with. */
  now?: () => Date;
}

interface PropagatedKind {
  id: string;
  gvr: GroupVersionResource;
  /** The objects' kind (events name it). */
  kind: string;
  mode: SynchronizationMode;
  informer: SharedIndexInformer<KubeObject>;
}

/** "group/resource", the key of a kind. */
function kindId(group: string, resource: string): string {
  return `${group}/${resource}`;
}

function isCopy(obj: Readonly<KubeObject>): boolean {
  return obj.metadata.labels?.[LABEL_INHERITED_FROM] !== undefined;
}

function objectOf<T extends KubeObject>(obj: T | DeletedFinalStateUnknown<T>): T | undefined {
  return obj instanceof DeletedFinalStateUnknown ? obj.obj : obj;
}

export class HncPropagationController {
  private readonly queue = new WorkQueue<string>();
  private readonly log: ClientLogger;
  private readonly namespaces: SharedIndexInformer<KubeObject>;
  private readonly hierarchies: SharedIndexInformer<HierarchyConfiguration>;
  private readonly config: SharedIndexInformer<HNCConfiguration>;
  private readonly kinds = new Map<string, PropagatedKind>();
  /** Kinds configured that the server does not serve (reported as BadConfiguration). */
  private unknownKinds: string[] = [];
  /** "kind\0destination\0name" → what conflicts there. */
  private readonly conflicts = new Map<string, string>();
  /**
   * The tree as last seen, kept per change (a namespace's parent depends only
   * on its own hierarchy object and annotation, so an event recomputes one
   * entry): rebuilding it from every namespace on each change made loading N
   * namespaces cost N².
   */
  private readonly parents = new Map<string, string>();
  private readonly children = new Map<string, Set<string>>();
  private signal: AbortSignal | undefined;
  private statusTimer: NodeJS.Timeout | undefined;
  private configuring: Promise<void> = Promise.resolve();
  /** The spec.resources last applied (JSON), so that status writes do not re-read discovery. */
  private configuredSpec: string | undefined;
  /** Makes event names unique within this controller. */
  private eventCount = 0;

  constructor(private readonly options: HncPropagationOptions) {
    this.log = options.logger ?? silentLogger;
    const { informers } = options;
    this.namespaces = informers.forBuiltin('namespaces');
    this.hierarchies = informers.forResource<HierarchyConfiguration>(HIERARCHY_GVR, { namespaced: true });
    this.config = informers.forResource<HNCConfiguration>(CONFIG_GVR, { namespaced: false });
    const treeChanged = (namespace: string | undefined): void => {
      if (namespace === undefined) return;
      this.reindex(namespace);
      this.enqueueSubtree(namespace);
    };
    this.namespaces.addEventHandler({
      onAdd: (ns) => treeChanged(ns.metadata.name),
      onUpdate: (old, ns) => {
        const labelsChanged = JSON.stringify(old.metadata.labels ?? {}) !== JSON.stringify(ns.metadata.labels ?? {});
        const parentChanged = old.metadata.annotations?.[ANNOTATION_SUBNAMESPACE_OF] !== ns.metadata.annotations?.[ANNOTATION_SUBNAMESPACE_OF];
        if (labelsChanged || parentChanged) treeChanged(ns.metadata.name);
      },
      onDelete: (ns) => treeChanged(objectOf(ns)?.metadata.name),
    });
    this.hierarchies.addEventHandler({
      onAdd: (h) => treeChanged(h.metadata.namespace),
      onUpdate: (old, h) => {
        if (old.spec?.parent !== h.spec?.parent) treeChanged(h.metadata.namespace);
      },
      onDelete: (h) => treeChanged(objectOf(h)?.metadata.namespace),
    });
    const configure = (): void => {
      this.configuring = this.configuring.then(() => this.configure()).catch((err: unknown) => this.log.warn({ err: String(err) }, 'hnc configuration not applied'));
    };
    this.config.addEventHandler({ onAdd: configure, onUpdate: configure, onDelete: configure });
    for (const t of ENFORCED_TYPES) this.track({ group: t.group, version: RBAC_VERSION, resource: t.resource }, 'Propagate', t.resource === 'roles' ? 'Role' : 'RoleBinding');
  }

  async run(signal: AbortSignal): Promise<void> {
    this.signal = signal;
    signal.addEventListener('abort', () => clearTimeout(this.statusTimer), { once: true });
    this.options.informers.start(signal);
    // Without a `config` there is nothing to read it from: make it, as HNC does.
    void this.ensureConfig();
    await runController({
      name: 'hnc-propagation',
      queue: this.queue,
      informers: [this.namespaces, this.hierarchies, this.config, ...[...this.kinds.values()].map((k) => k.informer)],
      workers: this.options.workers ?? 4,
      reconcile: (key) => this.reconcile(key),
      signal,
      logger: this.log,
    });
  }

  private async ensureConfig(): Promise<void> {
    try {
      await this.options.client.resource(CONFIG_GVR).get(HNC_CONFIG_SINGLETON);
    } catch (err) {
      if (!isNotFound(err)) return;
      try {
        await this.options.client.resource(CONFIG_GVR).create({ apiVersion: HNC_API_VERSION, kind: 'HNCConfiguration', metadata: { name: HNC_CONFIG_SINGLETON }, spec: {} });
      } catch (e) {
        if (!isAlreadyExists(e)) this.log.warn({ err: String(e) }, 'hnc configuration not created');
      }
    }
  }

  // ---- the tree ----

  private parentOf(namespace: string): string | undefined {
    const h = this.hierarchies.lister().namespace(namespace).get(HIERARCHY_SINGLETON);
    const parent = h?.spec?.parent;
    if (parent !== undefined && parent !== '') return parent;
    const ns = this.namespaces.lister().get(namespace);
    const annotated = ns?.metadata.annotations?.[ANNOTATION_SUBNAMESPACE_OF];
    return annotated === undefined || annotated === '' ? undefined : annotated;
  }

  /** Ancestors nearest first; a cycle ends the walk. */
  private ancestorsOf(namespace: string): string[] {
    const out: string[] = [];
    const seen = new Set([namespace]);
    for (let p = this.parentOf(namespace); p !== undefined && !seen.has(p); p = this.parentOf(p)) {
      seen.add(p);
      out.push(p);
    }
    return out;
  }

  /** Records a namespace's parent afresh (none once the namespace is gone). */
  private reindex(namespace: string): void {
    const parent = this.namespaces.lister().get(namespace) === undefined ? undefined : this.parentOf(namespace);
    const old = this.parents.get(namespace);
    if (old === parent) return;
    if (old !== undefined) {
      const siblings = this.children.get(old);
      siblings?.delete(namespace);
      if (siblings?.size === 0) this.children.delete(old);
    }
    if (parent === undefined) {
      this.parents.delete(namespace);
      return;
    }
    this.parents.set(namespace, parent);
    let siblings = this.children.get(parent);
    if (siblings === undefined) this.children.set(parent, (siblings = new Set()));
    siblings.add(namespace);
  }

  private descendantsOf(namespace: string): string[] {
    const out: string[] = [];
    const seen = new Set([namespace]);
    const stack = [...(this.children.get(namespace) ?? [])];
    while (stack.length > 0) {
      const ns = stack.pop()!;
      if (seen.has(ns)) continue;
      seen.add(ns);
      out.push(ns);
      stack.push(...(this.children.get(ns) ?? []));
    }
    return out;
  }

  // ---- kinds and the queue ----

  private track(gvr: GroupVersionResource, mode: SynchronizationMode, kindName: string): void {
    const id = kindId(gvr.group, gvr.resource);
    const existing = this.kinds.get(id);
    if (existing !== undefined) {
      if (existing.mode !== mode) {
        existing.mode = mode;
        this.enqueueKindEverywhere(existing);
      }
      return;
    }
    const informer = this.options.informers.forResource(gvr, { namespaced: true });
    const kind: PropagatedKind = { id, gvr, kind: kindName, mode, informer };
    this.kinds.set(id, kind);
    informer.addEventHandler({
      onAdd: (obj) => this.objectChanged(kind, obj),
      onUpdate: (_old, obj) => this.objectChanged(kind, obj),
      onDelete: (obj) => {
        const o = objectOf(obj);
        if (o !== undefined) this.objectChanged(kind, o);
      },
    });
    if (this.signal !== undefined) this.options.informers.start(this.signal);
    this.enqueueKindEverywhere(kind);
  }

  private objectChanged(kind: PropagatedKind, obj: KubeObject): void {
    const namespace = obj.metadata.namespace;
    if (namespace === undefined) return;
    // Its own namespace (a copy changed behind our back, a conflicting local object gone) and, for a source, the subtree.
    this.queue.add(`${kind.id}\u0000${namespace}`);
    if (!isCopy(obj)) for (const d of this.descendantsOf(namespace)) this.queue.add(`${kind.id}\u0000${d}`);
    this.statusSoon();
  }

  private enqueueSubtree(namespace: string): void {
    const targets = [namespace, ...this.descendantsOf(namespace)];
    for (const kind of this.kinds.values()) for (const ns of targets) this.queue.add(`${kind.id}\u0000${ns}`);
  }

  private enqueueKindEverywhere(kind: PropagatedKind): void {
    for (const ns of this.namespaces.lister().list()) this.queue.add(`${kind.id}\u0000${ns.metadata.name}`);
    this.statusSoon();
  }

  /** Reads spec.resources of `config`: tracks the kinds named there (discovery gives their version). */
  private async configure(): Promise<void> {
    const spec = this.config.lister().get(HNC_CONFIG_SINGLETON)?.spec?.resources ?? [];
    // Status writes come back as updates of `config`: only a new spec is worth a discovery pass.
    const specText = JSON.stringify(spec);
    if (specText === this.configuredSpec) return;
    const enforced = new Set(ENFORCED_TYPES.map((t) => kindId(t.group, t.resource)));
    const wanted = spec.filter((r) => !enforced.has(kindId(r.group ?? '', r.resource)));
    const unknown: string[] = [];
    const configured = new Set<string>();
    if (wanted.length > 0) {
      let lists: Awaited<ReturnType<typeof serverPreferredNamespacedResources>> = [];
      try {
        lists = await serverPreferredNamespacedResources(this.options.client);
      } catch (err) {
        this.log.warn({ err: String(err) }, 'discovery failed: hnc configuration retried');
        setTimeout(() => this.config.lister().get(HNC_CONFIG_SINGLETON) && this.reconfigure(), 1000).unref();
        return;
      }
      for (const r of wanted) {
        const group = r.group ?? '';
        const list = lists.find((l) => (l.groupVersion.includes('/') ? l.groupVersion.split('/')[0] : '') === group && l.resources.some((x) => x.name === r.resource));
        if (list === undefined) {
          unknown.push(kindId(group, r.resource));
          continue;
        }
        const version = list.groupVersion.includes('/') ? list.groupVersion.split('/')[1]! : list.groupVersion;
        configured.add(kindId(group, r.resource));
        const kindName = list.resources.find((x) => x.name === r.resource)!.kind;
        this.track({ group, version, resource: r.resource }, r.mode ?? 'Propagate', kindName);
      }
    }
    // Kinds no longer named: Ignore (HNC leaves their copies where they are).
    for (const kind of this.kinds.values()) {
      if (!enforced.has(kind.id) && !configured.has(kind.id)) kind.mode = 'Ignore';
    }
    this.unknownKinds = unknown;
    // A kind not served yet (its CRD to come): look again later.
    this.configuredSpec = unknown.length === 0 ? specText : undefined;
    if (unknown.length > 0) setTimeout(() => this.reconfigure(), 5000).unref();
    this.statusSoon();
  }

  private reconfigure(): void {
    if (this.signal?.aborted === true) return;
    this.configuring = this.configuring.then(() => this.configure()).catch(() => undefined);
  }

  // ---- one kind in one namespace ----

  private async reconcile(key: string): Promise<{ requeueAfter?: number } | void> {
    const [id, namespace] = key.split('\u0000') as [string, string];
    const kind = this.kinds.get(id);
    if (kind === undefined || kind.mode === 'Ignore') return;
    if (!kind.informer.hasSynced()) return { requeueAfter: 100 };
    const ns = this.namespaces.lister().get(namespace);
    if (ns === undefined || ns.metadata.deletionTimestamp !== undefined) return;
    const lister = kind.informer.lister();
    const here = lister.namespace(namespace).list();
    const local = new Map(here.filter((o) => !isCopy(o)).map((o) => [o.metadata.name!, o]));
    const copies = new Map(here.filter(isCopy).map((o) => [o.metadata.name!, o]));

    // What this namespace should hold: the nearest ancestor's source of each name.
    const wanted = new Map<string, { source: KubeObject; from: string }>();
    if (kind.mode !== 'Remove') {
      const ancestors = this.ancestorsOf(namespace);
      const tree = new Set([namespace, ...ancestors]);
      for (const ancestor of ancestors) {
        for (const source of lister.namespace(ancestor).list()) {
          const name = source.metadata.name!;
          if (isCopy(source) || wanted.has(name) || !this.propagates(kind, source, ns, tree)) continue;
          wanted.set(name, { source, from: ancestor });
        }
      }
    }

    const resource = this.options.client.resource(kind.gvr).namespace(namespace);
    let changed = false;
    for (const [name, copy] of copies) {
      if (wanted.has(name)) continue;
      try {
        await resource.delete(name);
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
      changed = true;
    }
    for (const [name, { source, from }] of wanted) {
      const conflictKey = `${kind.id}\u0000${namespace}\u0000${name}`;
      if (local.has(name)) {
        if (!this.conflicts.has(conflictKey)) {
          const text = `${kind.gvr.resource}${kind.gvr.group === '' ? '' : `.${kind.gvr.group}`} ${JSON.stringify(name)} of namespace ${JSON.stringify(from)} is not propagated to namespace ${JSON.stringify(namespace)}: an object of that name that is not a propagated copy exists there`;
          this.conflicts.set(conflictKey, text);
          changed = true;
          // HNC's Warning events for a copy not written: on the source and on the object in the destination.
          await this.warn(kind, source, 'CannotPropagateObject', `Could not write to destination namespace ${JSON.stringify(namespace)}: ${text}.`);
          await this.warn(kind, local.get(name)!, 'CannotUpdateObject', `Could not write from source namespace ${JSON.stringify(from)}: ${text}.`);
        }
        continue;
      }
      if (this.conflicts.delete(conflictKey)) changed = true;
      const desired = copyOf(source, namespace, from);
      const existing = copies.get(name);
      try {
        if (existing === undefined) {
          await resource.create(desired);
          changed = true;
        } else if (!sameContent(existing, desired)) {
          await resource.update({ ...desired, metadata: { ...existing.metadata, labels: desired.metadata.labels, annotations: desired.metadata.annotations } });
          changed = true;
        }
      } catch (err) {
        // Made or changed meanwhile: the informer's event brings this key back.
        if (isAlreadyExists(err) || isConflict(err)) return { requeueAfter: 50 };
        // The namespace is going away.
        if (err instanceof Error && /being terminated/.test(err.message)) return;
        throw err;
      }
    }
    // Conflicts recorded for names no longer wanted here are over.
    for (const k of [...this.conflicts.keys()]) {
      const [kid, kns, kname] = k.split('\u0000');
      if (kid === kind.id && kns === namespace && (!wanted.has(kname!) || !local.has(kname!))) {
        this.conflicts.delete(k);
        changed = true;
      }
    }
    if (changed) this.statusSoon();
  }

  /** HNC's ShouldPropagate and exclusions for one source and one destination namespace. */
  private propagates(kind: PropagatedKind, source: KubeObject, destination: KubeObject, tree: Set<string>): boolean {
    return sourcePropagatesTo(source, { group: kind.gvr.group, resource: kind.gvr.resource, mode: kind.mode }, destination.metadata.labels ?? {}, tree);
  }

  // ---- events ----

  /** Records a Warning event on `object` as HNC's recorder does (source component hnc.x-k8s.io, which `kubectl hns describe` lists). */
  private async warn(kind: PropagatedKind, object: Readonly<KubeObject>, reason: string, message: string): Promise<void> {
    const namespace = object.metadata.namespace!;
    const time = this.options.now?.() ?? new Date();
    const at = time.toISOString().replace(/\.\d+Z$/, 'Z');
    // As client-go's recorder: the object's name and the time in hex nanoseconds (a count keeps two in one millisecond apart).
    const name = `${object.metadata.name}.${(BigInt(time.getTime()) * 1_000_000n + BigInt(this.eventCount++ % 1_000_000)).toString(16)}`;
    try {
      await this.options.client.builtin('events', namespace).create({
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name, namespace },
        involvedObject: {
          apiVersion: kind.gvr.group === '' ? kind.gvr.version : `${kind.gvr.group}/${kind.gvr.version}`,
          kind: kind.kind,
          namespace,
          name: object.metadata.name,
          ...(object.metadata.uid !== undefined ? { uid: object.metadata.uid } : {}),
          ...(object.metadata.resourceVersion !== undefined ? { resourceVersion: object.metadata.resourceVersion } : {}),
        },
        reason,
        message,
        type: 'Warning',
        source: { component: HNC_GROUP },
        reportingComponent: HNC_GROUP,
        reportingInstance: '',
        firstTimestamp: at,
        lastTimestamp: at,
        count: 1,
      } as KubeObject);
    } catch (err) {
      this.log.warn({ err: String(err), reason }, 'hnc event not recorded');
    }
  }

  // ---- HNCConfiguration status ----

  private statusSoon(): void {
    if (this.statusTimer !== undefined || this.signal?.aborted === true) return;
    this.statusTimer = setTimeout(() => {
      this.statusTimer = undefined;
      void this.writeStatus().catch((err: unknown) => {
        this.log.warn({ err: String(err) }, 'hnc configuration status not written');
        this.statusSoon();
      });
    }, STATUS_DELAY_MS);
    this.statusTimer.unref();
  }

  private async writeStatus(): Promise<void> {
    const current = this.config.lister().get(HNC_CONFIG_SINGLETON);
    if (current === undefined) return;
    const resources: ResourceStatus[] = [];
    for (const kind of this.kinds.values()) {
      const status: ResourceStatus = { group: kind.gvr.group, version: kind.gvr.version, resource: kind.gvr.resource, mode: kind.mode };
      if (kind.mode !== 'Ignore') {
        const all = kind.informer.lister().list();
        status.numPropagatedObjects = all.filter(isCopy).length;
        if (kind.mode === 'Propagate' || kind.mode === 'AllowPropagate') status.numSourceObjects = all.length - status.numPropagatedObjects;
      }
      resources.push(status);
    }
    resources.sort((a, b) => (a.group !== b.group ? (a.group < b.group ? -1 : 1) : a.resource < b.resource ? -1 : a.resource > b.resource ? 1 : 0));
    const previous = current.status?.conditions ?? [];
    const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    const kept = (type: string, reason: string): string => previous.find((c) => c.type === type && c.reason === reason)?.lastTransitionTime ?? now;
    const conditions: HNCCondition[] = previous.filter((c) => c.type !== CONDITION_CANNOT_PROPAGATE && !(c.type === CONDITION_BAD_CONFIGURATION && c.reason === REASON_RESOURCE_NOT_FOUND));
    if (this.conflicts.size > 0) {
      conditions.push({
        type: CONDITION_CANNOT_PROPAGATE,
        status: 'True',
        reason: REASON_NAME_CONFLICT,
        message: [...this.conflicts.values()].sort().join('; '),
        lastTransitionTime: kept(CONDITION_CANNOT_PROPAGATE, REASON_NAME_CONFLICT),
      });
    }
    for (const id of this.unknownKinds) {
      const [group, resource] = id.split('/') as [string, string];
      conditions.push({
        type: CONDITION_BAD_CONFIGURATION,
        status: 'True',
        reason: REASON_RESOURCE_NOT_FOUND,
        message: `Cannot find the ${resource} in the apiserver with group ${JSON.stringify(group)}`,
        lastTransitionTime: kept(CONDITION_BAD_CONFIGURATION, REASON_RESOURCE_NOT_FOUND),
      });
    }
    const next = { ...(current.status ?? {}), resources, ...(conditions.length > 0 ? { conditions } : {}) };
    if (conditions.length === 0) delete next.conditions;
    if (JSON.stringify(next) === JSON.stringify(current.status ?? {})) return;
    try {
      await this.options.client.resource<HNCConfiguration>(CONFIG_GVR).update({ ...current, status: next } as HNCConfiguration);
    } catch (err) {
      if (isConflict(err) || isNotFound(err)) {
        this.statusSoon();
        return;
      }
      throw err;
    }
  }
}

/** The copy of `source` for `namespace`: its content, labels and annotations, and the inherited-from label. */
function copyOf(source: KubeObject, namespace: string, from: string): KubeObject {
  const { metadata, status: _status, ...content } = source as KubeObject & { status?: unknown };
  const copy: KubeObject = {
    ...content,
    metadata: {
      name: metadata.name!,
      namespace,
      labels: { ...(metadata.labels ?? {}), [LABEL_INHERITED_FROM]: from },
    },
  } as KubeObject;
  if (metadata.annotations !== undefined && Object.keys(metadata.annotations).length > 0) copy.metadata.annotations = { ...metadata.annotations };
  return copy;
}

function sameContent(existing: KubeObject, desired: KubeObject): boolean {
  const body = (o: KubeObject): string => {
    const { metadata: _m, status: _s, apiVersion: _a, kind: _k, ...rest } = o as KubeObject & { status?: unknown };
    return stableJson(rest);
  };
  return (
    stableJson(existing.metadata.labels ?? {}) === stableJson(desired.metadata.labels ?? {}) &&
    stableJson(existing.metadata.annotations ?? {}) === stableJson(desired.metadata.annotations ?? {}) &&
    body(existing) === body(desired)
  );
}

function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stableJson((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}
