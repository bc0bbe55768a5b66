// The garbage collector's ownership graph (upstream's GraphBuilder in
// pkg/controller/garbagecollector/graph_builder.go, with graph.go's node).
//
// One node per object uid, with its identity (apiVersion, kind, namespace,
// name), the ownerReferences it carries and the set of nodes that name it as
// an owner. An owner named before it is observed gets a *virtual* node (its
// identity guessed from the reference and the dependent's namespace) that the
// collector verifies with a live GET: when the API says the owner is absent, a
// virtual delete event removes it and its dependents are looked at.
//
// The graph is synchronous and does no I/O: processEvent() applies one
// observed (or virtual) add/update/delete and tells the `GraphSink` which uids
// to look at (attemptToDelete), which owners' dependents to orphan
// (attemptToOrphan), which identities are known absent, and which ownerRefs
// point across namespaces (the OwnerRefInvalidNamespace event). The collector
// (controller.ts) drives it from informers and its workers.
//
// Invariants:
// - For every node n and every ownerReference r of n, the node of r.uid
//   exists and holds n in its dependents (removal of n takes it out again).
// - A virtual node never becomes observed by a virtual event; an observed node
//   is never removed by a virtual delete event whose identity differs from the
//   one observed.
// Memory: a node keeps its identity strings, the object's own ownerReferences
// array (one shared empty array when it has none), a dependents set
// allocated only for owners, and its flags in one integer.

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

/** Coordinates of an object: what an ownerReference names, plus the namespace ('' = cluster-scoped). */
export interface Identity {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  namespace: string;
}

/** The metadata the graph needs from an object. */
export interface ObjectMetaView {
  uid: string;
  name: string;
  namespace?: string;
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
  deletionTimestamp?: string;
}

export interface GraphEvent {
  type: 'add' | 'update' | 'delete';
  apiVersion: string;
  kind: string;
  meta: ObjectMetaView;
  /** The object before an update, when known. */
  oldMeta?: ObjectMetaView;
  /** Not observed through an informer: the collector verified the object is absent. */
  virtual?: boolean;
}

/** What the graph asks of the collector. */
export interface GraphSink {
  attemptToDelete(uid: string, rateLimited?: boolean): void;
  attemptToOrphan(uid: string): void;
  /** Record that this identity does not exist (upstream's absentOwnerCache). */
  absentOwner(identity: Identity): void;
  /** A dependent names an owner observed in another namespace (OwnerRefInvalidNamespace). */
  invalidNamespaceOwnerRef(dependent: Identity, owner: OwnerReference): void;
}

export const FINALIZER_ORPHAN = 'orphan';
export const FINALIZER_FOREGROUND = 'foregroundDeletion';

const VIRTUAL = 1;
const OBSERVED = 2;
const BEING_DELETED = 4;
const DELETING_DEPENDENTS = 8;

export class GraphNode {
  identity: Identity;
  /** The object's ownerReferences (empty for virtual nodes). */
  owners: readonly OwnerReference[];
  /** Nodes naming this one as an owner; allocated on first use. */
  private deps: Set<GraphNode> | undefined;
  /** The four flags below in one small integer (a field each cost 8 bytes per node). */
  private flags = 0;

  constructor(identity: Identity, owners: readonly OwnerReference[], virtual: boolean) {
    this.identity = identity;
    this.owners = owners;
    this.virtual = virtual;
    this.observed = !virtual;
  }

  private flag(bit: number): boolean {
    return (this.flags & bit) !== 0;
  }

  private setFlag(bit: number, on: boolean): void {
    this.flags = on ? this.flags | bit : this.flags & ~bit;
  }

  /** Known only from another object's reference, never observed through an informer. */
  get virtual(): boolean {
    return this.flag(VIRTUAL);
  }
  set virtual(on: boolean) {
    this.setFlag(VIRTUAL, on);
  }

  /** Seen through an informer at least once. */
  get observed(): boolean {
    return this.flag(OBSERVED);
  }
  set observed(on: boolean) {
    this.setFlag(OBSERVED, on);
  }

  get beingDeleted(): boolean {
    return this.flag(BEING_DELETED);
  }
  set beingDeleted(on: boolean) {
    this.setFlag(BEING_DELETED, on);
  }

  get deletingDependents(): boolean {
    return this.flag(DELETING_DEPENDENTS);
  }
  set deletingDependents(on: boolean) {
    this.setFlag(DELETING_DEPENDENTS, on);
  }

  get dependents(): ReadonlySet<GraphNode> {
    return this.deps ?? EMPTY;
  }

  addDependent(n: GraphNode): void {
    (this.deps ??= new Set()).add(n);
  }

