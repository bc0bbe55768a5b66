import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../src/machinery/meta.js';
import { type Delta, DeltaFIFO, FIFOClosedError } from '../../src/client/delta-fifo.js';
import { Indexer } from '../../src/client/indexer.js';
import { DeletedFinalStateUnknown } from '../../src/client/store.js';
import { sharedStrings, stripManagedFields } from '../../src/client/transforms.js';

const cm = (name: string, rv: string, ns = 'default'): KubeObject => ({ metadata: { name, namespace: ns, resourceVersion: rv } });

async function popOne(fifo: DeltaFIFO<KubeObject>): Promise<{ deltas: Delta<KubeObject>[]; initial: boolean }> {
  let got: { deltas: Delta<KubeObject>[]; initial: boolean } | undefined;
  await fifo.pop((deltas, initial) => {
    got = { deltas, initial };
  });
  return got!;
}

const summary = (deltas: Delta<KubeObject>[]): string[] =>
  deltas.map((d) => `${d.type}:${d.object instanceof DeletedFinalStateUnknown ? `tombstone(${d.object.obj?.metadata.resourceVersion})` : d.object.metadata.resourceVersion}`);

describe('DeltaFIFO', () => {
  it('accumulates every change of a key in order and pops keys first-come first-served', async () => {
    const fifo = new DeltaFIFO<KubeObject>();
    fifo.add(cm('a', '1'));
    fifo.add(cm('b', '2'));
    fifo.update(cm('a', '3'));
    fifo.delete(cm('a', '4'));
    assert.deepEqual(fifo.listKeys(), ['default/a', 'default/b']);
    assert.deepEqual(summary((await popOne(fifo)).deltas), ['Added:1', 'Updated:3', 'Deleted:4']);
    assert.deepEqual(summary((await popOne(fifo)).deltas), ['Added:2']);
    assert.deepEqual(fifo.listKeys(), []);
  });

  it('keeps first-come first-served order across many keys, and a list of 100,000 pops in linear time', async () => {
    const fifo = new DeltaFIFO<KubeObject>();
    for (let i = 0; i < 3000; i++) fifo.add(cm(`k${i}`, String(i)));
    for (let i = 0; i < 2000; i++) assert.equal(((await popOne(fifo)).deltas[0]!.object as KubeObject).metadata.name, `k${i}`);
    fifo.add(cm('late', '9999'));
    fifo.update(cm('k2500', '10000'));
    const keys = fifo.listKeys();
    assert.equal(keys.length, 1001);
    assert.equal(keys[0], 'default/k2000');
    assert.equal(keys[1000], 'default/late');
    for (let i = 2000; i < 3000; i++) {
      const { deltas } = await popOne(fifo);
      assert.equal((deltas[0]!.object as KubeObject).metadata.name, `k${i}`);
      if (i === 2500) assert.deepEqual(summary(deltas), ['Added:2500', 'Updated:10000']);
    }
    assert.equal(((await popOne(fifo)).deltas[0]!.object as KubeObject).metadata.name, 'late');
    assert.deepEqual(fifo.listKeys(), []);
    // 100,000 keys (an informer's first list of a big resource): quadratic pops took seconds.
    const big = new DeltaFIFO<KubeObject>();
    big.replace(Array.from({ length: 100_000 }, (_, i) => cm(`b${i}`, String(i))), '1');
    const t0 = performance.now();
    for (let i = 0; i < 100_000; i++) await big.pop(() => {});
    assert.ok(performance.now() - t0 < 2000, `popping 100,000 keys took ${Math.round(performance.now() - t0)} ms`);
  });

  it('collapses consecutive deletes, keeping the known final state over a tombstone', async () => {
    const fifo = new DeltaFIFO<KubeObject>();
    fifo.add(cm('a', '1'));
    fifo.delete(cm('a', '2'));
    fifo.delete(new DeletedFinalStateUnknown('default/a', cm('a', '1')));
    fifo.delete(cm('a', '3'));
    assert.deepEqual(summary(fifo.getDeltas('default/a')!), ['Added:1', 'Deleted:3']);
    fifo.delete(new DeletedFinalStateUnknown('default/a', cm('a', '1')));
    assert.deepEqual(summary(fifo.getDeltas('default/a')!), ['Added:1', 'Deleted:3']);
  });

  it('ignores the delete of an object it neither holds nor knows', () => {
    const known = new Indexer();
    const fifo = new DeltaFIFO<KubeObject>({ knownObjects: known });
    fifo.delete(cm('ghost', '1'));
    assert.deepEqual(fifo.listKeys(), []);
    known.add(cm('real', '1'));
    fifo.delete(cm('real', '2'));
    assert.deepEqual(fifo.listKeys(), ['default/real']);
  });

  it('replace emits Replaced for listed objects and tombstones with the last known state for vanished ones', async () => {
    const known = new Indexer();
    known.add(cm('kept', '1'));
    known.add(cm('gone', '2'));
    const fifo = new DeltaFIFO<KubeObject>({ knownObjects: known });
    fifo.update(cm('pending-gone', '5')); // pending here, not yet known
    fifo.replace([cm('kept', '1'), cm('new', '7')], '9');
    const byKey = new Map<string, string[]>();
    for (const key of fifo.listKeys()) byKey.set(key, summary(fifo.getDeltas(key)!));
    assert.deepEqual(Object.fromEntries(byKey), {
      'default/pending-gone': ['Updated:5', 'Deleted:tombstone(5)'],
      'default/kept': ['Replaced:1'],
      'default/new': ['Replaced:7'],
      'default/gone': ['Deleted:tombstone(2)'],
    });
    const tomb = fifo.getDeltas('default/gone')![0]!.object as DeletedFinalStateUnknown<KubeObject>;
    assert.equal(tomb.key, 'default/gone');
  });

  it('hasSynced becomes true only after the whole initial population has been popped and processed', async () => {
    const fifo = new DeltaFIFO<KubeObject>({ knownObjects: new Indexer() });
    assert.equal(fifo.hasSynced(), false);
    fifo.replace([cm('a', '1'), cm('b', '2')], '2');
    assert.equal(fifo.hasSynced(), false);
    let syncedDuringProcess: boolean | undefined;
    await fifo.pop((_d, initial) => {
      assert.equal(initial, true);
      syncedDuringProcess = fifo.hasSynced();
    });
    assert.equal(fifo.hasSynced(), false);
    const last = fifo.pop(async (_d, initial) => {
      assert.equal(initial, true);
      syncedDuringProcess = fifo.hasSynced();
    });
    await last;
    assert.equal(syncedDuringProcess, false, 'not synced while the last initial item is still being processed');
    assert.equal(fifo.hasSynced(), true);
    fifo.add(cm('c', '3'));
    const after = await popOne(fifo);
    assert.equal(after.initial, false);
  });

  it('an empty initial list is synced at once', () => {
    const fifo = new DeltaFIFO<KubeObject>();
    fifo.replace([], '1');
    assert.equal(fifo.hasSynced(), true);
  });

  it('resync queues a Sync delta for known objects that have nothing pending', () => {
    const known = new Indexer();
    known.add(cm('a', '1'));
    known.add(cm('b', '1'));
    const fifo = new DeltaFIFO<KubeObject>({ knownObjects: known });
    fifo.update(cm('b', '2'));
    fifo.resync();
    assert.deepEqual(summary(fifo.getDeltas('default/a')!), ['Sync:1']);
    assert.deepEqual(summary(fifo.getDeltas('default/b')!), ['Updated:2']);
  });

  it('close wakes a waiting pop with FIFOClosedError', async () => {
    const fifo = new DeltaFIFO<KubeObject>();
    const waiting = fifo.pop(() => {});
    fifo.close();
    await assert.rejects(waiting, FIFOClosedError);
  });
  it('runs the transformer once on each object entering the queue, not on tombstones or resyncs (client-go)', async () => {
    const seen: string[] = [];
    const known = new Indexer<KubeObject>();
    const fifo = new DeltaFIFO<KubeObject>({
      knownObjects: known,
      transformer: (o) => {
        seen.push(o.metadata.resourceVersion!);
        return { metadata: { ...o.metadata, labels: { transformed: 'yes' } } };
      },
    });
    const transformed = (deltas: Delta<KubeObject>[]): boolean[] =>
      deltas.map((d) => (d.object instanceof DeletedFinalStateUnknown ? d.object.obj : d.object)?.metadata.labels?.['transformed'] === 'yes');
    fifo.replace([cm('a', '1'), cm('b', '2')], '2');
    fifo.update(cm('a', '3'));
    fifo.delete(cm('b', '4'));
    const a = await popOne(fifo);
    assert.deepEqual(summary(a.deltas), ['Replaced:1', 'Updated:3']);
    assert.deepEqual(transformed(a.deltas), [true, true]);
    const b = await popOne(fifo);
    assert.deepEqual(summary(b.deltas), ['Replaced:2', 'Deleted:4']);
    assert.deepEqual(transformed(b.deltas), [true, true]);
    assert.deepEqual(seen, ['1', '2', '3', '4']);
    // Objects from the indexer (resync, a relist's tombstones) were transformed when they came in.
    known.add(a.deltas[1]!.object as KubeObject);
    fifo.resync();
    fifo.replace([], '5');
    const again = await popOne(fifo);
    assert.deepEqual(summary(again.deltas), ['Sync:3', 'Deleted:tombstone(3)']);
    assert.deepEqual(seen, ['1', '2', '3', '4'], 'not transformed twice');
  });
});

