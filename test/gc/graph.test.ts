// The ownership graph alone (no server): events in every order, virtual owners,
// cycles, missing owners and cross-namespace references, checked through what
// the graph asks the collector to do.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Graph, type GraphEvent, type GraphSink, type Identity, type OwnerReference, referencesDiffs } from '../../src/controllers/garbagecollector/graph.js';

class Recorder implements GraphSink {
  deletes: string[] = [];
  orphans: string[] = [];
  absent: Identity[] = [];
  invalid: Array<{ dependent: string; owner: string }> = [];
  attemptToDelete(uid: string): void {
    this.deletes.push(uid);
  }
  attemptToOrphan(uid: string): void {
    this.orphans.push(uid);
  }
  absentOwner(identity: Identity): void {
    this.absent.push(identity);
  }
  invalidNamespaceOwnerRef(dependent: Identity, owner: OwnerReference): void {
    this.invalid.push({ dependent: dependent.uid, owner: owner.uid });
  }
  take(): string[] {
    const d = this.deletes;
    this.deletes = [];
    return d;
  }
}

function cmRef(name: string, uid: string, block = false): OwnerReference {
  return { apiVersion: 'v1', kind: 'ConfigMap', name, uid, ...(block ? { blockOwnerDeletion: true } : {}) };
}

function cm(type: GraphEvent['type'], name: string, uid: string, namespace = 'ns', owners: OwnerReference[] = [], extra: Partial<GraphEvent['meta']> = {}): GraphEvent {
  return { type, apiVersion: 'v1', kind: 'ConfigMap', meta: { uid, name, namespace, ownerReferences: owners, ...extra } };
}