  deleteDependent(n: GraphNode): void {
    this.deps?.delete(n);
    if (this.deps?.size === 0) this.deps = undefined;
  }

  dependentsLength(): number {
    return this.deps?.size ?? 0;
  }

  /** Dependents whose reference to this node has blockOwnerDeletion: true. */
  blockingDependents(): GraphNode[] {
    const out: GraphNode[] = [];
    for (const dep of this.dependents) {
      for (const owner of dep.owners) {
        if (owner.uid === this.identity.uid && owner.blockOwnerDeletion === true) {
          out.push(dep);
          break;
        }
      }
    }
    return out;
  }
}

const EMPTY: ReadonlySet<GraphNode> = new Set();
/** The owners of a node that has none: one array for them all. */
const NO_OWNERS: readonly OwnerReference[] = Object.freeze([]);

export function sameIdentity(a: Identity, b: Identity): boolean {
  return a.uid === b.uid && a.name === b.name && a.namespace === b.namespace && a.kind === b.kind && a.apiVersion === b.apiVersion;
}

function refMatchesIdentity(ref: OwnerReference, id: Identity): boolean {
  return ref.uid === id.uid && ref.name === id.name && ref.kind === id.kind && ref.apiVersion === id.apiVersion;
}

function sameRef(a: OwnerReference, b: OwnerReference): boolean {
  return (
    a.uid === b.uid &&
    a.name === b.name &&
    a.kind === b.kind &&
    a.apiVersion === b.apiVersion &&
    (a.controller ?? null) === (b.controller ?? null) &&
    (a.blockOwnerDeletion ?? null) === (b.blockOwnerDeletion ?? null)
  );
}

function ownersOf(meta: ObjectMetaView): readonly OwnerReference[] {
  return meta.ownerReferences !== undefined && meta.ownerReferences.length > 0 ? meta.ownerReferences : NO_OWNERS;
}

function hasFinalizer(meta: ObjectMetaView | undefined, finalizer: string): boolean {
  return meta?.finalizers?.includes(finalizer) === true;
}

function beingDeleted(meta: ObjectMetaView | undefined): boolean {
  return meta?.deletionTimestamp !== undefined && meta.deletionTimestamp !== null;
}

/** Newly deleted with the given GC finalizer (it was not so before). */
function startsWaiting(oldMeta: ObjectMetaView | undefined, meta: ObjectMetaView, finalizer: string): boolean {
  if (!beingDeleted(meta) || !hasFinalizer(meta, finalizer)) return false;
  if (oldMeta === undefined) return true;
  return !beingDeleted(oldMeta) || !hasFinalizer(oldMeta, finalizer);
}

export class Graph {
  private readonly nodes = new Map<string, GraphNode>();

  constructor(private readonly sink: GraphSink) {}

  get size(): number {
    return this.nodes.size;
  }

  get(uid: string): GraphNode | undefined {
    return this.nodes.get(uid);
  }