describe('informer transforms', () => {
  it('stripManagedFields returns the object without managedFields and leaves the one given as it was', () => {
    const given: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'n', resourceVersion: '1', managedFields: [{ manager: 'm' }] }, data: { k: 'v' } };
    const out = stripManagedFields(given);
    assert.deepEqual(out, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'n', resourceVersion: '1' }, data: { k: 'v' } });
    assert.deepEqual(given.metadata.managedFields, [{ manager: 'm' }]);
    const none: KubeObject = { metadata: { name: 'b' } };
    assert.equal(stripManagedFields(none), none);
  });

  it('sharedStrings changes no value, in place, and keeps at most maxStrings strings', () => {
    const text = (i: number): string =>
      JSON.stringify({
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: { name: `b${i}`, namespace: 'n', resourceVersion: String(i), labels: { team: 'platform-engineering', n: String(i), odd: 7 } },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: `user-${i}` }, null],
        data: { kind: 'x'.repeat(200) },
      });
    for (const max of [10_000, 2]) {
      const share = sharedStrings<KubeObject>(max);
      for (let i = 0; i < 5; i++) {
        const obj = JSON.parse(text(i)) as KubeObject;
        assert.equal(share(obj), obj, 'in place');
        assert.deepEqual(obj, JSON.parse(text(i)));
      }
    }
  });
});