describe('ownership graph', () => {
  it('owner first, then dependent: no virtual node, nothing to verify', () => {
    const r = new Recorder();
    const g = new Graph(r);
    g.processEvent(cm('add', 'o', 'o-uid'));
    g.processEvent(cm('add', 'd', 'd-uid', 'ns', [cmRef('o', 'o-uid')]));
    assert.deepEqual(r.take(), []);
    assert.deepEqual([...g.get('o-uid')!.dependents].map((n) => n.identity.uid), ['d-uid']);
    // Deleting the owner asks to look at its dependent and records it absent.
    g.processEvent(cm('delete', 'o', 'o-uid'));
    assert.deepEqual(r.take(), ['d-uid']);
    assert.equal(r.absent.length, 1);
    assert.equal(g.get('o-uid'), undefined);
  });

  it('dependent first: a virtual owner is verified, then observed with the same identity', () => {
    const r = new Recorder();
    const g = new Graph(r);
    g.processEvent(cm('add', 'd', 'd-uid', 'ns', [cmRef('o', 'o-uid')]));
    assert.deepEqual(r.take(), ['o-uid']);
    const virtual = g.get('o-uid')!;
    assert.equal(virtual.virtual, true);
    assert.equal(virtual.identity.namespace, 'ns');
    g.processEvent(cm('add', 'o', 'o-uid'));
    assert.equal(g.get('o-uid')!.virtual, false);
    assert.equal(g.get('o-uid')!.observed, true);
    assert.deepEqual(r.take(), []);
    assert.equal(g.get('o-uid')!.dependentsLength(), 1);
  });

  it('a missing owner: the virtual delete event removes it and queues its dependents', () => {
    const r = new Recorder();
    const g = new Graph(r);
    g.processEvent(cm('add', 'd1', 'd1', 'ns', [cmRef('gone', 'g')]));
    g.processEvent(cm('add', 'd2', 'd2', 'ns', [cmRef('gone', 'g')]));
    assert.deepEqual(r.take(), ['g']);
    g.processEvent({ ...cm('delete', 'gone', 'g'), virtual: true });
    assert.deepEqual(r.take().sort(), ['d1', 'd2']);
    assert.equal(g.get('g'), undefined);
    // The dependents' own nodes remain until they are deleted.
    g.processEvent(cm('delete', 'd1', 'd1', 'ns', [cmRef('gone', 'g')]));
    assert.equal(g.get('d1'), undefined);
    assert.equal(g.size, 1);
  });

  it('a virtual delete with other coordinates never removes an observed node', () => {
    const r = new Recorder();
    const g = new Graph(r);
    g.processEvent(cm('add', 'o', 'o-uid'));
    g.processEvent(cm('add', 'd', 'd-uid', 'ns', [{ ...cmRef('o', 'o-uid'), kind: 'Secret' }]));
    // Coordinates differ from the observed owner: the dependent is looked at.
    assert.deepEqual(r.take(), ['d-uid']);
    g.processEvent({ type: 'delete', virtual: true, apiVersion: 'v1', kind: 'Secret', meta: { uid: 'o-uid', name: 'o', namespace: 'ns' } });
    assert.ok(g.get('o-uid'));
    assert.deepEqual(r.take(), ['d-uid']);
  });

  it('cross-namespace: a dependent naming an owner observed in another namespace is reported and verified, in both orders', () => {
    // Owner observed first.
    let r = new Recorder();
    let g = new Graph(r);
    g.processEvent(cm('add', 'o', 'o-uid', 'a'));
    g.processEvent(cm('add', 'd', 'd-uid', 'b', [cmRef('o', 'o-uid')]));
    assert.deepEqual(r.invalid, [{ dependent: 'd-uid', owner: 'o-uid' }]);
    assert.deepEqual(r.take(), ['d-uid']);
    // Dependent first: the virtual owner takes the dependent's namespace; observing it elsewhere reports.
    r = new Recorder();
    g = new Graph(r);
    g.processEvent(cm('add', 'd', 'd-uid', 'b', [cmRef('o', 'o-uid')]));
    assert.deepEqual(r.take(), ['o-uid']);
    g.processEvent(cm('add', 'o', 'o-uid', 'a'));
    assert.deepEqual(r.invalid, [{ dependent: 'd-uid', owner: 'o-uid' }]);
    assert.deepEqual(r.take(), ['d-uid']);
    assert.equal(g.get('o-uid')!.identity.namespace, 'a');
  });

  it('a cluster-scoped owner may be named from any namespace', () => {
    const r = new Recorder();
    const g = new Graph(r);
    g.processEvent({ type: 'add', apiVersion: 'v1', kind: 'Namespace', meta: { uid: 'n-uid', name: 'team' } });
    g.processEvent(cm('add', 'd', 'd-uid', 'x', [{ apiVersion: 'v1', kind: 'Namespace', name: 'team', uid: 'n-uid' }]));
    g.processEvent(cm('add', 'e', 'e-uid', 'y', [{ apiVersion: 'v1', kind: 'Namespace', name: 'team', uid: 'n-uid' }]));
    assert.deepEqual(r.take(), []);
    assert.deepEqual(r.invalid, []);
  });

  it('foreground: the owner and its dependents are queued when the finalizer appears; unblocking wakes the owner', () => {
    const r = new Recorder();
    const g = new Graph(r);
    g.processEvent(cm('add', 'o', 'o-uid'));
    g.processEvent(cm('add', 'd', 'd-uid', 'ns', [cmRef('o', 'o-uid', true)]));
    const deleting = cm('update', 'o', 'o-uid', 'ns', [], { deletionTimestamp: '2026-01-01T00:00:00Z', finalizers: ['foregroundDeletion'] });
    g.processEvent({ ...deleting, oldMeta: { uid: 'o-uid', name: 'o', namespace: 'ns' } });
    assert.deepEqual(r.take(), ['d-uid', 'o-uid']);
    assert.equal(g.get('o-uid')!.deletingDependents, true);
    assert.deepEqual(g.get('o-uid')!.blockingDependents().map((n) => n.identity.uid), ['d-uid']);
    // The same state again is no transition.
    g.processEvent({ ...deleting, oldMeta: deleting.meta });
    assert.deepEqual(r.take(), []);
    // The dependent drops blockOwnerDeletion: the owner may go.
    g.processEvent({ ...cm('update', 'd', 'd-uid', 'ns', [cmRef('o', 'o-uid')]) });
    assert.deepEqual(r.take(), ['o-uid']);
    assert.deepEqual(g.get('o-uid')!.blockingDependents(), []);
  });

  it('foreground: a dependent deleted wakes its owner waiting for it', () => {
    const r = new Recorder();
    const g = new Graph(r);
    g.processEvent(cm('add', 'o', 'o-uid', 'ns', [], { deletionTimestamp: 't', finalizers: ['foregroundDeletion'] }));
    assert.deepEqual(r.take(), ['o-uid']);
    g.processEvent(cm('add', 'd', 'd-uid', 'ns', [cmRef('o', 'o-uid', true)]));
    g.processEvent(cm('delete', 'd', 'd-uid', 'ns', [cmRef('o', 'o-uid', true)]));
    assert.deepEqual(r.take(), ['o-uid']);
  });

  it('orphan: the owner is queued for orphaning when the finalizer appears', () => {
    const r = new Recorder();
    const g = new Graph(r);
    g.processEvent(cm('add', 'o', 'o-uid', 'ns', [], { deletionTimestamp: 't', finalizers: ['orphan'] }));
    assert.deepEqual(r.orphans, ['o-uid']);
    assert.deepEqual(r.take(), []);
  });

  it('cycles: two objects owning each other keep consistent dependents; deleting one queues the other', () => {
    const r = new Recorder();
    const g = new Graph(r);
    g.processEvent(cm('add', 'a', 'a', 'ns', [cmRef('b', 'b')]));
    assert.deepEqual(r.take(), ['b']);
    g.processEvent(cm('add', 'b', 'b', 'ns', [cmRef('a', 'a')]));
    assert.deepEqual(r.take(), []);
    assert.deepEqual([...g.get('a')!.dependents].map((n) => n.identity.uid), ['b']);
    assert.deepEqual([...g.get('b')!.dependents].map((n) => n.identity.uid), ['a']);
    g.processEvent(cm('delete', 'b', 'b', 'ns', [cmRef('a', 'a')]));
    assert.deepEqual(r.take(), ['a']);
    assert.equal(g.get('a')!.dependentsLength(), 0);
    // A self-reference is a cycle of one: the node is its own owner, nothing to verify.
    g.processEvent(cm('add', 's', 's', 'ns', [cmRef('s', 's')]));
    assert.deepEqual(r.take(), []);
    assert.deepEqual([...g.get('s')!.dependents].map((n) => n.identity.uid), ['s']);
    g.processEvent(cm('delete', 's', 's', 'ns', [cmRef('s', 's')]));
    assert.equal(g.get('s'), undefined);
  });

  it('every order of owner, dependent and owner deletion ends with the same graph', () => {
    const events = [cm('add', 'o', 'o'), cm('add', 'd', 'd', 'ns', [cmRef('o', 'o')]), cm('add', 'e', 'e', 'ns', [cmRef('o', 'o'), cmRef('d', 'd')])];
    const permutations = (xs: GraphEvent[]): GraphEvent[][] =>
      xs.length <= 1 ? [xs] : xs.flatMap((x, i) => permutations([...xs.slice(0, i), ...xs.slice(i + 1)]).map((p) => [x, ...p]));
    for (const order of permutations(events)) {
      const r = new Recorder();
      const g = new Graph(r);
      for (const e of order) g.processEvent(e);
      assert.equal(g.size, 3);
      for (const uid of ['o', 'd', 'e']) assert.equal(g.get(uid)!.observed, true, uid);
      assert.deepEqual([...g.get('o')!.dependents].map((n) => n.identity.uid).sort(), ['d', 'e']);
      assert.deepEqual([...g.get('d')!.dependents].map((n) => n.identity.uid), ['e']);
      r.take();
      g.processEvent(cm('delete', 'o', 'o'));
      assert.deepEqual(r.take().sort(), ['d', 'e']);
      assert.deepEqual([...g.get('d')!.dependents].map((n) => n.identity.uid), ['e']);
    }
  });

  it('referencesDiffs: added, removed and changed by uid', () => {
    const diff = referencesDiffs([cmRef('a', '1'), cmRef('b', '2', true)], [cmRef('b', '2'), cmRef('c', '3')]);
    assert.deepEqual(diff.added.map((r) => r.uid), ['3']);
    assert.deepEqual(diff.removed.map((r) => r.uid), ['1']);
    assert.deepEqual(diff.changed.map((c) => [c.old.blockOwnerDeletion, c.new.blockOwnerDeletion]), [[true, undefined]]);
  });
});