  /** Applies one event; see the file comment. */
  processEvent(event: GraphEvent): void {
    const meta = event.meta;
    const observedIdentity: Identity = {
      apiVersion: event.apiVersion,
      kind: event.kind,
      name: meta.name,
      uid: meta.uid,
      namespace: meta.namespace ?? '',
    };
    let existing = this.nodes.get(meta.uid);
    if (existing !== undefined && event.virtual !== true && !existing.observed) {
      // First informer event of a node known so far only from references.
      if (!sameIdentity(observedIdentity, existing.identity)) {
        // Dependents that named it by other coordinates may be wrong: look at them again.
        for (const dep of this.partition(existing.dependents, observedIdentity).nonMatching) {
          if (observedIdentity.namespace !== '' && dep.identity.namespace !== observedIdentity.namespace) {
            this.reportInvalidNamespace(dep, observedIdentity.uid);
          }
          this.sink.attemptToDelete(dep.identity.uid);
        }
        existing.identity = observedIdentity;
      }
      existing.observed = true;
      existing.virtual = false;
    }

    if (event.type !== 'delete') {
      if (existing === undefined) {
        const node = new GraphNode(observedIdentity, ownersOf(meta), false);
        node.beingDeleted = beingDeleted(meta);
        node.deletingDependents = node.beingDeleted && hasFinalizer(meta, FINALIZER_FOREGROUND);
        this.nodes.set(meta.uid, node);
        this.addDependentToOwners(node, node.owners);
        this.processTransitions(event.oldMeta, meta, node);
        return;
      }
      const { added, removed, changed } = referencesDiffs(existing.owners, ownersOf(meta));
      if (added.length > 0 || removed.length > 0 || changed.length > 0) {
        this.addUnblockedOwnersToDeleteQueue(removed, changed);
        existing.owners = ownersOf(meta);
        this.addDependentToOwners(existing, added);
        this.removeDependentFromOwners(existing, removed);
      }
      if (beingDeleted(meta)) existing.beingDeleted = true;
      this.processTransitions(event.oldMeta, meta, existing);
      return;
    }

    if (existing === undefined) return;
    let removeExisting = true;
    if (event.virtual === true) {
      const deletedIdentity = observedIdentity;
      if (existing.virtual) {
        // A virtual node's coordinates are a guess: dependents may name it otherwise.
        const { matching, nonMatching } = this.partition(existing.dependents, deletedIdentity);
        if (nonMatching.length > 0) {
          removeExisting = false;
          if (matching.length > 0) {
            this.sink.absentOwner(deletedIdentity);
            for (const dep of matching) this.sink.attemptToDelete(dep.identity.uid);
          }
          if (sameIdentity(existing.identity, deletedIdentity)) {
            const replacement = alternateOwnerIdentity(nonMatching, deletedIdentity);
            if (replacement !== undefined) {
              existing.identity = replacement;
              this.sink.attemptToDelete(existing.identity.uid, true);
            }
          }
        }
      } else if (!sameIdentity(existing.identity, deletedIdentity)) {
        // Never drop an observed node on a virtual event with other coordinates.
        removeExisting = false;
        const { matching } = this.partition(existing.dependents, deletedIdentity);
        if (matching.length > 0) {
          this.sink.absentOwner(deletedIdentity);
          for (const dep of matching) this.sink.attemptToDelete(dep.identity.uid);
        }
      }
    }
    if (!removeExisting) return;
    this.removeNode(existing);
    if (existing.dependentsLength() > 0) this.sink.absentOwner(observedIdentity);
    for (const dep of existing.dependents) this.sink.attemptToDelete(dep.identity.uid);
    for (const owner of existing.owners) {
      const ownerNode = this.nodes.get(owner.uid);
      // An owner waiting for its dependents may now be free to go.
      if (ownerNode?.deletingDependents === true) this.sink.attemptToDelete(ownerNode.identity.uid);
    }
  }

  /** Marks a node as deleting its dependents (foreground) outside an event (the collector's own delete). */
  markDeletingDependents(uid: string): void {
    const n = this.nodes.get(uid);
    if (n !== undefined) {
      n.beingDeleted = true;
      n.deletingDependents = true;
    }
  }

  private processTransitions(oldMeta: ObjectMetaView | undefined, meta: ObjectMetaView, n: GraphNode): void {
    if (startsWaiting(oldMeta, meta, FINALIZER_ORPHAN)) {
      this.sink.attemptToOrphan(n.identity.uid);
      return;
    }
    if (startsWaiting(oldMeta, meta, FINALIZER_FOREGROUND)) {
      n.deletingDependents = true;
      n.beingDeleted = true;
      for (const dep of n.dependents) this.sink.attemptToDelete(dep.identity.uid);
      this.sink.attemptToDelete(n.identity.uid);
    }
  }

  private addDependentToOwners(n: GraphNode, owners: readonly OwnerReference[]): void {
    let potentiallyInvalid = false;
    for (const owner of owners) {
      let ownerNode = this.nodes.get(owner.uid);
      if (ownerNode === undefined) {
        ownerNode = new GraphNode(
          { apiVersion: owner.apiVersion, kind: owner.kind, name: owner.name, uid: owner.uid, namespace: n.identity.namespace },
          NO_OWNERS,
          true,
        );
        this.nodes.set(owner.uid, ownerNode);
        ownerNode.addDependent(n);
        // The collector asks the API whether this owner exists.
        this.sink.attemptToDelete(owner.uid);
        continue;
      }
      ownerNode.addDependent(n);
      if (potentiallyInvalid) continue;
      const ownerNamespaced = ownerNode.identity.namespace !== '';
      if (ownerNamespaced && ownerNode.identity.namespace !== n.identity.namespace) {
        // A namespaced owner in another namespace: certainly wrong once the owner was observed.
        if (ownerNode.observed) this.reportInvalidNamespace(n, owner.uid);
        potentiallyInvalid = true;
      } else if (!refMatchesIdentity(owner, ownerNode.identity)) {
        potentiallyInvalid = true;
      } else if (!ownerNamespaced && ownerNode.identity.namespace !== n.identity.namespace && !ownerNode.observed) {
        // Unreachable in practice (a virtual owner takes its dependent's namespace), kept as upstream.
        potentiallyInvalid = true;
      }
    }
    if (potentiallyInvalid) this.sink.attemptToDelete(n.identity.uid);
  }

  private removeDependentFromOwners(n: GraphNode, owners: readonly OwnerReference[]): void {
    for (const owner of owners) this.nodes.get(owner.uid)?.deleteDependent(n);
  }

  private removeNode(n: GraphNode): void {
    this.nodes.delete(n.identity.uid);
    this.removeDependentFromOwners(n, n.owners);
  }

  /** Owners a dependent stopped blocking (reference removed, or blockOwnerDeletion turned off) may now go. */
  private addUnblockedOwnersToDeleteQueue(removed: OwnerReference[], changed: Array<{ old: OwnerReference; new: OwnerReference }>): void {
    const wake = (uid: string): void => {
      const node = this.nodes.get(uid);
      if (node?.deletingDependents === true) this.sink.attemptToDelete(uid);
    };
    for (const ref of removed) if (ref.blockOwnerDeletion === true) wake(ref.uid);
    for (const c of changed) if (c.old.blockOwnerDeletion === true && c.new.blockOwnerDeletion !== true) wake(c.new.uid);
  }

  /** Dependents whose reference to the owner `id` names it by these exact coordinates, and the others. */
  private partition(dependents: Iterable<GraphNode>, id: Identity): { matching: GraphNode[]; nonMatching: GraphNode[] } {
    const matching: GraphNode[] = [];
    const nonMatching: GraphNode[] = [];
    for (const dep of dependents) {
      let isMatch = false;
      for (const ref of dep.owners) {
        if (ref.uid !== id.uid) continue;
        // A namespaced owner is looked up in its dependent's namespace.
        const namespaceMatches = id.namespace === '' || dep.identity.namespace === id.namespace;
        isMatch = namespaceMatches && refMatchesIdentity(ref, id);
        break;
      }
      (isMatch ? matching : nonMatching).push(dep);
    }
    return { matching, nonMatching };
  }

  private reportInvalidNamespace(n: GraphNode, ownerUid: string): void {
    const ref = n.owners.find((o) => o.uid === ownerUid);
    if (ref !== undefined) this.sink.invalidNamespaceOwnerRef(n.identity, ref);
  }
}

/** Owner references added, removed or changed (same uid, other fields) between two lists. */
export function referencesDiffs(
  oldRefs: readonly OwnerReference[],
  newRefs: readonly OwnerReference[],
): { added: OwnerReference[]; removed: OwnerReference[]; changed: Array<{ old: OwnerReference; new: OwnerReference }> } {
  const oldByUid = new Map(oldRefs.map((r) => [r.uid, r]));
  const added: OwnerReference[] = [];
  const changed: Array<{ old: OwnerReference; new: OwnerReference }> = [];
  for (const r of newRefs) {
    const before = oldByUid.get(r.uid);
    if (before === undefined) added.push(r);
    else {
      oldByUid.delete(r.uid);
      if (!sameRef(before, r)) changed.push({ old: before, new: r });
    }
  }
  return { added, removed: [...oldByUid.values()], changed };
}

/**
 * Another identity the dependents give an owner whose guessed identity was
 * just verified absent: the smallest by (namespace, apiVersion, kind, name),
 * skipping the verified one, so the collector tries each in turn.
 */
function alternateOwnerIdentity(dependents: GraphNode[], verifiedAbsent: Identity): Identity | undefined {
  let first: Identity | undefined;
  let firstAfter: Identity | undefined;
  const key = (i: Identity): string => `${i.namespace}\u0000${i.apiVersion}\u0000${i.kind}\u0000${i.name}`;
  const absentKey = key(verifiedAbsent);
  for (const dep of dependents) {
    for (const ref of dep.owners) {
      if (ref.uid !== verifiedAbsent.uid) continue;
      const clusterScoped = verifiedAbsent.namespace === '';
      if (refMatchesIdentity(ref, verifiedAbsent) && (clusterScoped || dep.identity.namespace === verifiedAbsent.namespace)) continue;
      // The verified identity says this apiVersion/kind is cluster-scoped.
      const sameType = ref.apiVersion === verifiedAbsent.apiVersion && ref.kind === verifiedAbsent.kind;
      const namespace = clusterScoped && sameType ? '' : dep.identity.namespace;
      const candidate: Identity = { apiVersion: ref.apiVersion, kind: ref.kind, name: ref.name, uid: ref.uid, namespace };
      const k = key(candidate);
      if (first === undefined || k < key(first)) first = candidate;
      if (k > absentKey && (firstAfter === undefined || k < key(firstAfter))) firstAfter = candidate;
    }
  }
  return firstAfter ?? first;
}
